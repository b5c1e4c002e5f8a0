#!/usr/bin/env python3
"""Benchmark: perfbot's Markdown parse against another checkout's, in one process (issue 11).

Loads this perfbot's ``perfbot.parse`` and, from ``--base SRC`` (another checkout's ``src``, e.g.
main's), that checkout's ``perfbot.parse`` under the name ``perfbot_base``. On the corpus
replicated ``--times`` times it times, with ``time.process_time`` and alternating base/this run by
run, the block parse alone (``block_tokens``: mistune's block parser with perfbot's hooks) and the
whole ``parse_document``, and checks that both give the same Documents (their ``repr``). Then it
runs the whole ``perfbot check`` (one process, ``PERFBOT_JOBS=1``) of each, alternating, for the
CPU time of the whole check. Ratios are this / base (below 1: faster); medians of ``--runs``
paired runs, with the load average.

Usage: python bench/bench_parse.py --base /work/main/src [--times 10] [--runs 5]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_check import CORPUS, load, replicate  # noqa: E402


def load_base(src: str):
    """``perfbot.parse`` of the checkout whose ``src`` is ``src``, as ``perfbot_base.parse``."""
    pkg = Path(src) / "perfbot"
    spec = importlib.util.spec_from_file_location(
        "perfbot_base", pkg / "__init__.py", submodule_search_locations=[str(pkg)]
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["perfbot_base"] = mod
    spec.loader.exec_module(mod)
    return importlib.import_module("perfbot_base.parse")


def cpu(fn, items) -> float:
    gc.collect()
    t0 = time.process_time()
    for x in items:
        fn(x)
    return time.process_time() - t0


def check_cpu(env: dict, tree: Path) -> float:
    cmd = [sys.executable, "-m", "perfbot", "check", "--fail-on", "never", str(tree)]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"bench: {cmd} failed")
    return ru.ru_utime + ru.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="another checkout's src (e.g. /work/main/src)")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--times", type=int, default=10, help="copies of the corpus (default 10)")
    ap.add_argument("--runs", type=int, default=5, help="paired runs (default 5)")
    ap.add_argument("--skip-check", action="store_true", help="no whole-check runs")
    args = ap.parse_args(argv)

    from perfbot import parse as new
    from perfbot.source import Source

    old = load_base(args.base)
    with tempfile.TemporaryDirectory(prefix="perfbot-bench-parse-") as tmp:
        tree = Path(tmp) / "tree"
        n, size = replicate(Path(args.corpus), tree, args.times)
        files = sorted(tree.rglob("*.md"))
        sources = [Source.from_text(f.read_text(encoding="utf-8", errors="replace"), str(f))
                   for f in files]  # fmt: skip
        texts = [s.normalized() + "\n" for s in sources]
        print(f"files: {n} ({size / 1e6:.1f} MB, corpus x{args.times}); runs: {args.runs} "
              f"(paired, alternating; medians); load average before: {load()}")  # fmt: skip
        same = sum(repr(old.parse_document(s)) == repr(new.parse_document(s)) for s in sources)
        print(f"same Document from both: {same}/{len(sources)}")

        figures: dict[str, list[float]] = {}
        for i in range(args.runs):
            pairs = [("base", old), ("this", new)]
            for name, mod in pairs if i % 2 == 0 else pairs[::-1]:
                figures.setdefault(f"block {name}", []).append(cpu(mod.block_tokens, texts))
                figures.setdefault(f"doc {name}", []).append(cpu(mod.parse_document, sources))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PERFBOT_JOBS"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if not args.skip_check:
            this_src = str(Path(new.__file__).resolve().parent.parent)
            envs = {"base": {**env, "PYTHONPATH": args.base},
                    "this": {**env, "PYTHONPATH": this_src}}  # fmt: skip
            for e in envs.values():
                check_cpu(e, tree)  # warm the bytecode cache
            for i in range(args.runs):
                for name in ("base", "this") if i % 2 == 0 else ("this", "base"):
                    figures.setdefault(f"check {name}", []).append(check_cpu(envs[name], tree))
        print(f"load average after: {load()}")
        labels = {"block": "block parse (block_tokens)", "doc": "parse_document",
                  "check": "perfbot check, CPU (1 process)"}  # fmt: skip
        for key, label in labels.items():
            if f"{key} base" not in figures:
                continue
            b = statistics.median(figures[f"{key} base"])
            t = statistics.median(figures[f"{key} this"])
            this, base = figures[f"{key} this"], figures[f"{key} base"]
            pr = [x / y for x, y in zip(this, base, strict=True)]
            print(f"{label:32s} base {b:6.3f} s  this {t:6.3f} s  this/base {t / b:5.2f}  "
                  f"(paired ratios {min(pr):.2f}-{max(pr):.2f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
