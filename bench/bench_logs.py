#!/usr/bin/env python3
"""Benchmark: `parse_log` on 1,000,000-line logs of every format, against a one-regex floor.

For each format this script writes a log of `--lines` lines shaped like the real ones (step
lines among framework noise: warnings, loss lines, epoch summaries), then times, in this one
process and on the same file:

- **floor**: the file read in 1 MiB blocks and one plain regex (the format's time field, as in
  LOG-FORMATS.md B.7) run over each block with `findall`: the least any streamed reader does
  (it converts and checks nothing, and keeps no step numbers);
- **line floor**: the same regex searched line by line (`for line in file: rx.search(line)`), the
  "one plain regex pass" of issue 11;
- **parse_log(path, auto)**: detection on a prefix, then the streamed parse into samples;
- **parse_log(path, fmt)**: the parse alone.

It prints the times, the ratios to the floor (the goal is <= 3x for every format) and the peak
memory the parse adds (tracemalloc), and asserts nothing.

Usage: python bench/bench_logs.py [--lines N] [--runs R] [--formats a,b]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

from perfbot.runner.logs import parse_log

BLOCK = 1 << 20


def _mindone(g: int, r: random.Random) -> Iterator[str]:
    e, s = g // 500 + 1, g % 500 + 1
    yield (
        f"[2026-12-01 06:10:02] INFO: epoch {e}, step {s}, lr 0.0001000, loss {r.random():.6f}, "
        f"loss scale 1024, global_step {g}, step_time(ms) {150 + 20 * r.random():.1f}"
    )


def _mindcv(g: int, r: random.Random) -> Iterator[str]:
    n = 1000
    e, b = g // n + 1, g % n + 1
    yield (
        f"[2026-12-01 05:54:06] mindcv.utils.callbacks INFO - Epoch: [{e}/1000], "
        f"batch: [{b}/{n}], loss: {r.random():.6f}, lr: 0.000021, "
        f"time: {0.19 + r.random() / 50:.6f}s"
    )
    if b == n:
        yield (
            "[2026-12-01 05:55:54] mindcv.utils.callbacks INFO - Total time since last epoch: "
            "17.296669(train: 15.934386, val: 0.000000)s, ETA: 51.890008s"
        )


def _mindyolo(g: int, r: random.Random) -> Iterator[str]:
    n = 1000
    e, s = g // n + 1, g % n + 1
    yield (
        f"2026-12-01 06:00:02,118 [INFO] Epoch {e}/1000, Step {s}/{n}, imgsize (640, 640), "
        f"loss: 13.5599, lbox: 6.6193, lcls: 3.8737, dfl: 3.0670, cur_lr: 0.09910000115633011"
    )
    yield (
        f"2026-12-01 06:00:02,128 [INFO] Epoch {e}/1000, Step {s}/{n}, "
        f"step time: {1400 + 50 * r.random():.2f} ms"
    )


def _mindocr(g: int, r: random.Random) -> Iterator[str]:
    n = 1000
    e, s = g // n + 1, g % n + 1
    ms = 400 + 30 * r.random()
    yield (
        f"[2026-12-01 06:21:40] mindocr.utils.callbacks INFO - epoch: [{e}/1000] step: [{s}/{n}], "
        f"loss: 68.887909, lr: 0.000094, per step time: {ms:.3f} ms, "
        f"fps per card: {8000 / ms:.2f} img/s"
    )


def _timemonitor(g: int, r: random.Random) -> Iterator[str]:
    yield f"epoch: {g + 1} step: 30, loss is {2 + r.random()}"
    ms = 35 + r.random()
    yield f"Train epoch time: {ms * 30:.3f} ms, per step time: {ms:.3f} ms"


def _mindaudio(g: int, r: random.Random) -> Iterator[str]:
    n = 1000
    e, s = g // n + 1, g % n + 1
    yield (
        f"[Train] Epoch: [{e}/1000], Step: [{s}/{n}], Step Time: {0.3 + r.random() / 20:.4f} sec, "
        "lr: 0.001000, Total Loss: 12.3456, Overflow: False, Scale: 1024, Rank: 0."
    )


def _mindone_result(g: int, r: random.Random) -> Iterator[str]:
    if g == 0:
        yield "step\tloss\tlr\ttrain_time(s)"
    yield f"{g + 1}\t{r.random():.7f}\t0.0001000\t{0.16 + r.random() / 50:.7f}"


def _perf_recorder(g: int, r: random.Random) -> Iterator[str]:
    if g == 0:
        yield f"{'step':<7}\t{'loss':<10}\ttrain_time(s)"
    yield f"{g + 1:<7}\t{r.random():<10.6f}\t{0.2 + r.random() / 50:<13.3f}"


NOISE = [
    "[WARNING] DISTRIBUTED(1234,ffff,python):2026-12-01-06:00:00.000.000 [hccl] something happened",
    "[INFO] ME(1234:1234,MainProcess):2026-12-01-06:00:00.000.000 [train.py:100] saving",
]

# name: (line generator, the floor's plain regex, lines of noise per step line)
FORMATS: dict[str, tuple[Callable[[int, random.Random], Iterator[str]], str, int]] = {
    "mindone": (_mindone, r"step_time\(ms\) ([\d.]+)", 1),
    "mindcv": (_mindcv, r"time: ([\d.]+)s", 1),
    "mindyolo": (_mindyolo, r"step time: ([\d.]+) ms", 0),
    "mindocr": (_mindocr, r"per step time: ([\d.]+) ms", 1),
    "timemonitor": (_timemonitor, r"per step time: ([\d.]+) ms", 0),
    "mindaudio": (_mindaudio, r"Step Time: ([\d.]+) sec", 1),
    "mindone_result": (_mindone_result, r"(?m)^(\d+)\t", 0),
    "perf_recorder": (_perf_recorder, r"(?m)^(\d+) *\t", 0),
}


def write_log(path: Path, name: str, lines: int) -> int:
    gen, _, noise = FORMATS[name]
    r = random.Random(0)
    n = g = 0
    with path.open("w", encoding="utf-8") as fh:
        while n < lines:
            for line in gen(g, r):
                fh.write(line + "\n")
                n += 1
            for i in range(noise):
                fh.write(NOISE[(g + i) % len(NOISE)] + "\n")
                n += 1
            g += 1
    return n


def floor(path: Path, pattern: str) -> int:
    rx = re.compile(pattern)
    found = 0
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        rest = ""
        while block := fh.read(BLOCK):
            data = rest + block
            cut = data.rfind("\n") + 1
            rest = data[cut:]
            found += len(rx.findall(data, 0, cut))
    return found


def line_floor(path: Path, pattern: str) -> int:
    search = (
        re.compile(pattern.removeprefix("(?m)").lstrip("^")).match
        if "^" in pattern
        else (re.compile(pattern).search)
    )
    found = 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if search(line):
                found += 1
    return found


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def peak_mib(fn: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--memory", action="store_true", help="also measure peak memory (slow)")
    a = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# parse_log on {a.lines:,}-line logs, best of {a.runs}; load average {load:.2f}")
    print(
        f"{'format':<15} {'MB':>6} {'samples':>9} {'floor s':>8} {'lines s':>8} {'auto s':>8} "
        f"{'fmt s':>8} {'auto/floor':>10} {'fmt/floor':>9} {'auto/lines':>10}"
        + ("  peak MiB" if a.memory else "")
    )
    worst = worst_lines = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.formats.split(","):
            path = Path(tmp) / f"{name}.log"
            write_log(path, name, a.lines)
            pattern = FORMATS[name][1]
            fixed = {"steps_per_epoch": 1000} if name.endswith("_result") else {}
            used, samples = parse_log(path, "auto", **fixed)
            assert used == name, (name, used)
            t_floor = best(lambda p=path, pat=pattern: floor(p, pat), a.runs)
            t_lines = best(lambda p=path, pat=pattern: line_floor(p, pat), a.runs)
            t_auto = best(lambda p=path, kw=fixed: parse_log(p, "auto", **kw), a.runs)
            t_fmt = best(lambda p=path, n=name, kw=fixed: parse_log(p, n, **kw), a.runs)
            worst = max(worst, t_auto / t_floor)
            worst_lines = max(worst_lines, t_auto / t_lines)
            row = (
                f"{name:<15} {path.stat().st_size / 1e6:>6.1f} {len(samples):>9,} "
                f"{t_floor:>8.3f} {t_lines:>8.3f} {t_auto:>8.3f} {t_fmt:>8.3f} "
                f"{t_auto / t_floor:>10.2f} {t_fmt / t_floor:>9.2f} {t_auto / t_lines:>10.2f}"
            )
            if a.memory:
                row += f"  {peak_mib(lambda p=path, kw=fixed: parse_log(p, 'auto', **kw)):>8.1f}"
            print(row)
            path.unlink()
    print(f"# worst auto/floor ratio {worst:.2f}, auto/line-floor {worst_lines:.2f} (goal <= 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
