"""Detect the software environment a benchmark ran in (MindSpore, CANN, driver, firmware).

Everything is read from files under `root` (default `/`; tests pass a fake tree) and from the
environment; anything missing or unreadable is None. Nothing here raises.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, Field

from perfbot.runner.logs import open_regular
from perfbot.runner.msversion import interpreter_mindspore

__all__ = [
    "EnvInfo",
    "cann_version",
    "detect_environment",
    "driver_version",
    "firmware_version",
    "git_commit",
    "mindspore_source",
    "mindspore_version",
    "plain_version",
]

ASCEND = Path("usr/local/Ascend")
_SHA_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


class EnvInfo(BaseModel):
    """The environment of one benchmark run; None where it could not be found."""

    mindspore: str | None = Field(default=None, description="MindSpore version, e.g. 2.3.1")
    mindspore_source: str | None = Field(
        default=None,
        description="Where the MindSpore version was read (the benchmark's interpreter, or "
        "perfbot's own when the command names none), or why it is unknown",
    )
    cann: str | None = Field(default=None, description="CANN toolkit version, e.g. 8.0.RC2")
    driver: str | None = Field(default=None, description="Ascend driver version, e.g. 24.1.rc2")
    firmware: str | None = Field(default=None, description="Ascend firmware, e.g. 7.3.0.1.231")
    python: str | None = Field(default=None, description="Python version running perfbot")
    machine: str | None = Field(default=None, description="CPU architecture, e.g. aarch64")
    runner: str | None = Field(default=None, description="GitHub runner name ($RUNNER_NAME)")
    commit: str | None = Field(default=None, description="Commit of the benchmarked checkout")


def _under(root: str | Path, path: str | Path) -> Path:
    """`path` inside `root` (absolute paths are re-rooted)."""
    p = Path(path)
    if p.is_absolute():
        p = p.relative_to(p.anchor)
    return Path(root) / p


MAX_VERSION_FILE = 64 * 1024  # bytes; version files are a few lines


def _read(path: Path) -> str | None:
    """Text of a small regular file; None for anything else. Opened with O_NONBLOCK and checked
    with fstat, so a FIFO or a device (`/dev/zero`) named like a version file cannot hang or
    balloon the run."""
    try:
        with open_regular(path, MAX_VERSION_FILE) as fh:
            data = fh.read(MAX_VERSION_FILE + 1)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_VERSION_FILE:
        return None
    return data.decode("utf-8", errors="replace")


def _key_values(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        out.setdefault(key.strip().lower(), value.strip().strip("\"'"))
    return out


def _version_in(path: Path) -> str | None:
    text = _read(path)
    if text is None:
        return None
    kv = _key_values(text)
    version = kv.get("version")
    if version:
        return version
    # version.cfg: runtime_running_version=[7.3.0.1.231:8.0.RC2] -> the CANN part after ':'
    for key in ("runtime_running_version", "compiler_running_version"):
        value = kv.get(key, "")
        m = re.search(r"\[([^\]:]*):([^\]]+)\]", value)
        if m and m.group(2).strip():
            return m.group(2).strip()
    return None


def _safe_glob(base: Path, pattern: str) -> list[Path]:
    try:
        return sorted(base.glob(pattern))
    except OSError:
        return []


def cann_version(root: str | Path = "/", environ: Mapping[str, str] | None = None) -> str | None:
    """CANN version from the toolkit's `ascend_toolkit_install.info`, else its `version.cfg`.

    Looks in `$ASCEND_TOOLKIT_HOME` (when set) and `/usr/local/Ascend/ascend-toolkit/latest`.
    """
    environ = os.environ if environ is None else environ
    homes: list[Path] = []
    if environ.get("ASCEND_TOOLKIT_HOME"):
        homes.append(_under(root, environ["ASCEND_TOOLKIT_HOME"]))
    homes.append(_under(root, ASCEND / "ascend-toolkit" / "latest"))
    for home in homes:
        for pattern in ("*/ascend_toolkit_install.info", "ascend_toolkit_install.info"):
            for path in _safe_glob(home, pattern):
                if v := _version_in(path):
                    return v
        for pattern in ("version.cfg", "*/version.cfg"):
            for path in _safe_glob(home, pattern):
                if v := _version_in(path):
                    return v
    return None


def driver_version(root: str | Path = "/") -> str | None:
    """`Version=` of /usr/local/Ascend/driver/version.info."""
    return _version_in(_under(root, ASCEND / "driver" / "version.info"))


def firmware_version(root: str | Path = "/") -> str | None:
    """`Version=` of /usr/local/Ascend/firmware/version.info."""
    return _version_in(_under(root, ASCEND / "firmware" / "version.info"))


def mindspore_version(
    root: str | Path = "/",
    python: str | Path | None = None,
    *,
    checkout: str | Path | None = None,
) -> str | None:
    """MindSpore version of the benchmark (see `mindspore_source`)."""
    return mindspore_source(root, python, checkout=checkout)[0]


def mindspore_source(
    root: str | Path = "/",
    python: str | Path | None = None,
    *,
    checkout: str | Path | None = None,
) -> tuple[str | None, str | None]:
    """(MindSpore version, where it was read). With the benchmark's interpreter `python`, read
    from that interpreter's installed distribution metadata (`perfbot.runner.msversion`; nothing
    from the checkout runs), and its answer is final: a version of perfbot's own interpreter
    would be another environment's. Without one, perfbot's own interpreter (only when `root`
    is `/`), and the source says so."""
    if Path(root) != Path("/"):
        return None, None
    if python:
        return interpreter_mindspore(
            Path(python), checkout=Path(checkout) if checkout is not None else None
        )
    try:
        version = metadata.version("mindspore")
    except Exception:
        return None, "no interpreter could be told from the benchmark's command"
    return version, (
        "perfbot's own interpreter (the benchmark's could not be told from its command; "
        "name it with `python:` in .perfbot.yml)"
    )


def git_commit(
    workdir: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """`git rev-parse HEAD` in `workdir`, else `$GITHUB_SHA`."""
    environ = os.environ if environ is None else environ
    if workdir is not None:
        try:
            proc = subprocess.run(
                ["git", "rev-parse", "HEAD"],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=15,
                check=False,
            )
            sha = proc.stdout.strip()
            if proc.returncode == 0 and _SHA_RE.match(sha):
                return sha
        except (OSError, subprocess.SubprocessError):
            pass
    sha = environ.get("GITHUB_SHA", "").strip()
    return sha or None


_PLAIN_VERSION = re.compile(r"(?=[^0-9]{0,39}[0-9])[A-Za-z0-9][A-Za-z0-9._+~-]{0,39}")
# it only sees values of at most 40 characters (checked first in plain_version)
LENGTH_BOUNDED_PATTERNS = frozenset({"_PLAIN_VERSION"})


def plain_version(value: str | None) -> str | None:
    """``value`` when it reads as a version (letters, digits and ``._+~-``, at most 40
    characters, a digit among them), else None. What a version file or a probe prints ends up
    in the results, the review and a README line: nothing but a version is kept."""
    if not isinstance(value, str):
        return None
    v = value.strip()
    return v if len(v) <= 40 and _PLAIN_VERSION.fullmatch(v) else None


def detect_environment(
    root: str | Path = "/",
    *,
    workdir: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    python: str | Path | None = None,
    checkout: str | Path | None = None,
) -> EnvInfo:
    """Everything perfbot records about where a benchmark ran. Never raises. `python` is the
    benchmark's interpreter (None: the command names none); `checkout` the folder whose
    programs are never run to find it out."""
    environ = os.environ if environ is None else environ

    def safe(fn, *args):
        try:
            return fn(*args)
        except Exception:
            return None

    ms, ms_source = safe(lambda: mindspore_source(root, python, checkout=checkout)) or (None, None)
    return EnvInfo(
        mindspore=plain_version(ms),
        mindspore_source=ms_source,
        cann=plain_version(safe(cann_version, root, environ)),
        driver=plain_version(safe(driver_version, root)),
        firmware=plain_version(safe(firmware_version, root)),
        python=platform.python_version(),
        machine=platform.machine() or None,
        runner=environ.get("RUNNER_NAME") or None,
        commit=safe(git_commit, workdir, environ),
    )
