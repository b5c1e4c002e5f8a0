"""`perfbot bench`: run one benchmark's training command and measure it.

The command runs without a shell, in its own session, with a timeout after which every process it
started is killed (`perfbot.runner.proctree`). Its stdout and stderr go (merged, in order) to an
output file and, with `echo`, to our stdout (tailed from that file). Then the log (that output,
or the benchmark's `log` file) is parsed, measured and written as a `BenchResult` JSON file.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fnmatch
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from perfbot import __version__
from perfbot.display import no_command
from perfbot.runner.envinfo import EnvInfo, detect_environment
from perfbot.runner.hints import LOSS_ONLY, msrun_refusal, scan_hints
from perfbot.runner.integrity import check_cv, check_wall, last_run, run_note
from perfbot.runner.logs import LogFormatError, StepSample, clean_lines, read_log
from perfbot.runner.measure import format_compile, format_number, img_per_s, measure
from perfbot.runner.msversion import benchmark_interpreter
from perfbot.runner.proctree import run_tree
from perfbot.runner.spec import BenchmarkSpec, SpecError, load_benchmarks

__all__ = [
    "BenchResult",
    "ResultsError",
    "StepTime",
    "bench_main",
    "load_results",
    "run_benchmark",
    "write_result",
]

Status = Literal["ok", "failed", "timeout", "no_samples"]
TAIL_LINES = 50
MAX_STEP_TIMES = 20_000
_LOG_MTIME_SLACK = 2.0  # seconds; a `log` file older than the run start minus this is stale


class ResultsError(ValueError):
    """A results file cannot be read (message is for the user)."""


class StepTime(BaseModel):
    """One parsed sample: per-step seconds of `span` steps ending at `step`."""

    step: int
    seconds: float
    span: int = 1
    kind: Literal["step", "epoch"] = "step"


class RankResult(BaseModel):
    """One rank's own figures, when the benchmark's `log` glob names one log per rank."""

    rank: int | None = Field(description="Rank number from the file name, if it has one")
    log_path: str
    log_format: str | None = None
    s_per_step: float | None = None
    graph_compile_s: float | None = None
    steps_measured: int = 0
    message: str = Field(default="", description="Why this rank gave no s/step, if it did not")


class BenchResult(BaseModel):
    """The outcome of one benchmark run, as written to the results JSON."""

    schema_version: int = Field(default=1, description="Version of this JSON layout")
    name: str = Field(description="The benchmark's name in .perfbot.yml")
    readme: str = Field(description="README the row belongs to (relative to .perfbot.yml)")
    row: dict[str, str] | int = Field(description="The row selector from the benchmark")
    status: Status = Field(
        description="ok: measured; failed: non-zero exit; timeout: killed after the timeout; "
        "no_samples: exited 0 but no step times were found in the log"
    )
    message: str = Field(default="", description="One-line human summary of the outcome")
    returncode: int | None = Field(default=None, description="Exit code; None if not started")
    duration: float = Field(default=0.0, description="Wall-clock seconds the command ran")
    started_at: str = Field(default="", description="UTC start time, ISO 8601")
    command: list[str] = Field(default_factory=list)
    cards: int
    batch_size: int
    inference: bool = False
    sampling_steps: int | None = None
    sink_mode: bool = False
    log_format: str | None = Field(default=None, description="Format the log was read as")
    log_path: str | None = Field(default=None, description="File the step times came from")
    output_path: str | None = Field(default=None, description="Captured stdout+stderr")
    s_per_step: float | None = Field(default=None, description="Steady median seconds/step")
    iqr: float | None = Field(default=None, description="Interquartile range of s/step")
    cv: float | None = Field(default=None, description="Coefficient of variation of s/step")
    graph_compile_s: float | None = Field(
        default=None, description="First step (or epoch) minus a steady one, seconds"
    )
    first_step_s: float | None = Field(default=None, description="Seconds of step 1")
    img_per_s: float | None = Field(default=None, description="cards*batch size/s/step")
    steps_measured: int = Field(default=0, description="Steady steps behind s/step")
    outliers_dropped: int = 0
    measure_mode: str | None = Field(default=None, description="'step' or 'epoch' samples")
    run_mode: Literal["graph", "pynative"] | None = Field(
        default=None,
        description="MindSpore mode of the run (the benchmark's `mode`, its command or the log); "
        "a PyNative run has no graph compile",
    )
    graph_compile_note: str | None = Field(
        default=None,
        description="Why graph_compile_s is null (PyNative, not slower than steady, log does not "
        "start at step 1); the README cell should then be left as it is (e.g. N/A)",
    )
    ranks: list[RankResult] = Field(
        default_factory=list,
        description="Per-rank figures when several rank logs were read; s_per_step is the "
        "slowest rank's (a synchronous data-parallel step is as slow as its slowest worker)",
    )
    table: dict[str, str] = Field(
        default_factory=dict,
        description="Cells for the README row, formatted: cards, batch size, graph compile, "
        "s/step, img/s (and steps for inference)",
    )
    step_times: list[StepTime] = Field(default_factory=list, description="Parsed samples")
    environment: EnvInfo = Field(default_factory=EnvInfo)
    commit: str | None = None
    runner: str | None = None
    log_tail: list[str] = Field(default_factory=list, description="Last output lines if not ok")
    notes: list[str] = Field(default_factory=list)
    flags: list[str] = Field(
        default_factory=list,
        description="Checks of the log the review flags: `log_vs_wall` (the step times add up "
        "to far less than the command ran), `cv_zero` (every step time the same)",
    )
    perfbot_version: str = __version__

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# ---- running ------------------------------------------------------------------------------


def _tail(path: Path, n: int = TAIL_LINES) -> list[str]:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            start = max(0, fh.tell() - 256 * 1024)
            fh.seek(start)
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", errors="replace")
    if not text.endswith(("\n", "\r")):
        text += "\n"  # keep an unfinished last line: it may be the error
    lines = clean_lines(text)
    if start > 0 and lines:
        lines = lines[1:]  # cut mid-line
    return lines[-n:]


def _python_of(spec: BenchmarkSpec, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The benchmark's interpreter (its `python:`, the command's `python`, or a console script's
    `#!` interpreter), whose installed MindSpore is the benchmark's."""
    return benchmark_interpreter(spec.command, env, explicit=spec.python, cwd=cwd)


