"""The block-at-once fast path, and the step patterns found at the speed of their text."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat
from operator import add, itemgetter, mul, sub, truediv
from typing import Any

from .reader import (
    _HEAD,
    _LOGGER,
    Samples,
    _Steps,
)

# ---- block-at-once fast path ----------------------------------------------------------------
# A block whose lines continue the previous block cleanly (step numbers strictly increasing, every
# number well-formed) is turned into samples with C-level map/zip, without a Python loop per
# line; any other block goes through the line-by-line code, which handles every special case.


def _floats(strings: Iterable[str], *, positive: bool = False) -> list[float] | None:
    """Finite, non-negative (with `positive`, positive) floats of regex-matched digit strings;
    None if any is not."""
    try:
        values = list(map(float, strings))
    except ValueError:  # "1.2.3"
        return None
    if not values:
        return None
    total = sum(values)  # inf or nan if any value is (or if the sum overflows: the slow path)
    if total - total != 0.0:
        return None  # inf or nan
    low = min(values)
    return None if low < 0.0 or (positive and low == 0.0) else values


def _spans(
    steps: _Steps, globs: list[int] | range, ins: list[int] | None = None
) -> list[int] | None:
    """Spans of windows ending at `globs` that continue `steps` (its state is left alone), or
    None when the block needs the line-by-line path (the log's first line, a restart). With
    `ins` (each line's step within its epoch, `glob - start`), a window never reaches back into
    an earlier epoch: its span is `glob - max(prev, start)`, i.e. `min(glob - prev, in)`."""
    prev = steps.prev
    if prev is None or not globs:
        return None
    n = len(globs)
    if type(globs) is range:  # consecutive already (a _Rows' keys)
        steps_on = globs.start == prev + 1
        globs = globs if steps_on else list(globs)
    else:
        steps_on = globs[-1] - prev == n and globs == list(range(prev + 1, prev + n + 1))
    if steps_on:  # every step logged after prev: spans of 1, cut to `ins` below 1 (None)
        return None if ins is not None and min(ins) < 1 else [1] * n
    spans = list(map(sub, globs, [prev, *globs[:-1]]))
    if ins is not None and max(spans) > min(ins):
        spans = list(map(min, spans, ins))
    return spans if min(spans) >= 1 else None


def _per_step(totals: list[float], spans: list[int]) -> Iterable[float]:
    """`total / span` of each window; the totals themselves when every span is 1 (x / 1 is x,
    bit for bit)."""
    if spans.count(1) == len(spans):
        return totals
    return map(truediv, totals, spans)


_G0, _G1, _G2, _G3, _G4 = (itemgetter(i) for i in range(5))


def _transpose(found: list) -> list[Sequence[str]]:
    """Columns of `findall`'s group tuples (all of one length). Two columns: one comprehension
    each (a third of `zip(*found)`, which makes an iterator per tuple); wider: the cells in one
    flat list, then one slice per group."""
    if not found:
        return []
    width = len(found[0])
    if width == 2:
        return [[a for a, _ in found], [b for _, b in found]]
    if width < 2:
        return list(zip(*found, strict=True))
    flat = list(chain.from_iterable(found))
    return [flat[i::width] for i in range(width)]


def _windows(
    steps: _Steps, cols: list[Sequence[str]], *, resets: bool
) -> tuple[list[int], list[int], list[float], list[int]] | None:
    """(global steps, spans, times, steps per epoch) of step lines given as columns `(epochs,
    steps in epoch, steps per epoch, times)` (transposed matches) that continue `steps`
    (whose state is left alone); None when they need the line-by-line path. With `resets`
    a window never reaches back into an earlier epoch."""
    es, ss, ns_, ts = cols
    secs = _floats(ts)
    if secs is None:
        return None
    one_n = set(ns_)
    if len(one_n) == 1:  # one number of steps per epoch: each epoch's start converted once
        n = int(one_n.pop())
        ns = [n] * len(ns_)
        first = {e: (int(e) - 1) * n for e in set(es)}
        if n < 1 or min(first.values()) < 0:  # an epoch before the first: a negative start
            return None
        starts = list(map(first.__getitem__, es))
    else:
        ns = list(map(int, ns_))
        if min(ns) < 1:
            return None
        epochs = list(map(int, es))
        if min(epochs) < 1:  # an epoch before the first: a negative start
            return None
        starts = list(map(sub, map(mul, epochs, ns), ns))  # (e - 1) * n
    ins = list(map(int, ss))
    globs = list(map(add, starts, ins))
    spans = _spans(steps, globs, ins if resets else None)
    if spans is None:
        return None
    return globs, spans, secs, ns


def _step_cols(steps: _Steps, out: Samples, cols: list[Sequence[str]], unit: float) -> bool:
    """Samples of step lines whose windows restart every epoch (mindyolo, mindocr), times in
    1/`unit` s, given as columns; False (nothing done) when they need the line-by-line path."""
    w = _windows(steps, cols, resets=True)
    if w is None:
        return False
    globs, spans, secs, _ = w
    out.add_columns(globs, map(truediv, secs, repeat(unit)), spans, "step")
    steps.prev = globs[-1]
    return True


def _around(block: str, needle: str) -> Iterator[tuple[bool, str]]:
    """`block` cut into runs of whole lines without `needle` (False) and the single lines that
    have it (True), in order. No pattern matches across a line end, so a pattern finds in the
    pieces exactly what it finds in the block."""
    start = 0
    while (i := block.find(needle, start)) >= 0:
        first = block.rfind("\n", start, i) + 1 or start
        end = block.index("\n", i) + 1
        if first > start:
            yield False, block[start:first]
        yield True, block[first:end]
        start = end
    if start == 0:
        yield False, block
    elif start < len(block):
        yield False, block[start:]


class _Pattern:
    """A compiled pattern and its ASCII twin: on ASCII text (`str.isascii` is O(1)) `\\d`
    and `[0-9]` are the same set, and the ASCII engine's class test is cheaper."""

    __slots__ = ("any", "ascii")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.any = re.compile(pattern, flags)
        self.ascii = re.compile(pattern, flags | re.ASCII)

    def findall(self, text: str) -> list[Any]:
        return (self.ascii if text.isascii() else self.any).findall(text)


_start = re.Match.start
_groups = re.Match.groups


class _Anchored:
    """`_LOGGER + lead + core` (a step line: a logger's prefix, then the format's text) found at
    the speed of `core` alone: a pattern anchored to line starts is tried at every position of
    the text and its prefix at every line, three times the cost of a pattern that starts with
    a literal (`core`, which starts with `start`), which the engine looks for directly.

    `findall` finds `core` in a block and checks what precedes each match on its line (the
    distinct prefixes, joined, in one pass) against `_HEAD + lead`. When each is a logger's
    prefix without `start` in it, the matches are exactly those of the anchored pattern: a
    prefix holds no `start` and no ", " (each core's text does), so the anchored pattern's
    core can start nowhere but where `core`'s leftmost match does, and the rest of the line
    is read by the same `core` from the same place. Otherwise (a step line quoted in other
    text, two on one line) the block is read with the anchored pattern itself."""

    __slots__ = ("core", "full", "heads", "one", "start")

    def __init__(self, core: str, start: str, lead: str = "") -> None:
        self.full = _Pattern(_LOGGER + lead + core)
        self.core = _Pattern(core)
        self.heads = _Pattern(r"\n(?:" + _HEAD + lead + r")(?=\n)")
        self.one = self.core.any.groups == 1
        self.start = start

    def findall(self, text: str) -> list[Any]:
        ascii_ = text.isascii()
        found = list((self.core.ascii if ascii_ else self.core.any).finditer(text))
        if not found:
            return []
        ends = list(map(_start, found))  # C-level maps: a comprehension costs more than `core`
        firsts = map(add, map(text.rfind, repeat("\n"), repeat(0), ends), repeat(1))
        heads = set(map(text.__getitem__, map(slice, firsts, ends)))
        joined = "\n".join(heads)
        ok = (self.heads.ascii if ascii_ else self.heads.any).findall(f"\n{joined}\n")
        if self.start in joined or ", " in joined or len(ok) != len(heads):
            return self.full.findall(text)
        groups = map(_groups, found, repeat(""))  # "" for a group that took no part, as findall
        return [g for (g,) in groups] if self.one else list(groups)


def _segments(found: list, is_step: Callable[[tuple], object]) -> Iterator[tuple[bool, list]]:
    """`found` cut into runs of step matches and single other matches, in order."""
    cuts = [i for i, m in enumerate(found) if not is_step(m)]
    start = 0
    for i in cuts:
        if start < i:
            yield True, found[start:i]
        yield False, [found[i]]
        start = i + 1
    if start < len(found):
        yield True, found[start:]
