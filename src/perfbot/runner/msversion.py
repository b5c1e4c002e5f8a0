"""The MindSpore a benchmark runs: read from its interpreter's installed packages.

perfbot's own interpreter is not the benchmark's: a runner may keep MindSpore in a venv of its
own, run `msrun` (a console script whose `#!` line names MindSpore's Python), or start a shell
script. So the version is read, in this order, from:

1. the interpreter the benchmark names (`python:` in `.perfbot.yml`);
2. the command's own interpreter: a `python*` program, the `#!` interpreter of a console script
   (`msrun`, `torchrun`-like wrappers), through `env` and `bash -c '...'`;
3. only when no interpreter can be told from the command: perfbot's own interpreter, and the
   result says so (``EnvInfo.mindspore_source``).

Nothing from the checkout runs: the interpreter's `site-packages` come from its `pyvenv.cfg`
(a venv), else from running it as ``python -I -S`` (no `site`, no `.pth` files, no environment
variables, no current directory on `sys.path`) in an empty temporary directory with a minimal
environment; an interpreter inside the checkout is never run. The version is the `Version:` of
``mindspore-*.dist-info/METADATA`` (or an egg's `PKG-INFO`) found there; nothing is imported.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from perfbot.runner.logs import open_regular

__all__ = ["benchmark_interpreter", "interpreter_mindspore", "site_dirs"]

_DIST_RE = re.compile(
    r"^mindspore(?:[-_](?:ascend|gpu|cpu|dev))?-([0-9][0-9A-Za-z.+_-]{0,40})\.(dist|egg)-info$",
    re.I,
)
_VERSION_RE = re.compile(r"[0-9][0-9A-Za-z.+-]{0,40}")
_MAX_META = 256 * 1024  # bytes of METADATA read (the Version header is near the top)
_PROBE = (
    "import sys\n"
    "print(sys.prefix)\n"
    "print(sys.exec_prefix)\n"
    "print('%d.%d' % sys.version_info[:2])\n"
    "print(getattr(sys, 'platlibdir', 'lib'))\n"
)
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh"}


def _is_assign(word: str) -> bool:
    """`NAME=value`, as `env` and a shell read a variable assignment."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier() and name.isascii()


def _which(prog: str, path: str | None, cwd: Path | None) -> Path | None:
    if os.sep in prog or (os.altsep and os.altsep in prog):
        p = Path(prog)
        if not p.is_absolute() and cwd is not None:
            p = cwd / p
        return p if p.is_file() else None
    found = shutil.which(prog, path=path)
    return Path(found) if found else None


def _is_python(name: str) -> bool:
    return re.fullmatch(r"python(?:[0-9.]*)?(?:\.exe)?", name) is not None


def _shebang(path: Path) -> list[str] | None:
    """The words of `path`'s `#!` line, or None."""
    try:
        with open_regular(path, 1 << 30) as fh:
            head = fh.read(512)
    except (OSError, ValueError):
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace").strip()
    return line.split() or None


def benchmark_interpreter(
    command: Sequence[str],
    env: Mapping[str, str],
    *,
    explicit: str | None = None,
    cwd: Path | None = None,
    _depth: int = 0,
) -> Path | None:
    """The Python interpreter `command` runs its training on (see the module's docstring), or
    None when the command does not tell."""
    path = env.get("PATH")
    if explicit:
        return _which(explicit, path, cwd)
    if not command or _depth > 4:
        return None
    args = list(command)
    prog = Path(args[0]).name
    if _is_python(prog):
        return _which(args[0], path, cwd)
    if prog == "env":  # env [-i] [VAR=value ...] program args
        i = 1
        while i < len(args) and (args[i].startswith("-") or _is_assign(args[i])):
            i += 1
        return benchmark_interpreter(args[i:], env, cwd=cwd, _depth=_depth + 1)
    if prog in _SHELLS:
        if "-c" in args[1:]:
            k = args.index("-c", 1)
            if k + 1 < len(args):
                try:
                    words = shlex.split(args[k + 1])
                except ValueError:
                    return None
                while words and _is_assign(words[0]):
                    words = words[1:]
                return benchmark_interpreter(words, env, cwd=cwd, _depth=_depth + 1)
        return None
    exe = _which(args[0], path, cwd)
    if exe is None:
        return None
    line = _shebang(exe)
    if not line:
        return None
    words = line
    if Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        return _which(words[0], path, cwd) if words and _is_python(Path(words[0]).name) else None
    return Path(words[0]) if _is_python(Path(words[0]).name) else None


