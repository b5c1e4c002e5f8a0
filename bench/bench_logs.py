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
- with `--base SRC`, **base**: the same call of another checkout's `perfbot.runner.logs` (main's:
  `--base /work/main/src`), loaded beside this one; it must return the same samples.

The cases run interleaved, `--runs` times each, best kept. It prints wall times, the ratios to
both floors and to the base in wall and (in brackets) CPU seconds, and with `--memory` the peak
memory the parse adds (tracemalloc); the goal of issue 11 is <= 3x for every format. It asserts
only that base and this checkout agree.

Usage: python bench/bench_logs.py [--lines N] [--runs R] [--formats a,b] [--base ../main/src]
[--memory]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
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


def load_base(src: str) -> Callable[..., object]:
    """`parse_log` of another checkout's `src` (e.g. main's), loaded beside this one under
    another module name (the logs module, or package, imports only the standard library and
    its own modules, relatively)."""
    path = Path(src) / "perfbot" / "runner" / "logs.py"
    package = path.with_suffix("") / "__init__.py"
    if package.is_file():
        spec = importlib.util.spec_from_file_location(
            "perfbot_base_logs", package, submodule_search_locations=[str(package.parent)]
        )
    else:
        spec = importlib.util.spec_from_file_location("perfbot_base_logs", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--base: no {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.parse_log


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


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
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--base", help="src directory of another checkout (main's) to time beside")
    ap.add_argument("--memory", action="store_true", help="also measure peak memory (slow)")
    a = ap.parse_args(argv)
    base = load_base(a.base) if a.base else None
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"# parse_log on {a.lines:,}-line logs; best of {a.runs} interleaved runs (floor, line "
        f"floor, parse_log{', base' if base else ''}); load average "
        + " ".join(f"{x:.2f}" for x in load)
    )
    print("# wall seconds; the ratios in brackets are of CPU seconds (steadier on a busy machine)")
    print(
        f"{'format':<15} {'MB':>6} {'samples':>9} {'floor':>6} {'lines':>6} {'auto':>6} "
        + (f"{'base':>6} " if base else "")
        + f"{'auto/floor':>14} {'auto/lines':>14}"
        + (f" {'auto/base':>14}" if base else "")
        + ("  peak MiB" if a.memory else "")
    )
    worst = worst_lines = 0.0
    worst_cpu = worst_lines_cpu = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.formats.split(","):
            path = Path(tmp) / f"{name}.log"
            write_log(path, name, a.lines)
            pattern = FORMATS[name][1]
            fixed = {"steps_per_epoch": 1000} if name.endswith("_result") else {}
            used, samples = parse_log(path, "auto", **fixed)
            assert used == name, (name, used)
            if base is not None:
                assert base(path, "auto", **fixed) == (used, samples), f"{name}: base differs"
            n_samples = len(samples)
            del samples  # not held while the others are timed
            cases: dict[str, Callable[[], object]] = {
                "floor": lambda p=path, pat=pattern: floor(p, pat),
                "lines": lambda p=path, pat=pattern: line_floor(p, pat),
                "auto": lambda p=path, kw=fixed: parse_log(p, "auto", **kw),
            }
            if base is not None:
                cases["base"] = lambda p=path, kw=fixed, f=base: f(p, "auto", **kw)
            times: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
            for _ in range(a.runs):  # interleaved: a change of load hits every case alike
                for key, fn in cases.items():
                    times[key].append(timed(fn))
            wall = {k: min(w for w, _ in v) for k, v in times.items()}
            cpu = {k: min(c for _, c in v) for k, v in times.items()}

            def ratio(x: str, y: str, wall=wall, cpu=cpu) -> str:
                return f"{wall[x] / wall[y]:>6.2f} [{cpu[x] / cpu[y]:>5.2f}]"

            worst = max(worst, wall["auto"] / wall["floor"])
            worst_lines = max(worst_lines, wall["auto"] / wall["lines"])
            worst_cpu = max(worst_cpu, cpu["auto"] / cpu["floor"])
            worst_lines_cpu = max(worst_lines_cpu, cpu["auto"] / cpu["lines"])
            row = (
                f"{name:<15} {path.stat().st_size / 1e6:>6.1f} {n_samples:>9,} "
                + " ".join(f"{wall[k]:>6.3f}" for k in cases)
                + f" {ratio('auto', 'floor')} {ratio('auto', 'lines')}"
                + (f" {ratio('auto', 'base')}" if base else "")
            )
            if a.memory:
                row += f"  {peak_mib(lambda p=path, kw=fixed: parse_log(p, 'auto', **kw)):>8.1f}"
            print(row, flush=True)
            path.unlink()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"# worst auto/floor {worst:.2f} [{worst_cpu:.2f}], auto/line-floor {worst_lines:.2f} "
        f"[{worst_lines_cpu:.2f}] (goal <= 3); load average now "
        + " ".join(f"{x:.2f}" for x in load)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
