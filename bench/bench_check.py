#!/usr/bin/env python3
"""Benchmark: `perfbot check` on the corpus replicated x10, beside three peers, in one script.

Goals (issue 11), as ratios of wall time against a peer measured in this same script:

- whole-tree `perfbot check` <= 0.10x markdownlint-cli2 (its table rules MD055, MD056, MD058,
  MD060 only);
- whole-tree `perfbot check` <= 3x rumdl (`rumdl check --no-config --no-cache --enable
  MD055,MD056,MD058,MD060`, a Rust Markdown linter on PyPI, the fastest peer);
- `mdformat --check` (with mdformat-gfm for tables) is printed for comparison only.

Runs are paired and alternate between the tools (perfbot, peer, perfbot, peer, ...), so a change
in the machine's load hits every tool alike; the median of each tool's runs is shown, with the CPU
time of its processes and the load average before and after. The one-README, `fix` and memory
figures are in bench_paths.py.

Peers: markdownlint-cli2 is installed from npm into bench/.node (not committed) on first use;
rumdl and mdformat are Python packages (`pip install rumdl mdformat mdformat-gfm`); a peer that is
not installed is skipped with a note.

Usage: python bench/bench_check.py [--times N] [--corpus DIR] [--runs R] [--format F] [--python PY]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# the corpus next to the project (``../shared/corpus``), also from a worktree one level deeper
CORPUS = next(
    (d / "shared" / "corpus" for d in ROOT.parents if (d / "shared" / "corpus").is_dir()),
    ROOT.parent / "shared" / "corpus",
)
NODE_DIR = HERE / ".node"
TABLE_RULES = "MD055,MD056,MD058,MD060"
MLC_CONFIG = {"config": {"default": False, **{r: True for r in TABLE_RULES.split(",")}}}
GOAL_MLC = 0.10
GOAL_RUMDL = 3.0


def tool(name: str) -> str | None:
    """A console script next to this interpreter first (not a version manager's shim, which adds
    its own start-up time to every figure), else on PATH."""
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return str(exe)
    return shutil.which(name)


def perfbot_cmd(python: str | None = None) -> list[str]:
    """perfbot as installed for ``python`` (default: the interpreter running the bench)."""
    if python:
        script = Path(python).parent / "perfbot"
        return [str(script)] if script.exists() else [python, "-m", "perfbot"]
    found = tool("perfbot")
    return [found] if found else [sys.executable, "-m", "perfbot"]


def rumdl_check(rumdl: str, target: str) -> list[str]:
    """rumdl on ``target`` with the table rules only (``check --fix`` for its fix)."""
    return [rumdl, "check", "--no-config", "--no-cache", "--enable", TABLE_RULES, target]


def markdownlint_in(work: Path) -> Path | None:
    """markdownlint-cli2 (:func:`ensure_markdownlint`), set up in ``work`` to run the table rules
    only; None when it is not available."""
    mlc = ensure_markdownlint()
    if mlc is not None:
        (work / ".markdownlint-cli2.jsonc").write_text(json.dumps(MLC_CONFIG))
    return mlc


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


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(f for f in corpus.rglob("*.md") if "readme" in f.name.lower())


def replicate(corpus: Path, dest: Path, times: int) -> tuple[int, int]:
    """Copy every README of the corpus ``times`` times under ``dest``: (files, bytes)."""
    files = corpus_files(corpus)
    n = size = 0
    for copy in range(times):
        for f in files:
            d = dest / f"copy{copy:03d}" / f.parent.name / f.stem
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, d / "README.md")
            n += 1
            size += f.stat().st_size
    return n, size


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, CPU s of the process and its children, the completed process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r


def paired(tools: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, dict]:
    """Run every tool ``runs`` times, alternating; per tool: wall and CPU medians, last output."""
    out: dict[str, dict] = {name: {"wall": [], "cpu": [], "last": None} for name in tools}
    for i in range(runs):
        names = list(tools) if i % 2 == 0 else list(reversed(tools))
        for name in names:
            wall, cpu, r = run_once(tools[name], cwd)
            out[name]["wall"].append(wall)
            out[name]["cpu"].append(cpu)
            out[name]["last"] = r
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--times", type=int, default=10, help="copies of the corpus (default 10)")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--runs", type=int, default=3, help="runs per tool; the median is shown")
    ap.add_argument("--format", default="text", help="perfbot's --format (default text)")
    ap.add_argument(
        "--python",
        help="time the perfbot of this interpreter (e.g. a venv of its own, as users install it; "
        "an interpreter whose site-packages hold .pth files starts slower)",
    )
    ap.add_argument(
        "--peers",
        default="markdownlint-cli2,rumdl,mdformat",
        help="comma-separated peers to run (default: all three; mdformat is the slowest)",
    )
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"bench: no corpus at {corpus}", file=sys.stderr)
        return 2
    pb = perfbot_cmd(args.python)
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-") as tmp:
        work = Path(tmp)
        n, size = replicate(corpus, work / "tree", args.times)
        print(f"files: {n} ({size / 1e6:.1f} MB, corpus x{args.times}), {os.cpu_count()} cores, "
              f"runs per tool: {args.runs} (paired, alternating; median shown)")  # fmt: skip
        print(f"load average before: {load()}")

        tools: dict[str, list[str]] = {
            "perfbot check": [*pb, "check", "--format", args.format, "--fail-on", "never", "tree"],
        }
        peers = {x.strip() for x in args.peers.split(",") if x.strip()}
        mlc = markdownlint_in(work) if "markdownlint-cli2" in peers else None
        if mlc is not None:
            tools["markdownlint-cli2"] = [str(mlc), "tree/**/*.md"]
        elif "markdownlint-cli2" in peers:
            print("markdownlint-cli2: not available (npm missing or install failed)")
        rumdl = tool("rumdl") if "rumdl" in peers else None
        if rumdl:
            tools["rumdl"] = rumdl_check(rumdl, "tree")
        elif "rumdl" in peers:
            print("rumdl: not installed (pip install rumdl)")
        mdformat = tool("mdformat") if "mdformat" in peers else None
        if mdformat:
            tools["mdformat --check"] = [mdformat, "--check", "tree"]
        elif "mdformat" in peers:
            print("mdformat: not installed (pip install mdformat mdformat-gfm)")

        got = paired(tools, work, args.runs)
        print(f"load average after:  {load()}")
        t_pb = statistics.median(got["perfbot check"]["wall"])
        for name, g in got.items():
            wall = statistics.median(g["wall"])
            cpu = statistics.median(g["cpu"])
            extra = ""
            if name == "perfbot check":
                r = g["last"]
                if r.returncode not in (0, 1):
                    print(r.stderr[-2000:], file=sys.stderr)
                last = (r.stdout.strip() or r.stderr.strip()).splitlines()
                extra = f"  ({last[-1][:60]})" if last else ""
            ratio = "" if name == "perfbot check" else f"  perfbot / this: {t_pb / wall:6.3f}"
            print(f"{name:18s} {wall:7.3f} s wall  {cpu:7.3f} s CPU  {n / wall:8.1f} files/s"
                  f"{ratio}{extra}")  # fmt: skip
        if "markdownlint-cli2" in got:
            r = t_pb / statistics.median(got["markdownlint-cli2"]["wall"])
            ok = "met" if r <= GOAL_MLC else "NOT met"
            print(f"goal: perfbot / markdownlint-cli2 <= {GOAL_MLC}: {r:.3f} ({ok})")
        if "rumdl" in got:
            r = t_pb / statistics.median(got["rumdl"]["wall"])
            ok = "met" if r <= GOAL_RUMDL else "NOT met"
            print(f"goal: perfbot / rumdl <= {GOAL_RUMDL}: {r:.2f} ({ok})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
