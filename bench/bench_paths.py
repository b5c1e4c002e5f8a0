#!/usr/bin/env python3
"""Benchmark: the paths users feel besides the whole-tree check (issue 11).

1. One README in a cold process (the pre-commit case): CPU time of `perfbot check one/README.md`,
   against `perfbot --version` and `rumdl check` on the same file. Goals: <= 120 ms CPU;
   `perfbot --version` < 50 ms.
2. `perfbot fix` on the corpus x10 against `perfbot check` on the same tree (each fix run gets a
   fresh copy). Goal: fix <= 1.2x check's wall time. Then the same pair on that tree once fixed
   (a repository after its first `fix`: what a pre-commit hook or CI job meets from then on).
   Beside it, the same pair of each peer at hand (rumdl `check --fix`, markdownlint-cli2 `--fix`,
   their table rules): like `perfbot fix`, they lint the text they fixed again. Then, in this
   process on the corpus x1 (2b): check, the fix loop, and the check of the fixed texts with and
   without their parse: what reporting the check of the written text costs by itself.
3. Peak RSS of `perfbot check` (text, json, sarif) on the corpus x50 against the bytes checked.
   Goal: <= 3x. The figure is the largest single process (os.wait4's ru_maxrss): shown with a
   process pool of one worker per core (PERFBOT_JOBS=cores; by default a loaded machine would
   not use the pool) and without it (PERFBOT_JOBS=1), where it is the whole run.
4. `parse_log` on a 1,000,000-line log of every format against a one-regex floor: runs
   `bench_logs.py` (in its own process; `--log-lines N` for shorter logs). Goal: <= 3x.

Runs are paired and alternate between the two commands compared; medians are shown, with the load
average. `--base SRC` (another checkout's `src`, e.g. main's) adds that perfbot (the same command
with PYTHONPATH=SRC) to 1 and 3, run in the same loop, for an old/new ratio. Python's bytecode
cache is on (PYTHONPYCACHEPREFIX in the bench's temp dir, PYTHONDONTWRITEBYTECODE dropped), as for
an installed perfbot, and every
command runs once before it is timed: without it every process compiles perfbot's sources again
(~100 ms of a one-README check); `--no-bytecode` measures that case. Usage:
python bench/bench_paths.py [--corpus DIR] [--runs R] [--skip one,fix,rss,logs] [--base SRC]
[--log-lines N] [--python PY]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import (
    CORPUS,
    corpus_files,
    load,
    markdownlint_in,
    perfbot_cmd,
    replicate,
    rumdl_check,
    tool,
)

GOAL_ONE_MS = 120
GOAL_VERSION_MS = 50
GOAL_FIX = 1.2
GOAL_RSS = 3.0


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, int, int]:
    """(wall s, CPU s, peak RSS bytes of the largest process, exit code)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return wall, ru.ru_utime + ru.ru_stime, rss, p.returncode


def base_env(base: str | None) -> dict | None:
    """The environment that runs `python -m perfbot` from ``base`` (another checkout's src)."""
    return {**os.environ, "PYTHONPATH": base} if base else None