_RANK_RE = re.compile(r"(?:worker|rank)[_-]?(\d+)|[_-](\d+)\.(?:log|txt)$", re.I)


def _rank_of(path: Path) -> int | None:
    """Rank number in a log file name: `worker_3.log`, `rank0.log`, `x_rank_1.log`, `log_2.txt`."""
    m = _RANK_RE.search(path.name)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


MAX_LOG_ENTRIES = 100_000  # directory entries a `log` glob may visit


def _glob_in(cwd: Path, pattern: str, cap: int = MAX_LOG_ENTRIES) -> tuple[list[Path], bool]:
    """Files under `cwd` matching the relative glob `pattern` (`*`, `?`, `[...]` within one
    name, `**` for any folders), and whether the walk stopped at `cap` entries.

    Symlinked folders are never entered and a symlinked file counts only when it resolves
    inside `cwd`: the tree is the pull request's, and two committed links such as
    `cache/a -> ..` would make `glob.glob(..., recursive=True)` walk for hours."""
    parts = [x for x in pattern.replace("\\", "/").split("/") if x not in ("", ".")]
    if not parts or pattern.startswith("/") or ".." in parts:
        return [], False
    root = os.path.realpath(cwd)
    found: list[Path] = []
    visited = 0
    seen: set[tuple[str, int]] = set()
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        folder, i = stack.pop()
        if (folder, i) in seen:
            continue
        seen.add((folder, i))
        part, last = parts[i], i == len(parts) - 1
        if part == "**" and not last:  # `**/x`: x here too (zero folders); `a/**`: any file
            stack.append((folder, i + 1))
        try:
            it = os.scandir(folder)
        except OSError:
            continue
        with it:  # entry by entry: a folder of millions of files stops at the cap, unread
            for e in it:
                visited += 1
                if visited > cap:
                    return found, True
                _glob_entry(e, part, i, last, root, stack, found)
    return found, False


