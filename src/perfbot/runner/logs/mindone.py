"""mindone: the EvalSaveCallback step lines, and the result tables (`result.log` of mindone's
trainer and of PerfRecorderCallback)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import truediv

from .fastpath import (
    _Anchored,
    _floats,
    _per_step,
    _spans,
    _transpose,
)
from .reader import (
    _LOGGER,
    _NONBLANK,
    _NUM,
    ParseInfo,
    Samples,
    _as_blocks,
    _f,
    _Steps,
)

# ---- per-format parsers -------------------------------------------------------------------
# Each takes an iterable of blocks (or single lines) and keyword hints, and returns samples in
# log order. Patterns never cross a line end ([ \t] instead of \s, bounded gaps).

# Patterns: the lines are printf-formatted, so single spaces are literal; a greedy gap up to a
# field near the end of the line backtracks a few characters only (linear on any line).
_MINDONE_RE = re.compile(
    _LOGGER
    + r"epoch (\d+), step (\d+),(?:[^\n]* global_step (\d+),|[^\n]*) step_time\(ms\) "
    + _NUM
)


_MINDONE = _Anchored(_MINDONE_RE.pattern.removeprefix(_LOGGER), "epoch ")


def parse_mindone(lines: Iterable[str], *, info: ParseInfo | None = None, **_: object) -> Samples:
    """mindone EvalSaveCallback: `epoch E, step S, ..., global_step G, step_time(ms) T`.

    `step_time(ms)` averages the steps since the previous line (log_interval).
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    window = steps.window
    for block in _as_blocks(lines):
        found = _MINDONE.findall(block)
        if (
            found
            and all((cols := _transpose(found))[2])
            and (ms_list := _floats(cols[3])) is not None
        ):
            globs = list(map(int, cols[2]))
            spans = _spans(steps, globs)
            if spans is not None:
                out.add_columns(globs, map(truediv, ms_list, repeat(1000.0)), spans, "step")
                steps.prev = globs[-1]
                out.cap()
                continue
        for _, s, g, t in found:
            ms = _f(t)
            if ms is None:
                continue
            in_epoch = int(s)
            glob = int(g) if g else steps.continue_epoch(in_epoch)
            w = window(glob, glob - in_epoch if glob >= in_epoch else None)
            if w:
                out.add(w[0], ms / 1000.0, w[1], "step")
        out.cap()
    return out


def _rows(lines: Iterable[str]) -> Iterator[str]:
    for block in _as_blocks(lines):
        rows = block.split("\n")
        rows.pop()  # after the last line end
        yield from rows


@dataclass
class _Rows:
    """A block of well-formed result rows at once: key numbers and seconds."""

    keys: list[int] | range  # a range: consecutive numbers (see _plain_run)
    secs: list[float]


_EXACT = 2**53  # integers below this are exact floats: int(s) == int(float(s))


def _row_keys(cells: Sequence[str]) -> list[int] | None:
    """`int(float(cell))` of every cell (a step or epoch number, "12" or "12.0"), None if one
    does not convert or is below 1 (" -2" is a cell the row-by-row path skips, like "-"):
    `int(cell)` first (one conversion), which gives the same numbers whenever it succeeds and
    they are below 2**53."""
    try:
        keys = list(map(int, cells))
        exact = max(keys) < _EXACT
    except ValueError:  # "12.0", a header, "abc", "inf", no cells
        exact = False
    if not exact:
        try:
            keys = list(map(int, map(float, cells)))
        except (ValueError, OverflowError):  # row by row
            return None
    return keys if keys and min(keys) >= 1 else None


def _tab_columns(block: str, tabs: int, j: int) -> tuple[list[str], list[str], str] | None:
    """The first cells and cells `j` (>= 1) of every line of `block` when each line holds exactly
    `tabs` tabs (None otherwise), and the first cells joined at their line ends, from one
    `split` of the whole block rather than a match per line. A first cell other than the block's
    first comes with the line end before it (`"\\n12"`), which `int` and `float` skip like any
    other whitespace.

    With every line end written as tab + line end, a block of n lines of `tabs` tabs splits into
    `(tabs + 1) * n + 1` pieces, the line ends opening pieces `w, 2w, ..., nw` (w = tabs + 1).
    Each line end opens a piece of its own (a tab precedes it) and none opens the first, so when
    the pieces `0, w, ..., nw` hold all n line ends, every line has exactly `tabs` tabs."""
    n = block.count("\n")
    w = tabs + 1
    pieces = block.replace("\n", "\t\n").split("\t")
    if len(pieces) != w * n + 1:
        return None
    firsts = pieces[0::w]
    joined = "".join(firsts)
    if joined.count("\n") != n:
        return None
    firsts.pop()  # "\n": after the last line end
    return firsts, pieces[j::w], joined[:-1]