def one_readme(pb: list[str], work: Path, runs: int, base: str | None = None) -> None:
    # the corpus README closest to the median size: a typical file
    files = sorted(corpus_files(CORPUS_DIR), key=lambda f: f.stat().st_size)
    src = files[len(files) // 2]
    one = work / "one"
    one.mkdir()
    shutil.copyfile(src, one / "README.md")
    cmds = {
        "perfbot check one/README.md": [*pb, "check", "--fail-on", "never", "one/README.md"],
        "perfbot --version": [*pb, "--version"],
        # the interpreter's own start and exit (site, .pth files): the floor under both
        "python -c pass": [PYTHON, "-c", "pass"],
        # the same without site: what the .pth files of this interpreter's site-packages cost
        "python -I -S -c pass": [PYTHON, "-I", "-S", "-c", "pass"],
    }
    envs: dict[str, dict | None] = {}
    if base:
        name = "base: perfbot check one/README.md"
        cmds[name] = [*pb, "check", "--fail-on", "never", "one/README.md"]
        envs[name] = base_env(base)
    rumdl = tool("rumdl")
    if rumdl:
        cmds["rumdl check one/README.md"] = rumdl_check(rumdl, "one/README.md")
    cpu: dict[str, list[float]] = {k: [] for k in cmds}
    for name in cmds:  # warm-up: the bytecode cache
        run(cmds[name], work, envs.get(name))
    print(f"\n1. one README ({src.stat().st_size} bytes), cold process, {runs} runs each; "
          f"load {load()}")  # fmt: skip
    for i in range(runs):
        for name in cmds if i % 2 == 0 else reversed(cmds):
            cpu[name].append(run(cmds[name], work, envs.get(name))[1])
    med = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
    for k, v in med.items():
        # the least: what the process costs when this machine's other load does not slow it
        print(f"   {k:30s} {v:7.1f} ms CPU (median; least {min(cpu[k]) * 1000:6.1f})")
    c, v = med["perfbot check one/README.md"], med["perfbot --version"]
    print(f"   goal: check one README <= {GOAL_ONE_MS} ms CPU: {c:.0f} ms "
          f"({'met' if c <= GOAL_ONE_MS else 'NOT met'}); {c / v:.1f}x --version")  # fmt: skip
    print(f"   goal: --version < {GOAL_VERSION_MS} ms CPU: {v:.0f} ms "
          f"({'met' if v < GOAL_VERSION_MS else 'NOT met'})")  # fmt: skip
    site = med["python -c pass"] - med["python -I -S -c pass"]
    print(
        f"   site start-up of {PYTHON}: {site:.0f} ms of each figure above (its site-packages' "
        ".pth files; a venv of its own: a few ms; `--python` times another install)"
    )
    if base:
        b = med["base: perfbot check one/README.md"]
        print(f"   this / base, check one README: {c / b:.2f}x")
    if "rumdl check one/README.md" in med:
        print(f"   perfbot / rumdl on one file: {c / med['rumdl check one/README.md']:.1f}x")
    print(f"   load after: {load()}")


def fix_vs_check(pb: list[str], work: Path, runs: int, times: int) -> None:
    master = work / "fixmaster"
    n, size = replicate(CORPUS_DIR, master, times)
    print(f"\n2. fix vs check on the corpus x{times} ({n} files, {size / 1e6:.1f} MB), {runs} "
          f"paired runs; load {load()}")  # fmt: skip
    check_cmd = [*pb, "check", "--fail-on", "never", "-q", "tree"]
    fix_cmd = [*pb, "fix", "--fail-on", "never", "-q", "tree"]

    def paired(
        source: Path, check: list[str] = check_cmd, fix: list[str] = fix_cmd, runs: int = runs
    ) -> tuple[float, float]:
        walls: dict[str, list[float]] = {"check": [], "fix": []}
        for i in range(runs):
            for name in ("check", "fix") if i % 2 == 0 else ("fix", "check"):
                tree = work / "tree"
                if tree.exists():
                    shutil.rmtree(tree)
                shutil.copytree(source, tree)
                cmd = check if name == "check" else fix
                walls[name].append(run(cmd, work)[0])
        return statistics.median(walls["check"]), statistics.median(walls["fix"])

    c, f = paired(master)
    print(f"   perfbot check {c:7.3f} s wall (median)")
    print(f"   perfbot fix   {f:7.3f} s wall (median)")
    print(
        f"   goal: fix <= {GOAL_FIX}x check: {f / c:.2f}x "
        f"({'met' if f / c <= GOAL_FIX else 'NOT met'})"
    )
    # peers that also lint the text they fixed: the same pair of theirs, on the same tree
    for name, check, fix in peer_fixers(work):
        pc, pf = paired(master, check, fix, min(runs, 3))
        print(f"   peer {name}: check {pc:.3f} s, fix {pf:.3f} s: {pf / pc:.2f}x")
    # the steady state: the same tree once fixed, as a repository is after its first `fix`
    fixed = work / "fixedmaster"
    shutil.copytree(master, fixed)
    run([*pb, "fix", "--fail-on", "never", "-q", "."], fixed)
    c2, f2 = paired(fixed)
    print(f"   on the tree already fixed: check {c2:.3f} s, fix {f2:.3f} s: {f2 / c2:.2f}x")
    print(f"   load after: {load()}")
    shutil.rmtree(master)
    shutil.rmtree(fixed)
    shutil.rmtree(work / "tree", ignore_errors=True)


def peer_fixers(work: Path) -> list[tuple[str, list[str], list[str]]]:
    """(name, check command, fix command) of the peers at hand, on ``work/tree`` (their table
    rules, as in bench_check.py). Both fix, then lint the fixed text again to report what is
    left, as `perfbot fix` does."""
    out = []
    rumdl = tool("rumdl")
    if rumdl:
        check = rumdl_check(rumdl, "tree")
        out.append(("rumdl", check, [*check[:2], "--fix", *check[2:]]))
    mlc = markdownlint_in(work)
    if mlc is not None:
        out.append(("markdownlint-cli2", [str(mlc), "tree/**/*.md"],
                    [str(mlc), "--fix", "tree/**/*.md"]))  # fmt: skip
    return out


def verify_floor(runs: int) -> None:
    """In this process, on the corpus x1: `check` of every README, the fix loop over them (safe
    fixes), and the check of the texts it wrote, parsed and recognised again, and without the
    parse (the documents given): the least a fix that reports the check of what it wrote pays
    on top of `check`, whatever its parser does."""
    import gc

    from perfbot.config_light import DEFAULT
    from perfbot.context import Context, spec_for
    from perfbot.engine import applicable, check_source, fix_result, run_rules
    from perfbot.parse import parse_document
    from perfbot.source import Source, read_source
    from perfbot.suppress import directives_of, suppress

    srcs = [s for f in corpus_files(CORPUS_DIR) if isinstance(s := read_source(str(f)), Source)]

    def first(s: Source):
        r = check_source(s, DEFAULT, require_model_tables=True)
        return r if any(applicable(f, False) for f in r.findings) else None

    news = []
    for s in srcs:
        r = first(s)
        if r is not None:
            text = fix_result(s, DEFAULT, first=r, unsafe=False)[0]
            if text != s.text:
                news.append(Source.from_text(text, path=s.path))
    spec = spec_for(DEFAULT)
    docs = [parse_document(n, spec) for n in news]

    def check_all() -> None:
        for s in srcs:
            check_source(s, DEFAULT, require_model_tables=True)

    def fix_all() -> None:
        for s in srcs:
            r = first(s)
            if r is not None:
                fix_result(s, DEFAULT, first=r, unsafe=False)

    def recheck() -> None:
        for n in news:
            check_source(n, DEFAULT)

    def recheck_parsed() -> None:
        for n, d in zip(news, docs, strict=True):
            ctx = Context(n, DEFAULT, spec, d)
            suppress(run_rules(ctx), directives_of(ctx), ctx.doc)

    def best(fn) -> float:
        times = []
        for _ in range(runs):
            gc.collect()
            t = time.process_time()
            fn()
            times.append(time.process_time() - t)
        return min(times)

    c = best(check_all)
    print(f"\n2b. in process, corpus x1 ({len(srcs)} READMEs, {len(news)} changed by safe fixes), "
          f"best of {runs}, CPU; load {load()}")  # fmt: skip
    print(f"   check {c * 1000:.0f} ms")
    for label, fn in (
        ("fix loop (check, fix, re-check)", fix_all),
        ("check of the fixed texts", recheck),
        ("the same, their parse given", recheck_parsed),
    ):
        t = best(fn)
        print(f"   {label:34s} {t * 1000:5.0f} ms = {t / c:.2f}x check")


def peak_rss(pb: list[str], work: Path, times: int, base: str | None = None) -> None:
    tree = work / "big"
    n, size = replicate(CORPUS_DIR, tree, times)
    print(f"\n3. peak RSS of check on the corpus x{times} ({n} files, {size / 1e6:.1f} MB); "
          f"load {load()}")  # fmt: skip
    bare = run([PYTHON, "-c", "pass"], work)[2]
    print(f"   (a bare Python process: {bare / 1e6:.0f} MB)")
    who = [("", pb, {})]
    if base:
        who.append(("base ", pb, {"PYTHONPATH": base}))
    cores = str(os.cpu_count() or 2)
    for label, env in (  # the pool forced: by default a loaded machine would not use it
        (f"PERFBOT_JOBS={cores}", {"PERFBOT_JOBS": cores}),
        ("PERFBOT_JOBS=1", {"PERFBOT_JOBS": "1"}),
    ):
        for fmt in ("text", "json", "sarif"):
            for tag, prog, extra in who:
                cmd = [*prog, "check", "--format", fmt, "--fail-on", "never", "big"]
                wall, _, rss, _ = run(cmd, work, {**os.environ, **env, **extra})
                r = rss / size
                print(f"   {tag}{label:15s} --format {fmt:5s} peak RSS {rss / 1e6:7.1f} MB = "
                      f"{r:4.1f}x bytes ({'met' if r <= GOAL_RSS else 'NOT met'} <= {GOAL_RSS}x)"
                      f"  {wall:.1f} s wall")  # fmt: skip
    print(f"   load after: {load()}")
    shutil.rmtree(tree)


CORPUS_DIR = CORPUS
PYTHON = sys.executable  # the interpreter whose perfbot is timed (--python)


def main(argv: list[str] | None = None) -> int:
    global CORPUS_DIR, PYTHON
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--runs", type=int, default=5, help="paired runs (default 5; one README: x4)")
    ap.add_argument("--skip", default="", help="comma-separated: one, fix, rss, logs")
    ap.add_argument("--log-lines", type=int, default=1_000_000, help="lines of each log (4)")
    ap.add_argument("--base", help="another checkout's src dir, measured alongside (1 and 3)")
    ap.add_argument("--no-bytecode", action="store_true", help="compile sources in every process")
    ap.add_argument(
        "--python",
        help="time the perfbot of this interpreter (e.g. a venv without system site-packages, "
        "as users install it; default: the one running this script)",
    )
    args = ap.parse_args(argv)
    CORPUS_DIR = Path(args.corpus)
    if not CORPUS_DIR.is_dir():
        print(f"bench: no corpus at {CORPUS_DIR}", file=sys.stderr)
        return 2
    skip = {x.strip() for x in args.skip.split(",")}
    if args.python:
        PYTHON = args.python
    pb = perfbot_cmd(args.python)
    print(f"{os.cpu_count()} cores; load average {load()}")
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-") as tmp:
        work = Path(tmp)
        if args.no_bytecode:
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            os.environ["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        print(f"bytecode cache: {'off' if args.no_bytecode else 'on'}")
        if "one" not in skip:
            one_readme(pb, work, args.runs * 4, args.base)
        if "fix" not in skip:
            fix_vs_check(pb, work, args.runs, 10)
            verify_floor(args.runs)
        if "rss" not in skip:
            peak_rss(pb, work, 50, args.base)
    if "logs" not in skip:
        print(f"\n4. parse_log against a one-regex floor; load {load()}", flush=True)
        logs = [PYTHON, str(Path(__file__).with_name("bench_logs.py"))]
        logs += ["--lines", str(args.log_lines), "--runs", str(max(3, args.runs // 2))]
        if args.base:
            logs += ["--base", args.base]
        subprocess.run(logs, check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