def _glob_entry(e: os.DirEntry, part: str, i: int, last: bool, root: str,
                stack: list[tuple[str, int]], found: list[Path]) -> None:  # fmt: skip
    """One directory entry of :func:`_glob_in`'s walk: a match, a folder to enter, or nothing."""
    hidden = e.name.startswith(".")
    try:
        is_dir = e.is_dir(follow_symlinks=False)
    except OSError:
        return
    if part == "**":
        if hidden:
            return
        if is_dir:
            stack.append((e.path, i))
        elif last and _file_inside(e, root):
            found.append(Path(e.path))
        return
    if hidden and not part.startswith("."):
        return
    if not fnmatch.fnmatchcase(e.name, part):
        return
    if last:
        if not is_dir and _file_inside(e, root):
            found.append(Path(e.path))
    elif is_dir:
        stack.append((e.path, i + 1))


def _file_inside(entry: os.DirEntry, root: str) -> bool:
    """A regular file, or a symlink to one inside `root`."""
    try:
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            return real.startswith(root + os.sep) and os.path.isfile(real)
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _find_logs(pattern: str, cwd: Path, since: float) -> tuple[list[Path], str]:
    """Files matching `pattern` (relative to `cwd`) written since `since` (epoch secs), newest
    first: one per rank when their names carry distinct rank numbers, else only the newest."""
    if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
        return [], f"log file '{pattern}' must be a path inside the benchmark's workdir"
    matches, capped = _glob_in(cwd, pattern, MAX_LOG_ENTRIES)
    if capped:
        return [], (
            f"log file '{pattern}': the search visited {MAX_LOG_ENTRIES:,} entries under {cwd} "
            "and stopped; name the log's folder in `log`"
        )
    files = []
    for p in matches:
        with contextlib.suppress(OSError):
            if p.is_file():
                files.append((p.stat().st_mtime, p))
    if not files:
        return [], f"log file '{pattern}' not found in {cwd}"
    fresh = sorted(((m, p) for m, p in files if m >= since - _LOG_MTIME_SLACK), reverse=True)
    if not fresh:
        return [], f"log file '{pattern}' was not written during this run (it is older)"
    paths = [p for _, p in fresh]
    ranked = [(rank, p) for p in paths if (rank := _rank_of(p)) is not None]
    if len(paths) > 1 and len(ranked) == len(paths) and len({r for r, _ in ranked}) == len(ranked):
        return [p for _, p in sorted(ranked)], ""
    return paths[:1], ""


_MODE_KEYS = {"mode", "ms_mode", "environment.mode", "system.mode"}


def _pynative_in_command(command: Sequence[str]) -> bool | None:
    """True/False when the command sets MindSpore's mode (`--mode 1`, `--ms_mode=0`,
    `system.mode=1`, ...), None when it does not say."""
    for i, arg in enumerate(command):
        key, eq, value = arg.partition("=")
        if key.lstrip("-") not in _MODE_KEYS:
            continue
        if not eq:
            value = command[i + 1] if i + 1 < len(command) else ""
        value = value.strip().lower()
        if value in ("1", "pynative", "pynative_mode"):
            return True
        if value in ("0", "graph", "graph_mode"):
            return False
    return None


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


