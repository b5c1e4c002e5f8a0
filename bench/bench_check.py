#!/usr/bin/env python3
"""Benchmark: `perfbot check` on the corpus replicated to ~1,000 files, beside markdownlint-cli2.

Both tools run on the same files in this one script, so the figure that matters is the ratio
(perfbot wall time / markdownlint-cli2 wall time; the goal is <= 0.2). markdownlint-cli2 runs with
only its table rules (MD055, MD056, MD058, MD060). Also times `perfbot --version` (goal < 150 ms).

markdownlint-cli2 is installed from npm into bench/.node (not committed) on first use.

Usage: python bench/bench_check.py [--copies N] [--corpus DIR] [--runs R]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT.parent / "shared" / "corpus"
NODE_DIR = HERE / ".node"
MLC_CONFIG = {
    "config": {
        "default": False,
        "MD055": True,
        "MD056": True,
        "MD058": True,
        "MD060": True,
    }
}


def perfbot_cmd() -> list[str]:
    # The console script next to this interpreter (not a version manager's shim, which adds its
    # own start-up time to every figure).
    exe = Path(sys.executable).parent / "perfbot"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("perfbot")
    return [found] if found else [sys.executable, "-m", "perfbot"]


def ensure_markdownlint() -> Path | None:
    binary = NODE_DIR / "node_modules" / ".bin" / "markdownlint-cli2"
    if binary.exists():
        return binary
    if not shutil.which("npm"):
        return None
    NODE_DIR.mkdir(exist_ok=True)
    r = subprocess.run(
        ["npm", "install", "--silent", "--prefix", str(NODE_DIR), "markdownlint-cli2@0.24"],
        capture_output=True, text=True,
    )  # fmt: skip
    if r.returncode != 0:
        print(f"npm install markdownlint-cli2 failed:\n{r.stderr[-2000:]}", file=sys.stderr)
        return None
    return binary if binary.exists() else None


def replicate(corpus: Path, dest: Path, target: int) -> int:
    files = sorted(corpus.rglob("*.md"))
    n = 0
    copy = 0
    while n < target:
        for f in files:
            if n >= target:
                break
            d = dest / f"copy{copy:03d}" / f.parent.name / f.stem
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, d / "README.md")
            n += 1
        copy += 1
    return n


def timed(cmd: list[str], cwd: Path, runs: int) -> tuple[float, subprocess.CompletedProcess]:
    times = []
    last = None
    for _ in range(runs):
        t0 = time.perf_counter()
        last = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), last  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=1000, help="number of files (default 1000)")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--runs", type=int, default=3, help="runs per tool; the median is shown")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"bench: no corpus at {corpus}", file=sys.stderr)
        return 2
    pb = perfbot_cmd()
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-") as tmp:
        work = Path(tmp)
        n = replicate(corpus, work / "tree", args.copies)
        size = sum(p.stat().st_size for p in (work / "tree").rglob("*.md"))
        print(f"files: {n} ({size / 1e6:.1f} MB), runs per tool: {args.runs} (median shown)")

        t_pb, r = timed([*pb, "check", "--format", "json", "--fail-on", "never", "tree"], work,
                        args.runs)  # fmt: skip
        try:
            findings = len(json.loads(r.stdout)["findings"])
        except (ValueError, KeyError):
            findings = -1
            print(r.stderr[-2000:], file=sys.stderr)
        print(
            f"perfbot check:        {t_pb:7.3f} s  {n / t_pb:8.1f} files/s  ({findings} findings)"
        )

        versions = []
        for _ in range(max(5, args.runs)):
            t0 = time.perf_counter()
            subprocess.run([*pb, "--version"], capture_output=True)
            versions.append(time.perf_counter() - t0)
        print(f"perfbot --version:    {statistics.median(versions) * 1000:7.1f} ms (median of "
              f"{len(versions)})")  # fmt: skip

        mlc = ensure_markdownlint()
        if mlc is None:
            print("markdownlint-cli2: not available (npm missing or install failed); no ratio")
            return 0
        (work / ".markdownlint-cli2.jsonc").write_text(json.dumps(MLC_CONFIG))
        t_ml, r = timed([str(mlc), "tree/**/*.md"], work, args.runs)
        print(f"markdownlint-cli2:    {t_ml:7.3f} s  {n / t_ml:8.1f} files/s  (MD055/056/058/060)")
        print(f"ratio perfbot / markdownlint-cli2: {t_pb / t_ml:.3f} (goal <= 0.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
