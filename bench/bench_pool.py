#!/usr/bin/env python3
"""Benchmark: when does `perfbot check`'s process pool pay (issue 11)? The data behind
``cli.PARALLEL_MIN_FILES`` / ``PARALLEL_MIN_BYTES``.

Trees of N files (N = 50, 165, 500, 1650 by default) made of the corpus's smallest third
(~3.4 kB a file), or its largest third (~15 kB a file); each is checked with PERFBOT_JOBS=2 (a
pool of 2, whatever the size) and PERFBOT_JOBS=1 (one process), in paired runs that alternate
which goes first. Prints, per tree, the median wall and CPU time (the process and its workers)
of each, and pool/one ratios: below 1.00 the pool is faster. The load average is printed before
and after each tree. Usage:
python bench/bench_pool.py [--corpus DIR] [--runs R] [--sizes 50,165] [--format json]
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
from bench_check import CORPUS, corpus_files, load, perfbot_cmd


def run(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(wall s, CPU s of the process and the workers it waited for)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime


def tree(files: list[Path], dest: Path, n: int) -> int:
    """``n`` READMEs under ``dest``, cycling through ``files``: the bytes written."""
    size = 0
    for i in range(n):
        f = files[i % len(files)]
        d = dest / f"m{i:05d}"
        d.mkdir(parents=True)
        shutil.copyfile(f, d / "README.md")
        size += f.stat().st_size
    return size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--runs", type=int, default=5, help="paired runs (default 5)")
    ap.add_argument("--sizes", default="50,165,500,1650", help="file counts")
    ap.add_argument("--kinds", default="small,large", help="small and/or large files")
    ap.add_argument("--format", default="json")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    files = sorted(corpus_files(corpus), key=lambda f: f.stat().st_size)
    files = [f for f in files if f.stat().st_size > 0]
    third = len(files) // 3
    kinds = {"small": files[:third], "large": files[-third:]}
    pb = perfbot_cmd()
    print(f"{os.cpu_count()} cores; load average {load()}; --format {args.format}; "
          f"{args.runs} paired runs per tree (medians)")  # fmt: skip
    print(f"{'files':>6} {'kind':5} {'MB':>6} | {'wall 1':>7} {'wall pool':>9} {'ratio':>5} | "
          f"{'CPU 1':>7} {'CPU pool':>8} {'ratio':>5} | load before -> after")  # fmt: skip
    # the bytecode cache on, as for an installed perfbot (else every process compiles perfbot)
    drop = ("PERFBOT_JOBS", "PYTHONDONTWRITEBYTECODE")
    env_os = {k: v for k, v in os.environ.items() if k not in drop}
    with tempfile.TemporaryDirectory(prefix="perfbot-pool-") as tmp:
        work = Path(tmp)
        env_os["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        for n in (int(x) for x in args.sizes.split(",")):
            for kind in args.kinds.split(","):
                dest = work / f"{kind}{n}"
                size = tree(kinds[kind], dest, n)
                cmd = [*pb, "check", "--format", args.format, "-q", "--fail-on", "never", dest.name]
                envs = {
                    "1": {**env_os, "PERFBOT_JOBS": "1"},
                    "pool": {**env_os, "PERFBOT_JOBS": "2"},
                }
                for name in envs:  # warm-up (bytecode cache, file cache)
                    run(cmd, work, envs[name])
                before = load()
                wall: dict[str, list[float]] = {k: [] for k in envs}
                cpu: dict[str, list[float]] = {k: [] for k in envs}
                for i in range(args.runs):
                    for name in ("1", "pool") if i % 2 == 0 else ("pool", "1"):
                        w, c = run(cmd, work, envs[name])
                        wall[name].append(w)
                        cpu[name].append(c)
                w1, wp = statistics.median(wall["1"]), statistics.median(wall["pool"])
                c1, cp = statistics.median(cpu["1"]), statistics.median(cpu["pool"])
                line = f"{n:6d} {kind:5} {size / 1e6:6.2f} | {w1:7.2f} {wp:9.2f} {wp / w1:5.2f} | "
                line += f"{c1:7.2f} {cp:8.2f} {cp / c1:5.2f} | {before} -> {load()}"
                print(line, flush=True)
                shutil.rmtree(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