def run_benchmark(
    spec: BenchmarkSpec,
    *,
    workdir: str | Path,
    root: str | Path = "/",
    env: Mapping[str, str] | None = None,
    output_path: str | Path | None = None,
    echo: bool = False,
    kill_grace: float = 5.0,
) -> BenchResult:
    """Run `spec`'s command and measure it.

    `workdir` is the directory of `.perfbot.yml` (the benchmark's `workdir`, `readme` and `log`
    are relative to it); `root` is where the Ascend install is looked up (tests use a fake tree);
    `env` replaces `os.environ` as the base environment; `output_path` is where stdout+stderr
    are saved (default: a temporary file); `echo` also copies them to our stdout.
    """
    base = Path(workdir)
    cwd = (base / spec.workdir).resolve()
    job_env = os.environ if env is None else env
    proc_env = benchmark_env(job_env)
    proc_env.setdefault("PYTHONUNBUFFERED", "1")
    proc_env["MS_COMPILER_CACHE_ENABLE"] = "0"  # measure graph compile from scratch
    proc_env.update(spec.env)

    if output_path is None:
        fd, tmp = tempfile.mkstemp(prefix=f"perfbot-{spec.name}-", suffix=".log")
        os.close(fd)
        out_path = Path(tmp)
    else:
        out_path = Path(output_path)
        out_path.parent.mkdir(parents=True, exist_ok=True)

    started_wall = time.time()
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    result = BenchResult(
        name=spec.name,
        readme=spec.readme,
        row=spec.row,
        status="failed",
        started_at=started_at,
        command=list(spec.command),
        cards=spec.cards,
        batch_size=spec.batch_size,
        inference=spec.inference,
        sampling_steps=spec.sampling_steps,
        sink_mode=spec.sink_mode,
        output_path=str(out_path),
    )
    # the runner's own environment, not the benchmark's `env` (the pull request's choice): a
    # CANN path, a runner name or a commit are read from where the job runs
    environment = detect_environment(
        root,
        workdir=cwd,
        environ=job_env,  # the runner's CANN: never the benchmark's env
        python=_python_of(spec, proc_env, cwd),
        checkout=base.resolve(),
    )
    result.environment = environment
    result.commit = environment.commit
    result.runner = environment.runner

    if not cwd.is_dir():
        result.message = f"workdir {cwd} does not exist"
        return result

    t0 = time.monotonic()
    echo_to = getattr(sys.stdout, "buffer", None) if echo else None
    token = stop_commands_token() if echo_to is not None else None
    if token:
        sys.stdout.write(f"::stop-commands::{token}\n")
        sys.stdout.flush()
    commands_before = _snapshot(_file_command_paths(job_env))
    try:
        outcome = run_tree(
            spec.command,
            cwd=cwd,
            env=proc_env,
            output=out_path,
            timeout=spec.timeout,
            kill_grace=kill_grace,
            echo_to=echo_to,
            max_output=int(spec.max_output_mb * 1024 * 1024),
        )
    except OSError as exc:
        msg = f"cannot run '{spec.command[0]}': {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            out_path.write_text(msg + "\n", encoding="utf-8")
        result.message = msg
        result.log_tail = [msg]
        return result
    finally:
        if token:
            sys.stdout.write(f"\n::{token}::\n")
            sys.stdout.flush()
        tampered = _restore_file_commands(commands_before, job_env)
    timed_out = outcome.timed_out
    result.notes.extend(outcome.notes)
    result.duration = round(time.monotonic() - t0, 3)
    result.returncode = outcome.returncode

    _measure_with_deadline(result, spec, cwd, out_path, started_wall)

    if tampered:
        result.status = "failed"
        result.message = (
            "the benchmark wrote to the job's file-command files ("
            + ", ".join(tampered[:5])
            + "), through which a step sets the environment, PATH and outputs of the job's "
            "later steps; perfbot restored them and does not report this run"
        )
    elif timed_out:
        result.status = "timeout"
        result.message = f"killed after the {spec.timeout:g} s timeout" + _measured(result)
    elif outcome.output_capped:
        result.status = "failed"
        result.message = (
            f"killed: its output passed max_output_mb ({spec.max_output_mb:g} MiB)"
            + _measured(result)
        )
    elif outcome.returncode != 0:
        result.status = "failed"
        result.message = f"the command exited with code {outcome.returncode}" + _measured(result)
    elif result.s_per_step is None:
        result.status = "no_samples"
        if not result.message:
            result.message = "no step times found in the log"
    else:
        result.status = "ok"
        result.message = _summary(result)
    if result.status != "ok":
        result.log_tail = _tail(out_path)
    return result


def _measured(result: BenchResult) -> str:
    if result.s_per_step is None:
        return ""
    return f" (partial: {result.s_per_step:.4f} s/step over {result.steps_measured} steps)"


def _summary(r: BenchResult) -> str:
    parts = [f"{r.s_per_step:.4f} s/step over {r.steps_measured} steps"]
    if r.cv is not None:
        parts.append(f"CV {r.cv * 100:.1f}%")
    if r.graph_compile_s is not None:
        parts.append(f"graph compile {r.graph_compile_s:.1f} s")
    if r.img_per_s is not None:
        parts.append(f"{r.img_per_s:.2f} img/s")
    return ", ".join(parts)


_MEASURED_FIELDS = (
    "log_format",
    "log_path",
    "s_per_step",
    "iqr",
    "cv",
    "graph_compile_s",
    "first_step_s",
    "img_per_s",
    "steps_measured",
    "outliers_dropped",
    "measure_mode",
    "table",
    "step_times",
    "run_mode",
    "graph_compile_note",
    "flags",
)