def _cfg(path: Path) -> dict[str, str] | None:
    try:
        with open_regular(path, 64 * 1024) as fh:
            text = fh.read(64 * 1024).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip()
    return out


def _prefix_sites(prefix: Path, version: str | None, platlib: str = "lib") -> list[Path]:
    """The site-packages (and Debian dist-packages) folders of an installation at `prefix`."""
    versions = [version] if version else []
    if not versions:  # the lib/pythonX.Y folders there
        try:
            versions = sorted(
                (p.name[len("python") :] for p in (prefix / "lib").glob("python3.*")), reverse=True
            )
        except OSError:
            versions = []
    out: list[Path] = []
    for v in versions:
        for lib in dict.fromkeys((platlib, "lib", "lib64")):
            out.append(prefix / lib / f"python{v}" / "site-packages")
        out += [
            prefix / "local" / "lib" / f"python{v}" / "dist-packages",
            prefix / "lib" / f"python{v}" / "dist-packages",
        ]
    out.append(prefix / "lib" / "python3" / "dist-packages")
    return out


def _inside(path: Path, folder: Path | None) -> bool:
    if folder is None:
        return False
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def site_dirs(
    interpreter: Path, *, checkout: Path | None = None, timeout: float = 20.0
) -> list[Path] | None:
    """The folders `interpreter` installs packages into, in its own search order; None when they
    cannot be found without running code from the checkout."""
    for cfg_path in (interpreter.parent / "pyvenv.cfg", interpreter.parent.parent / "pyvenv.cfg"):
        cfg = _cfg(cfg_path)
        if cfg is None:
            continue
        venv = cfg_path.parent
        version = None
        m = re.match(r"(\d+\.\d+)", cfg.get("version", cfg.get("version_info", "")))
        if m:
            version = m.group(1)
        out = _prefix_sites(venv, version)
        if cfg.get("include-system-site-packages", "").lower() == "true" and cfg.get("home"):
            out += _prefix_sites(Path(cfg["home"]).parent, version)
        return out
    if _inside(interpreter, checkout):
        return None  # the pull request's own program: never run
    try:
        with tempfile.TemporaryDirectory(prefix="perfbot-probe-") as neutral:
            proc = subprocess.run(
                [str(interpreter), "-I", "-S", "-c", _PROBE],
                cwd=neutral,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.decode("utf-8", errors="replace").splitlines()
    if proc.returncode != 0 or len(lines) < 4:
        return None
    prefix, exec_prefix, version, platlib = (x.strip() for x in lines[:4])
    if not re.fullmatch(r"\d+\.\d+", version) or not platlib.isidentifier():
        return None
    out = _prefix_sites(Path(prefix), version, platlib)
    if exec_prefix != prefix:
        out += _prefix_sites(Path(exec_prefix), version, platlib)
    return out


def _metadata_version(folder: Path) -> str | None:
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open_regular(folder / name, _MAX_META) as fh:
                data = fh.read(_MAX_META)
        except (OSError, ValueError):
            continue
        for line in data.decode("utf-8", errors="replace").splitlines():
            if not line.strip():
                break  # end of the headers
            key, _, value = line.partition(":")
            if key.strip().lower() == "version":
                v = value.strip()
                return v if _VERSION_RE.fullmatch(v) else None
    return None


def mindspore_in(sites: Iterable[Path]) -> str | None:
    """MindSpore's version from the first folder of `sites` that has its distribution."""
    for site in sites:
        try:
            names = sorted(os.listdir(site))
        except OSError:
            continue
        for name in names:
            m = _DIST_RE.match(name)
            if m is None:
                continue
            version = _metadata_version(site / name) or m.group(1)
            if _VERSION_RE.fullmatch(version):
                return version
    return None


def interpreter_mindspore(
    interpreter: Path, *, checkout: Path | None = None
) -> tuple[str | None, str]:
    """(MindSpore version or None, where it was read / why it is unknown)."""
    sites = site_dirs(interpreter, checkout=checkout)
    if sites is None:
        return None, (
            f"the benchmark's interpreter {interpreter}: its packages could not be found "
            "without running it from the checkout"
        )
    version = mindspore_in(sites)
    if version is None:
        return None, f"the benchmark's interpreter {interpreter}: no MindSpore installed"
    return version, f"the benchmark's interpreter {interpreter}"