def _plain_run(joined: str, n: int) -> range | None:
    """`a, a + 1, ..., a + n - 1` when the n first cells, joined at their line ends, are exactly
    those numbers written plainly (`"7\\n8\\n9"`, as a result file logging every step writes
    them): what `_row_keys` gives for them, without converting each cell."""
    cut = joined.find("\n")
    first = joined[:cut] if cut >= 0 else joined
    if not (0 < len(first) <= 15 and first.isascii() and first.isdigit()) or first[0] == "0":
        return None
    keys = range(int(first), int(first) + n)
    return keys if joined == "\n".join(map(str, keys)) else None


def _result_rows(
    lines: Iterable[str], key: tuple[str, ...], time: tuple[str, ...]
) -> Iterator[tuple[int, float] | _Rows | None]:
    """(key, seconds) of each row of a tab- (or whitespace-) separated result file: the first
    column of the header named in `key` (a step or epoch number) and the first named in `time`.
    Short rows, eval rows (first field `-`) and rows whose numbers do not convert are skipped;
    None marks a second run's header (a restart). Nothing when the header lacks either column.
    A block of tab-separated rows that are all well-formed comes as one `_Rows`."""
    header: list[str] | None = None
    i_key = i_time = -1
    need = 0
    tabs = 0  # tabs in the header line: a row with as many is split at once
    for block in _as_blocks(lines):
        if header is None:  # the header line, then the rest of its block like any other
            m = _NONBLANK.search(block)
            if m is None:
                continue
            start = block.rfind("\n", 0, m.start()) + 1
            end = block.index("\n", m.start())
            line = block[start:end]
            fields = line.split("\t") if "\t" in line else line.split()
            header = [f.strip().lower() for f in fields]
            i_key = next((header.index(n) for n in key if n in header), -1)
            i_time = next((header.index(n) for n in time if n in header), -1)
            if i_key < 0 or i_time < 0:
                return
            need = max(i_key, i_time)
            # the block path reads the key from the first cell, which the per-row checks below
            # (eval rows, blanks) look at: with the key elsewhere, rows go one by one
            tabs = line.count("\t") if i_key == 0 else 0
            block = block[end + 1 :]
            if not block:
                continue
        if tabs and not block.startswith("-") and "\n-" not in block:
            cells = _tab_columns(block, tabs, i_time)
            if cells is not None:
                key_cells, time_cells, joined = cells
                keys = _plain_run(joined, len(key_cells)) or _row_keys(key_cells)
                secs = _floats(time_cells) if keys else None
                if keys and secs:
                    yield _Rows(keys, secs)
                    continue
        rows = block.split("\n")
        rows.pop()  # after the last line end
        for line in rows:
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) <= need:
                continue
            first = fields[0].strip()
            if first.startswith("-") or not first:
                continue
            if first.lower() == header[0] and fields[1].strip().lower() == header[1]:
                yield None  # a second run appended its header
                continue
            try:
                number = int(float(fields[i_key]))
            except (ValueError, OverflowError):  # "abc", or "inf" / "1e400" in a step cell
                continue
            seconds = _f(fields[i_time])
            if seconds is not None:
                yield number, seconds


def parse_mindone_result(
    lines: Iterable[str], *, info: ParseInfo | None = None, **_: object
) -> Samples:
    """mindone `result.log`: `step\\tloss\\tlr\\ttrain_time(s)`.

    train_time(s) is the time since the previous row (not divided by log_interval), so each row
    covers the steps since the previous row.
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    for row in _result_rows(lines, ("step",), ("train_time(s)", "train_time")):
        if row is None:
            steps = _Steps(info)
            continue
        if isinstance(row, _Rows):
            spans = _spans(steps, row.keys)
            if spans is not None:
                out.add_columns(row.keys, _per_step(row.secs, spans), spans, "step")
                steps.prev = row.keys[-1]
                out.cap()
                continue
            pairs: Iterable[tuple[int, float]] = zip(row.keys, row.secs, strict=True)
        else:
            pairs = (row,)
        for step, total in pairs:
            w = steps.window(step)
            if w:
                out.add(w[0], total / w[1], w[1], "step")
        out.cap()
    return out


def parse_perf_recorder(
    lines: Iterable[str], *, info: ParseInfo | None = None, **_: object
) -> Samples:
    """PerfRecorderCallback `result.log`: one row per step, `train_time(s)` of that step alone.

    Eval rows (first field `-`) are skipped.
    """
    info = info or ParseInfo()
    out = Samples(info)
    for row in _result_rows(lines, ("step",), ("train_time(s)", "train_time")):
        if isinstance(row, _Rows):  # its keys are all >= 1 (_row_keys, _plain_run)
            out.add_columns(row.keys, row.secs, [1] * len(row.keys), "step")
        elif row is not None and row[0] >= 1:
            out.add(row[0], row[1], 1, "step")
        out.cap()
    return out