PARSE_DEADLINE = 600.0  # seconds for reading and measuring the log(s) after the command


def _measure_with_deadline(
    result: BenchResult, spec: BenchmarkSpec, cwd: Path, out_path: Path, since: float
) -> None:
    """:func:`_measure_into` in a forked child killed after `PARSE_DEADLINE` seconds: the log and
    the `regex` are the pull request's, and a match that backtracks, or a huge log, must not hold
    the runner after the benchmark's own timeout is over. Without fork (not Linux/macOS) it
    runs in this process."""
    if not hasattr(os, "fork"):
        _measure_into(result, spec, cwd, out_path, since)
        return
    fd, tmp = tempfile.mkstemp(prefix="perfbot-measure-", suffix=".json")
    os.close(fd)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: measure, write the result, leave without cleanup handlers
        code = 1
        try:
            _measure_into(result, spec, cwd, out_path, since)
            Path(tmp).write_text(result.model_dump_json(), encoding="utf-8")
            code = 0
        except BaseException:
            if os.environ.get("PERFBOT_DEBUG"):
                import traceback

                traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + PARSE_DEADLINE
    status = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                status = None
                break
            time.sleep(0.02)
        if status is not None and os.waitstatus_to_exitcode(status) == 0:
            got = BenchResult.model_validate_json(Path(tmp).read_text(encoding="utf-8"))
            for name in BenchResult.model_fields:  # the child began as a copy of `result`
                setattr(result, name, getattr(got, name))
        elif status is None:
            result.message = (
                f"reading the log took longer than {PARSE_DEADLINE:g} s and was stopped (a "
                "`regex` or `log` glob too slow for this log?)"
            )
        else:
            result.message = "reading the log failed (a perfbot bug: PERFBOT_DEBUG=1 says more)"
    except BaseException:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _measure_into(
    result: BenchResult, spec: BenchmarkSpec, cwd: Path, out_path: Path, since: float
) -> None:
    """Parse the log(s) and fill the measurement fields of `result` (and its message if none).

    With one log per rank (a `log` glob such as `msrun_log/worker_*.log`), every rank is measured
    and the result is the slowest rank's, with each rank's figures in `ranks`."""
    if spec.log:
        paths, problem = _find_logs(spec.log, cwd, since)
        if not paths:
            result.message = problem
            return
    else:
        paths = [out_path]
    pynative = None if spec.mode == "auto" else spec.mode == "pynative"
    if pynative is None:
        pynative = _pynative_in_command(spec.command)
    if len(paths) == 1:
        _measure_log(result, spec, paths[0], pynative)
        return
    per_rank: list[tuple[int, BenchResult]] = []
    for path in paths:
        rank = _rank_of(path)
        sub = result.model_copy(deep=True)
        sub.notes = []
        _measure_log(sub, spec, path, pynative)
        result.ranks.append(
            RankResult(
                rank=rank,
                log_path=str(path),
                log_format=sub.log_format,
                s_per_step=sub.s_per_step,
                graph_compile_s=sub.graph_compile_s,
                steps_measured=sub.steps_measured,
                message="" if sub.s_per_step is not None else sub.message,
            )
        )
        per_rank.append((rank if rank is not None else -1, sub))
    measured = [(r, sub) for r, sub in per_rank if sub.s_per_step is not None]
    if not measured:
        first = per_rank[0][1]
        result.log_path, result.log_format = first.log_path, first.log_format
        result.message = f"no rank log gave step times ({len(paths)} read): {first.message}"
        return
    rank, slowest = max(measured, key=lambda item: item[1].s_per_step or 0.0)
    for name in _MEASURED_FIELDS:
        setattr(result, name, getattr(slowest, name))
    figures = ", ".join(
        f"rank {r.rank}: {r.s_per_step:.4f}" if r.s_per_step is not None else f"rank {r.rank}: -"
        for r in result.ranks
    )
    result.notes.append(
        f"read {len(paths)} rank logs; s/step is the slowest rank's (rank {rank}): {figures}"
    )
    result.notes.extend(slowest.notes)
    silent = [r.rank for r in result.ranks if r.s_per_step is None]
    if silent:
        result.notes.append(f"no step times in the log of rank(s) {silent}")


