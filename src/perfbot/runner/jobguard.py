"""What keeps a benchmark (the pull request's code) off the Actions job: the environment it runs
with (without the job's own variables), the job's file-command files snapshotted before the run
and restored after it, and the token that fences its echoed output from workflow commands."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

# Variables of the Actions job that a benchmark (the pull request's code) must not get: the files
# through which a step sets the *next* steps' environment, PATH and outputs, and the runtime
# tokens of actions such as upload-artifact. RUNNER_TRACKING_ID stays: the runner uses it to
# find and kill what the benchmark leaves behind when the job ends.
_JOB_ONLY = ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
             "GITHUB_TOKEN", "GH_TOKEN")  # fmt: skip


def benchmark_env(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` without what belongs to the Actions job rather than to the benchmark."""
    return {k: v for k, v in base.items() if k not in _JOB_ONLY and not k.startswith("ACTIONS_")}


_FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE",
                  "GITHUB_STEP_SUMMARY")  # fmt: skip
_MAX_SNAPSHOT = 64 * 1024 * 1024  # bytes of file-command files kept to restore


def _file_command_paths(base: Mapping[str, str]) -> list[Path]:
    """The step's file-command files: the runner applies what is appended to them to the job's
    *later* steps (environment, PATH, outputs, state, summary). Named by the variables, and
    every file of `$RUNNER_TEMP/_runner_file_commands/` (the benchmark does not need the
    variables to find that folder)."""
    paths = {Path(base[k]) for k in _FILE_COMMANDS if base.get(k)}
    if base.get("RUNNER_TEMP"):
        folder = Path(base["RUNNER_TEMP"]) / "_runner_file_commands"
        with contextlib.suppress(OSError):
            paths.update(p for p in folder.iterdir() if p.is_file() and not p.is_symlink())
    return sorted(paths)


def _snapshot(paths: Iterable[Path]) -> dict[Path, bytes | tuple[int, int] | None]:
    """Each file's bytes (None: it did not exist), to compare and restore after the run; past
    `_MAX_SNAPSHOT` bytes in all, only its size and mtime (a change is then seen, not undone)."""
    out: dict[Path, bytes | tuple[int, int] | None] = {}
    total = 0
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            out[p] = None
            continue
        total += st.st_size
        if total > _MAX_SNAPSHOT:
            out[p] = (st.st_size, st.st_mtime_ns)
            continue
        try:
            out[p] = p.read_bytes()
        except OSError:
            out[p] = (st.st_size, st.st_mtime_ns)
    return out


def _restore_file_commands(
    before: Mapping[Path, bytes | tuple[int, int] | None], base: Mapping[str, str]
) -> list[str]:
    """Put back every file-command file the benchmark changed or created; the names changed."""
    changed: list[str] = []
    after = _file_command_paths(base)
    for p in sorted(set(before) | set(after)):
        old = before.get(p)
        try:
            if isinstance(old, tuple):
                st = p.stat()
                now: bytes | tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
            else:
                now = p.read_bytes() if p.is_file() or p.is_symlink() else None
        except OSError:
            now = b"\0unreadable"
        if now == old:
            continue
        changed.append(p.name)
        if isinstance(old, tuple):
            continue  # too large to have been kept: reported, not restored
        with contextlib.suppress(OSError):
            if p.is_symlink() or (p.exists() and not p.is_file()):
                p.unlink()
            if old is None:
                p.unlink(missing_ok=True)
            else:
                p.write_bytes(old)
    return changed


def stop_commands_token() -> str | None:
    """A random token to fence untrusted output with `::stop-commands::` in a GitHub Actions job
    (the runner reads lines of the job log that start with `::` as workflow commands)."""
    import secrets

    if os.environ.get("GITHUB_ACTIONS") != "true":
        return None
    return "perfbot-" + secrets.token_hex(16)
