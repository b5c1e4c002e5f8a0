#!/usr/bin/env python3
"""Benchmark: the work after the Markdown parse (recognition, rules, suppression), issue 11.

Runs ``check_source`` over every README of a tree in one process, timing (CPU) the parse, the
recognition and the rules apart, for this checkout and for another one (``--base SRC``, e.g.
main's ``src``), in separate processes, alternating, ``--runs`` times each; prints the medians,
the new/old ratios and the post-parse share, with the load average. The GC is tuned as
``perfbot check`` tunes it. Prints figures; asserts nothing.

python bench/bench_postparse.py --base /work/main/src [--tree DIR] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
STAGES = ("parse", "recognise", "rules", "other", "post", "full")


def measure(tree: str) -> dict[str, float]:
    """In this process (``perfbot`` importable): CPU seconds of each stage over ``tree``."""
    import gc

    gc.set_threshold(100_000, 50, 100)  # as perfbot check's main does
    import perfbot
    import perfbot.context as context
    import perfbot.engine as engine
    from perfbot.source import FileError, read_source

    assert perfbot.__file__.startswith(sys.path[0]), perfbot.__file__  # the side asked for
    acc: dict[str, float] = {}

    def timed(mod: object, name: str, key: str) -> None:
        real = getattr(mod, name)

        def wrapper(*a: object, **k: object) -> object:
            t = time.process_time()
            try:
                return real(*a, **k)
            finally:
                acc[key] = acc.get(key, 0.0) + time.process_time() - t

        setattr(mod, name, wrapper)

    timed(context, "parse_document", "parse")
    timed(context, "recognise", "recognise")
    timed(engine, "run_rules", "rules")
    sources = [read_source(str(p)) for p in sorted(Path(tree).rglob("README*.md"))]
    sources = [s for s in sources if not isinstance(s, FileError)]
    t = time.process_time()
    for s in sources:
        engine.check_source(s)
    acc["full"] = time.process_time() - t
    acc["other"] = acc["full"] - acc["parse"] - acc["recognise"] - acc["rules"]
    acc["post"] = acc["full"] - acc["parse"]
    acc["files"] = len(sources)
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="another checkout's src (e.g. main's)")
    ap.add_argument("--tree", default="/tmp/x10/tree", help="folder of READMEs")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        sys.path.insert(0, args.child)
        print(json.dumps(measure(args.tree)))
        return
    sides = {"base": args.base, "this": str(SRC)}
    got: dict[str, list[dict[str, float]]] = {k: [] for k in sides}
    print(f"load average before: {os.getloadavg()}")
    for r in range(args.runs):
        for side in list(sides) if r % 2 == 0 else list(sides)[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--base", args.base, "--tree", args.tree,
                 "--child", sides[side]],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            got[side].append(json.loads(out))
    print(f"load average after: {os.getloadavg()}")
    print(f"{got['this'][0]['files']:.0f} files, {args.runs} runs each, medians (CPU s):")
    med = {s: {k: statistics.median(d[k] for d in got[s]) for k in STAGES} for s in sides}
    for k in STAGES:
        b, t = med["base"][k], med["this"][k]
        print(
            f"  {k:9s} base {b:7.3f}  this {t:7.3f}  this/base {t / b if b else float('nan'):.3f}"
        )
    for s in sides:
        print(f"  post-parse share, {s}: {100 * med[s]['post'] / med[s]['full']:.1f} %")


if __name__ == "__main__":
    main()