def _measure_log(
    result: BenchResult, spec: BenchmarkSpec, log_path: Path, pynative: bool | None
) -> None:
    """Parse one log (streamed) and fill the measurement fields of `result`."""
    result.log_path = str(log_path)
    try:
        read = read_log(
            log_path,
            spec.log_format.value,
            regex=spec.regex,
            steps_per_epoch=spec.steps_per_epoch,
            regex_times=spec.regex_times,
        )
    except LogFormatError as exc:
        result.message = str(exc)
        return
    except OSError as exc:
        result.message = f"cannot read the log {log_path}: {exc.strerror or exc}"
        return
    fmt, samples = read.fmt, read.samples
    result.log_format = fmt
    if fmt is None:
        if scan_hints(log_path).loss_lines:
            result.message = LOSS_ONLY
        else:
            result.message = "the log format was not recognised; set log_format (or a regex)"
        return
    result.notes.extend(read.notes)
    result.step_times = [StepTime(**_sample_dict(s)) for s in samples[:MAX_STEP_TIMES]]
    if len(samples) > MAX_STEP_TIMES:
        result.notes.append(f"step_times keeps the first {MAX_STEP_TIMES} of {len(samples)}")
    if read.refusal:
        result.message = read.refusal
        if read.ranks or "interleaves" in read.refusal:
            result.message = msrun_refusal(read.refusal, scan_hints(log_path))
        return
    if not samples:
        result.message = f"no step times found in the log (read as {fmt})"
        return
    samples, runs = last_run(samples)
    if runs:
        result.notes.append(run_note(samples, runs))
    if pynative is None:
        pynative = read.pynative
    result.run_mode = "pynative" if pynative else "graph"
    m = measure(
        samples,
        warmup=spec.warmup,
        sink_mode=spec.sink_mode,
        outlier_seconds=spec.outlier_seconds,
        outlier_factor=spec.outlier_factor,
        pynative=bool(pynative),
    )
    result.notes.extend(m.notes)
    result.measure_mode = m.mode
    result.steps_measured = m.steps_measured
    result.outliers_dropped = m.outliers_dropped
    result.graph_compile_s = _r(m.graph_compile_s)
    result.graph_compile_note = m.compile_note
    result.first_step_s = _r(m.first_step_s)
    # the steps the parser counted, lines it dropped included (TimeMonitor under Model.fit)
    last_step = max(max(samples.step), read.last_step)
    if spec.steps and last_step < spec.steps:
        result.notes.append(f"the log ends at step {last_step} of the expected {spec.steps}")
    if m.s_per_step is None or m.s_per_step <= 0:
        result.message = "not enough step times after the first step to measure s/step"
        return
    checks = [
        check_wall(samples, "epoch" if m.mode == "epoch" else "step", result.duration),
        check_cv(m.cv, m.steps_measured),
    ]
    for check in checks:
        result.notes.extend(check.notes)
        result.flags.extend(check.flags)
        if check.refusal:
            result.message = check.refusal
            return
    result.s_per_step = _r(m.s_per_step)
    result.iqr = _r(m.iqr)
    result.cv = _r(m.cv)
    ips = img_per_s(
        m.s_per_step,
        spec.cards,
        spec.batch_size,
        inference=spec.inference,
        sampling_steps=spec.sampling_steps,
    )
    result.img_per_s = _r(ips)
    table = {"cards": str(spec.cards), "batch size": str(spec.batch_size)}
    if spec.inference and spec.sampling_steps:
        table["steps"] = str(spec.sampling_steps)
    if m.graph_compile_s is not None:
        table["graph compile"] = format_compile(m.graph_compile_s)
    table["s/step"] = format_number(m.s_per_step)
    table["img/s"] = format_number(ips)
    result.table = table


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _sample_dict(s: StepSample) -> dict[str, object]:
    return {"step": s.step, "seconds": round(s.seconds, 6), "span": s.span, "kind": s.kind}


# ---- results files ------------------------------------------------------------------------


