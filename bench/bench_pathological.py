#!/usr/bin/env python3
"""Benchmark: `check_source` on pathological READMEs, each beside an ordinary README of the same
size (its peer), measured in this one script.

The figure that matters is the ratio (pathological time / peer time): a README built to make a
regular expression backtrack should cost about what an ordinary README of its size costs. The
cases are the security audit's (December 2026): a sentence followed by a run of `*`, a header
line of pipes over a delimiter of dashes, one line of pipes, unclosed `<td>` cells, and more. The
peer is ordinary model-README text (sections, a sentence, performance tables) cut to the same
length. Sizes grow 8-fold so the growth of each is visible too (linear: x8).

With `--memory`, the last column is the peak memory a check of the largest size allocates
(tracemalloc), per character of the text. Usage: python bench/bench_pathological.py
[--sizes 20000,160000] [--runs 3] [--memory]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from perfbot.engine import check_source
from perfbot.source import Source

HEAD = """\
# model

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |

"""

SECTION = """\
## Performance {i}

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit-{i} | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |
| dit-{i}-b | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |

Some prose about the model, its training recipe and where its weights are.

"""

CASES: dict[str, Callable[[int], str]] = {
    "sentence + run of *": lambda n: "Experiments are tested on " + "*" * n + "\n",
    "header of | over a delimiter of -": lambda n: "|" * (n // 2) + "\n" + "-" * (n // 2) + "\n",
    "one line of |": lambda n: "|" * n + "\n",
    "one row of \\|": lambda n: "| a " + "\\|" * (n // 2) + " |\n|--|\n",
    "<table> + unclosed <td>": lambda n: "<table>\n" + "<td>" * (n // 4) + "\n</table>\n",
    "<table> + <td without >": lambda n: "<table>\n" + "<td " * (n // 4) + "\n</table>\n",
    "heading of <": lambda n: "## " + "<" * n + "\n",
    "sentence words repeated": lambda n: "Experiments are tested on graph " * (n // 32) + "\n",
    "mindspore + run of *": lambda n: "Experiments are tested on mindspore" + "*" * n + "\n",
    "lines of | : |": lambda n: "| a |\n" + "| : |\n" * (n // 6),
    "header cell + run of *": lambda n: "| model name | s/step" + "*" * n + " x |\n|--|--|\n",
    "header cell in deep **emphasis**": lambda n: (
        "| " + "**" * (n // 4) + "s/step" + "**" * (n // 4) + " |\n|--|\n"
    ),
    "header cell in deep <b>": lambda n: (
        "| " + "<b>" * (n // 7) + "img/s" + "</b>" * (n // 7) + " |\n|--|\n"
    ),
    "a long cell": lambda n: "| model name | s/step |\n|--|--|\n| " + "9." * (n // 2) + " |\n",
    # tables far beyond a model README's (PB604): millions of cells or findings on main f72f661
    "a table + one row of |": lambda n: "| cards | s/step |\n|--|--|\n" + "|" * n + "\n",
    "a table of ragged rows": lambda n: "| cards | s/step |\n|--|--|\n" + "|1|\n" * (n // 4),
    "small performance tables": lambda n: "| s/step | img/s |\n|-|-|\n| 1 | 2 |\n\n" * (n // 32),
    "tables of 100 columns": lambda n: (
        ("| s/step " + "| x " * 99 + "|\n|" + "-|" * 100 + "\n" + ("|" + "1|" * 100 + "\n") * 50)
        * (n // 10_500 + 1)
    )[:n],
}


def peer(n: int) -> str:
    out, i = [HEAD], 0
    size = len(HEAD)
    while size < len(HEAD) + n:
        out.append(SECTION.format(i=i))
        size += len(out[-1])
        i += 1
    return "".join(out)[: len(HEAD) + n]


def best_time(make: Callable[[int], str], n: int, runs: int) -> float:
    """The best of ``runs`` checks, each of a text of its own (n, n+64, ... characters): perfbot
    caches what it learnt about a header or a cell, and a repeat of one text would time that."""
    times = []
    for i in range(runs):
        src = Source.from_text(make(n + 64 * i), path="README.md")
        t = time.perf_counter()
        check_source(src)
        times.append(time.perf_counter() - t)
    return min(times)


def peak_per_char(text: str) -> float:
    src = Source.from_text(text, path="README.md")
    tracemalloc.start()
    try:
        check_source(src)
        return tracemalloc.get_traced_memory()[1] / len(text)
    finally:
        tracemalloc.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20000,160000", help="comma-separated lengths in chars")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memory", action="store_true", help="peak memory per char at the last size")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    best_time(peer, 5000, 2)  # warm up: the spec, the rules, mistune
    peers = {n: best_time(peer, n, a.runs) for n in sizes}
    mem = (lambda text: f"   {peak_per_char(text):6.1f} B/char") if a.memory else (lambda _: "")
    print(f"{'case':38}" + "".join(f"{n:>10} chars   ratio" for n in sizes) + "   growth")
    print(
        f"{'ordinary README (peer)':38}"
        + "".join(f"{peers[n]:12.3f} s {1:7.1f}" for n in sizes)
        + " " * 9
        + mem(peer(sizes[-1]))
    )
    ratios = []
    for name, make in CASES.items():
        times = {n: best_time(lambda k, m=make: HEAD + m(k), n, a.runs) for n in sizes}
        ratios.append(times[sizes[-1]] / peers[sizes[-1]])
        row = "".join(f"{times[n]:12.3f} s {times[n] / peers[n]:7.1f}" for n in sizes)
        growth = times[sizes[-1]] / times[sizes[0]] if len(sizes) > 1 else float("nan")
        print(f"{name:38}{row}   x{growth:.1f}" + mem(HEAD + make(sizes[-1])))
    worst, median = max(ratios), statistics.median(ratios)
    print(f"\nat {sizes[-1]} chars: worst ratio {worst:.1f}, median {median:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