def write_result(result: BenchResult, path: str | Path) -> Path:
    """Write `result` as JSON to `path` (parents created, replaced atomically)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p


def load_results(paths: Iterable[str | Path]) -> list[BenchResult]:
    """Read results JSON files (one object or a list each; a directory means its *.json).

    Raises `ResultsError` naming the file on unreadable or invalid content.
    """
    out: list[BenchResult] = []
    for path in paths:
        p = Path(path)
        files = sorted(p.glob("*.json")) if p.is_dir() else [p]
        for f in files:
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise ResultsError(f"{f}: no such file") from None
            except (OSError, UnicodeDecodeError) as exc:
                raise ResultsError(f"{f}: cannot read: {exc}") from None
            except json.JSONDecodeError as exc:
                raise ResultsError(f"{f}: not valid JSON (line {exc.lineno}): {exc.msg}") from None
            items = data if isinstance(data, list) else [data]
            for i, item in enumerate(items):
                try:
                    out.append(BenchResult.model_validate(item))
                except ValidationError as exc:
                    first = exc.errors(include_url=False)[0]
                    loc = ".".join(str(x) for x in first.get("loc", ()))
                    where = f"{f}" + (f"[{i}]" if isinstance(data, list) else "")
                    raise ResultsError(
                        f"{where}: not a perfbot bench result ({loc}: {first.get('msg')})"
                    ) from None
    return out


# ---- CLI ----------------------------------------------------------------------------------


def _bench_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfbot bench",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Run one benchmark from .perfbot.yml and write its measured result as JSON.",
    )
    p.add_argument("--config", default=".perfbot.yml", help="config file (default .perfbot.yml)")
    p.add_argument("--name", help="benchmark to run (may be omitted if there is only one)")
    p.add_argument("--out", help="results JSON to write (default perfbot-bench-NAME.json)")
    p.add_argument(
        "--output", help="where to save the command's stdout+stderr (default: --out with .log)"
    )
    p.add_argument("--root", default="/", help="filesystem root for Ascend version files")
    p.add_argument("--quiet", action="store_true", help="do not echo the command's output")
    return p


def _err(msg: str) -> None:
    for line in msg.splitlines() or [msg]:
        print(f"perfbot bench: error: {line}", file=sys.stderr)


def bench_main(argv: list[str]) -> int:
    """`perfbot bench`: 0 measured, 1 failed/timeout/no samples, 2 usage or config error."""
    try:
        args = _bench_parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage/help
        return int(exc.code) if isinstance(exc.code, int) else 2
    config = Path(args.config)
    try:
        specs = load_benchmarks(config)
    except SpecError as exc:
        _err(str(exc))
        return 2
    names = [s.name for s in specs]
    if args.name is None:
        if len(specs) != 1:
            _err(f"--name is required: {config} has benchmarks {', '.join(names)}")
            return 2
        spec = specs[0]
    else:
        matching = [s for s in specs if s.name == args.name]
        if not matching:
            _err(f"no benchmark named '{args.name}' in {config}; there are: {', '.join(names)}")
            return 2
        spec = matching[0]
    out = Path(args.out) if args.out else Path(f"perfbot-bench-{spec.name}.json")
    output = Path(args.output) if args.output else out.with_suffix(".log")
    if output.resolve() == out.resolve():
        _err("--output must differ from --out")
        return 2
    print(f"perfbot bench: running {spec.name}: {' '.join(spec.command)}", file=sys.stderr)
    sys.stdout.flush()
    result = run_benchmark(
        spec,
        workdir=config.parent,
        root=args.root,
        output_path=output,
        echo=not args.quiet,
    )
    try:
        write_result(result, out)
    except OSError as exc:
        _err(f"cannot write {out}: {exc.strerror or exc}")
        return 2
    sys.stdout.flush()
    print(no_command(f"perfbot bench: {spec.name}: {result.status}: {result.message}"),
          file=sys.stderr)  # fmt: skip
    for note in result.notes:
        print(no_command(f"  note: {note}"), file=sys.stderr)
    if result.table:
        cells = ", ".join(f"{k} {v}" for k, v in result.table.items())
        print(f"  row: {cells}", file=sys.stderr)
    if result.status in ("failed", "timeout") and result.log_tail and args.quiet:
        print("  last lines of the output:", file=sys.stderr)
        for line in result.log_tail[-20:]:
            print(no_command(f"    {line}"), file=sys.stderr)
    print(f"  wrote {out} (output in {output})", file=sys.stderr)
    return 0 if result.status == "ok" else 1
