"""Step-time parsers for the training logs of MindSpore model repositories.

Every parser turns log text into `StepSample`s: the *per-step* time in seconds of a run of `span`
consecutive steps ending at global step `step` (1-based). A line that reports one step has
span 1; a line that averages (or accumulates) a window of steps has the window's length as span
and the window's mean as `seconds`. Per-epoch lines (data-sink mode, TimeMonitor, result files)
are samples of kind `"epoch"` covering the whole epoch.

The formats are described in `shared/spec/LOG-FORMATS.md` and `docs/runner.md`. Parsers are
registered in `PARSERS` by format name; `detect_format` picks one for `auto`.

Logs are **streamed**: a file is read in blocks of complete lines (`BLOCK` characters), never as
a whole, and each format's line pattern runs over a block at once (`findall`), so memory stays
bounded and time is close to one regular-expression pass. Lines longer than `MAX_LINE` are skipped,
at most `MAX_SAMPLES` samples are kept.

All parsers strip ANSI colour codes, accept LF/CRLF/CR line ends, skip lines they do not
understand, and ignore a last line that has no line end (it may have been cut mid-number).
"""

from __future__ import annotations

import gc
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, eq, itemgetter, mul, sub, truediv
from typing import IO, Literal, NamedTuple, overload

__all__ = [
    "MAX_SAMPLES",
    "PARSERS",
    "LogFormatError",
    "LogRead",
    "Samples",
    "StepSample",
    "clean_lines",
    "detect_format",
    "open_regular",
    "parse_log",
    "read_log",
]

Kind = Literal["step", "epoch"]

# characters read at a time: small enough that a block's cells stay in the CPU cache (blocks
# of 1 MiB parsed result files 1.2-1.7x slower)
BLOCK = 1 << 16
MAX_LINE = 64 * 1024  # longer lines are skipped (no log line of interest is that long)
MAX_SAMPLES = 1_000_000  # samples kept; a longer log is measured on its first ones
DETECT_PREFIX = 1 << 20  # characters `auto` looks at before falling back to the whole log


class LogFormatError(ValueError):
    """The log cannot be read in the requested format (message is for the user)."""


class StepSample(NamedTuple):
    """Per-step time of `span` consecutive steps ending at global step `step`."""

    step: int
    seconds: float
    span: int = 1
    kind: Kind = "step"

    @property
    def first_step(self) -> int:
        return self.step - self.span + 1

    @property
    def total_seconds(self) -> float:
        return self.seconds * self.span


# ---- reading: blocks of clean, complete lines -----------------------------------------------

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_NUM = r"([0-9.]+(?:[eE][-+]?[0-9]+)?)"  # converted with _f (which refuses "1.2.3", inf)

# Step lines start a line, after at most a logger's prefix: a timestamp, a logger name and a
# level (`[2026-12-01 10:00:00] mindcv.utils.callbacks INFO - `, `2026-12-01 10:00:00,123
# [INFO] `, rich's `[...] INFO     `), never in the middle of other text, so a line that only
# quotes one (a caption of a data file the trainer prints) is not a step time. Each part is
# bounded, so the prefix costs a few steps per line start.
_TS = r"\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,6})?\]?"
_LEVEL = r"\[?(?:[\w.\-]{1,100}/)?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\]?:?"
_HEAD = (
    r"[ \t]{0,40}(?:(?:" + _TS + r"[ \t]{1,4}(?:-[ \t]{1,4})?)?"
    r"(?:[\w.\-]{1,100}[ \t]{1,4}(?:-[ \t]{1,4})?)?" + _LEVEL + r"[ \t]{1,10}(?:-[ \t]{1,4})?"
    r"|" + _TS + r"[ \t]{1,4})?"
)  # a logger's prefix (or none): no ", " and no "epoch"/"Epoch" followed by a digit or ":"
_LOGGER = r"(?m:^)" + _HEAD
_INF = float("inf")


def clean_lines(text: str) -> list[str]:
    """Lines of `text` without ANSI escapes or line ends; a final unterminated line is dropped."""
    text = _ANSI_RE.sub("", text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines.pop()
    return [line.rstrip("\r\n") for line in lines]


def open_regular(path: str | os.PathLike[str], max_bytes: int | None = None) -> IO[bytes]:
    """Open `path` for reading only if it is a regular file (symlinks followed), without ever
    blocking on a FIFO or device: `O_NONBLOCK`, then `fstat`. Raises OSError otherwise; with
    `max_bytes`, also when the file is larger."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{os.fspath(path)}: not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise OSError(f"{os.fspath(path)}: larger than {max_bytes} bytes")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


Source = str | os.PathLike[str]


def _chunks(source: Source | Iterable[str]) -> Iterator[str]:
    """Raw text of `source` in pieces: a path is read in `BLOCK`s (regular files only), a str
    is sliced, any other iterable of strings is taken as it comes."""
    if isinstance(source, str):
        for i in range(0, len(source), BLOCK):
            yield source[i : i + BLOCK]
        return
    if isinstance(source, os.PathLike):
        import io

        with (
            open_regular(source) as raw,
            io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="") as fh,
        ):
            while chunk := fh.read(BLOCK):
                yield chunk
        return
    yield from source


def blocks(source: Source | Iterable[str], limit: int | None = None) -> Iterator[str]:
    """Text of `source` as blocks of whole lines, each line ending in `\\n`: CR and CRLF become
    LF, ANSI escapes are removed, lines over `MAX_LINE` and a last line without a line end are
    dropped. With `limit`, stop after about that many characters."""
    rest = ""
    skipping = False  # inside a line that is too long
    seen = 0
    for chunk in _chunks(source):
        data = rest + chunk if rest else chunk
        tail = ""
        if "\r" in data:
            if data.endswith("\r"):  # may be half of a CRLF: decide with the next chunk
                data, tail = data[:-1], "\r"
            data = data.replace("\r\n", "\n").replace("\r", "\n")
        cut = data.rfind("\n")
        if cut < 0:
            rest = data + tail
            if len(rest) > MAX_LINE:
                rest, skipping = "", True
            continue
        block, rest = data[: cut + 1], data[cut + 1 :] + tail
        if skipping:
            block = block[block.find("\n") + 1 :]
            skipping = False
        if len(rest) > MAX_LINE:
            rest, skipping = "", True
        if "\x1b" in block:
            block = _ANSI_RE.sub("", block)
        if block:
            yield block
        seen += len(block)
        if limit is not None and seen >= limit:
            return
    if rest.endswith("\r") and not skipping:  # a CR line end at the very end
        last = rest[:-1]
        yield (_ANSI_RE.sub("", last) if "\x1b" in last else last) + "\n"


def _as_blocks(lines: Iterable[str]) -> Iterator[str]:
    """Parsers accept blocks or single lines: make sure every piece ends with a line end."""
    for piece in lines:
        yield piece if piece.endswith("\n") else piece + "\n"


def _f(s: str) -> float | None:
    try:
        v = float(s)
    except ValueError:
        return None
    return v if 0 <= v < _INF else None  # also refuses nan


@dataclass
class ParseInfo:
    """What a parser noticed besides samples."""

    restarts: int = 0  # times a step number went backwards
    last_step: int = 0  # the last step a parser counted, lines it did not keep included
    dropped: int = 0  # samples beyond MAX_SAMPLES
    notes: list[str] = field(default_factory=list)
    refusal: str | None = None  # the log cannot give a truthful s/step (message for the user)


_new = tuple.__new__  # StepSample without the Python-level __new__ (hot loops)


class Samples(Sequence[StepSample]):
    """Step samples in log order, held column-wise: four parallel lists (`step`, `seconds`,
    `span`, `kind`) instead of one tuple per sample, so a parse of a million-line log builds no
    Python object per sample beyond its numbers. It reads as a sequence of `StepSample` (made on
    access) and compares equal to any sequence of the same samples; `measure` reads the columns.

    A parser's own `Samples` carries its `ParseInfo`: `cap()` after each block drops (and
    counts) what is beyond MAX_SAMPLES, so it never holds more than one block's samples beyond
    the limit."""

    __slots__ = ("info", "kind", "seconds", "span", "step")

    def __init__(self, info: ParseInfo | None = None) -> None:
        self.step: list[int] = []
        self.seconds: list[float] = []
        self.span: list[int] = []
        self.kind: list[str] = []
        self.info = info

    @classmethod
    def of(cls, samples: Iterable[StepSample]) -> Samples:
        """`samples` (StepSamples, or tuples of their four fields) as columns."""
        if isinstance(samples, Samples):
            return samples
        out = cls()
        for s in samples:
            out.add(*s)
        return out

    def add(self, step: int, seconds: float, span: int = 1, kind: str = "step") -> None:
        self.step.append(step)
        self.seconds.append(seconds)
        self.span.append(span)
        self.kind.append(kind)

    def add_columns(
        self, steps: Sequence[int], seconds: Iterable[float], spans: list[int], kind: str
    ) -> None:
        """One sample per element of `steps` (and of the same-length `seconds`, `spans`)."""
        self.step += steps
        self.seconds += seconds
        self.span += spans
        self.kind += [kind] * len(steps)

    def cap(self) -> None:
        if len(self.step) > MAX_SAMPLES:
            if self.info is not None:
                self.info.dropped += len(self.step) - MAX_SAMPLES
            for col in (self.step, self.seconds, self.span, self.kind):
                del col[MAX_SAMPLES:]

    def only(self, kind: str) -> Samples:
        """The samples of kind `kind` (this object itself when all are)."""
        n = self.kind.count(kind)
        if n == len(self.kind):
            return self
        out = Samples()
        if n:
            keep = list(map(kind.__eq__, self.kind))
            out.step = list(compress(self.step, keep))
            out.seconds = list(compress(self.seconds, keep))
            out.span = list(compress(self.span, keep))
            out.kind = [kind] * n
        return out

    def __len__(self) -> int:
        return len(self.step)

    @overload
    def __getitem__(self, i: int) -> StepSample: ...
    @overload
    def __getitem__(self, i: slice) -> Samples: ...
    def __getitem__(self, i: int | slice) -> StepSample | Samples:
        if isinstance(i, slice):
            out = Samples()
            out.step, out.seconds = self.step[i], self.seconds[i]
            out.span, out.kind = self.span[i], self.kind[i]
            return out
        return _new(StepSample, (self.step[i], self.seconds[i], self.span[i], self.kind[i]))

    def __iter__(self) -> Iterator[StepSample]:
        return map(
            _new,
            repeat(StepSample),
            zip(self.step, self.seconds, self.span, self.kind, strict=True),
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Samples):
            return (self.step, self.seconds, self.span, self.kind) == (
                other.step,
                other.seconds,
                other.span,
                other.kind,
            )
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(map(eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        head = ", ".join(map(repr, self[:3]))
        more = f", ... {len(self) - 3} more" if len(self) > 3 else ""
        return f"Samples([{head}{more}])"


class _Steps:
    """Turns global step numbers into (step, span) windows: a line covers the steps since the
    previous line. A step number that does not increase means the log restarted (a second run
    appended to it, or interleaved ranks); counting starts over."""

    def __init__(self, info: ParseInfo | None = None) -> None:
        self.prev: int | None = None
        self.base = 0  # for logs that give only the step within the epoch
        self.last_in_epoch = 0
        self.info = info

    def window(self, global_step: int, start: int | None = None) -> tuple[int, int] | None:
        """(global_step, span) for a line at `global_step`; `start` is the step before the
        first line's window when the log does not begin at step 1 (e.g. its epoch's start)."""
        if self.prev is not None and global_step <= self.prev:
            self.prev = None
            if self.info is not None:
                self.info.restarts += 1
        prev = self.prev if self.prev is not None else (start or 0)
        if global_step <= prev or global_step < 1:
            return None
        self.prev = global_step
        return global_step, global_step - prev

    def in_epoch(
        self, epoch: int, step: int, per_epoch: int, *, resets: bool = False
    ) -> tuple[int, int] | None:
        """`window` for a line at step `step` of `per_epoch` in (1-based) epoch `epoch`. With
        `resets` (the repository restarts its timer at every epoch), a window never reaches back
        into the previous epoch: the first line of an epoch covers the steps since its start."""
        start = (epoch - 1) * per_epoch
        glob = start + step
        if resets and self.prev is not None and self.prev < start < glob:
            self.prev = start
        return self.window(glob, start)

    def continue_epoch(self, in_epoch: int) -> int:
        """Global step for a line that gives only its step within the epoch."""
        if in_epoch <= self.last_in_epoch:
            self.base = self.prev or 0
        self.last_in_epoch = in_epoch
        return self.base + in_epoch


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

    def findall(self, text: str) -> Samples:
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

    def findall(self, text: str) -> list:
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
        if type(row) is _Rows:
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
        if type(row) is _Rows:  # its keys are all >= 1 (_row_keys, _plain_run)
            out.add_columns(row.keys, row.secs, [1] * len(row.keys), "step")
        elif row is not None and row[0] >= 1:
            out.add(row[0], row[1], 1, "step")
        out.cap()
    return out


_MINDCV_RE = re.compile(
    _LOGGER + r"Epoch: \[(\d+)/(\d+)\], batch: \[(\d+)/(\d+)\][^\n]* time: " + _NUM + "s"
)


_MINDCV = _Anchored(
    r"Epoch: \[(\d+)/\d+\], batch: \[(\d+)/(\d+)\][^\n]* time: " + _NUM + "s", "Epoch: "
)  # _MINDCV_RE without the unused group of the number of epochs


def parse_mindcv(lines: Iterable[str], *, info: ParseInfo | None = None, **_: object) -> Samples:
    """mindcv StateMonitor: `Epoch: [e/E], batch: [b/N], loss: ..., time: T s`.

    T is accumulated since the previous printed line, so it is divided by the batches since
    then. A line covering a whole epoch (data-sink mode) is an epoch sample.
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    in_epoch = steps.in_epoch
    for block in _as_blocks(lines):
        found = _MINDCV.findall(block)
        if found and (w := _windows(steps, _transpose(found), resets=False)):
            globs, spans, totals, ns = w
            # a line covering a whole epoch (sink mode) is an epoch sample: line by line
            if not any(map(eq, spans, ns)):
                out.add_columns(globs, _per_step(totals, spans), spans, "step")
                steps.prev = globs[-1]
                out.cap()
                continue
        for e, b, n_, t in found:
            batch, n = int(b), int(n_)
            total = _f(t)
            if total is None or n < 1 or batch < 1:
                continue
            w = in_epoch(int(e), batch, n)
            if not w:
                continue
            kind = "epoch" if (w[1] == n and batch == n and n > 1) else "step"
            out.add(w[0], total / w[1], w[1], kind)
        out.cap()
    return out


def _epoch_file(
    lines: Iterable[str], steps_per_epoch: int | None, fmt: str, info: ParseInfo | None
) -> Samples:
    if not steps_per_epoch:
        raise LogFormatError(
            f"{fmt} logs give one time per epoch; set 'steps_per_epoch' in the benchmark"
        )
    n = steps_per_epoch
    out = Samples(info or ParseInfo())
    for row in _result_rows(lines, ("epoch",), ("traintime", "train_time", "train_time(s)")):
        if row is None:
            continue
        pairs = zip(row.keys, row.secs, strict=True) if type(row) is _Rows else (row,)
        for epoch, total in pairs:
            if epoch >= 1:
                out.add(epoch * n, total / n, n, "epoch")
    return out


def parse_mindcv_result(
    lines: Iterable[str],
    *,
    steps_per_epoch: int | None = None,
    info: ParseInfo | None = None,
    **_: object,
) -> Samples:
    """mindcv `result.log`: per-epoch rows, `TrainTime` in seconds (needs steps_per_epoch)."""
    return _epoch_file(lines, steps_per_epoch, "mindcv_result", info)


def parse_mindocr_result(
    lines: Iterable[str],
    *,
    steps_per_epoch: int | None = None,
    info: ParseInfo | None = None,
    **_: object,
) -> Samples:
    """mindocr `result.log`: `Epoch\\tloss\\t...\\ttrain_time\\teval_time` per epoch, seconds."""
    return _epoch_file(lines, steps_per_epoch, "mindocr_result", info)


# mindyolo: 1 epoch, 2 epochs, 3 step, 4 steps/epoch, 5 step time (ms, a window's mean),
# 6 epoch minutes. A step line without a time (the loss line) still tells steps per epoch.
_YOLO_RE = re.compile(
    _LOGGER
    + r"Epoch (\d+)/(\d+), (?:Step (\d+)/(\d+), step time: "
    + _NUM
    + r" ms|epoch time: "
    + _NUM
    + r" min)"
)
_YOLO_ANY_STEP_RE = re.compile(_LOGGER + r"Epoch \d+/\d+, Step \d+/(\d+),")


_YOLO_STEP = _Anchored(r"Epoch (\d+)/\d+, Step (\d+)/(\d+), step time: " + _NUM + r" ms", "Epoch ")


def _step_lines(
    steps: _Steps, out: Samples, found: Iterable[tuple[str, str, str, str]], unit: float
) -> None:
    """Step matches `(epoch, step, steps per epoch, time)` one by one, windows restarting at
    every epoch (mindyolo, mindocr): the first block, restarts, odd numbers."""
    in_epoch = steps.in_epoch
    for e, s, n_, time in found:
        t = _f(time)
        n = int(n_)
        if t is None or n < 1:
            continue
        w = in_epoch(int(e), int(s), n, resets=True)
        if w:
            out.add(w[0], t / unit, w[1], "step")


_ESNT = itemgetter(0, 2, 3, 4)  # (epoch, step, steps per epoch, time) of a full yolo/ocr match


def parse_mindyolo(lines: Iterable[str], *, info: ParseInfo | None = None, **_: object) -> Samples:
    """mindyolo: `Epoch e/E, Step s/S, step time: T ms` (mean over log_interval steps), and
    `Epoch e/E, epoch time: M min.` per epoch (the only timing in data-sink mode).

    mindyolo restarts its step timer at every epoch, so the first window of an epoch covers the
    steps since that epoch began, even when steps per epoch is not a multiple of log_interval.

    Lines without `epoch time: ` are read with the step pattern alone; the few that have it with
    the full one. Steps per epoch is taken from the last step line of each run of step lines (a
    run ends at an epoch line or with its block; `run_n`), unless that says 0.
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    per_epoch: int | None = None
    run_n: str | None = None  # steps per epoch of the last step line of the current run
    for block in _as_blocks(lines):
        for rare, piece in _around(block, "epoch time: "):
            if not rare:
                found = _YOLO_STEP.findall(piece)
                if found:
                    cols = _transpose(found)
                    run_n = cols[2][-1]
                    if not _step_cols(steps, out, cols, 1000.0):
                        _step_lines(steps, out, found, 1000.0)
                continue
            for is_step, run in _segments(_YOLO_RE.findall(piece), _G2):
                if is_step:
                    run_n = run[-1][3]
                    esnt = list(map(_ESNT, run))
                    if not _step_cols(steps, out, _transpose(esnt), 1000.0):
                        _step_lines(steps, out, esnt, 1000.0)
                    continue
                if run_n is not None:
                    per_epoch = int(run_n) or per_epoch
                    run_n = None
                if not per_epoch:  # sink mode: steps per epoch from the loss lines
                    found_n = _YOLO_ANY_STEP_RE.findall(block)
                    per_epoch = next((int(n) for n in found_n if n), None)
                e, mins = run[0][0], run[0][5]
                minutes = _f(mins)
                if minutes is None or not per_epoch:
                    continue
                sample = (int(e) * per_epoch, minutes * 60.0 / per_epoch, per_epoch, "epoch")
                out.add(*sample)
        if run_n is not None:  # a run of step matches ends with its block
            per_epoch = int(run_n) or per_epoch
            run_n = None
        out.cap()
    return out


# mindocr: 1 epoch, 2 epochs; step line: 3 step, 4 steps/epoch, 5 ms; epoch line: 6 s, 7 ms.
_OCR_RE = re.compile(
    _LOGGER
    + r"epoch: \[(\d+)/(\d+)\](?: step: \[(\d+)/(\d+)\][^\n]* per step time: "
    + _NUM
    + r" ms|,[^\n]* epoch time: "
    + _NUM
    + r" s, per step time: "
    + _NUM
    + r" ms)"
)


_OCR_STEP = _Anchored(
    r"epoch: \[(\d+)/\d+\] step: \[(\d+)/(\d+)\][^\n]* per step time: " + _NUM + r" ms",
    "epoch: ",
)


def parse_mindocr(lines: Iterable[str], *, info: ParseInfo | None = None, **_: object) -> Samples:
    """mindocr: `epoch: [e/E] step: [s/S], ..., per step time: T ms` (mean over log_interval),
    and the epoch line `epoch: [e/E], ..., epoch time: X s, per step time: T ms`.

    Like mindyolo, mindocr restarts its window at every epoch. Lines without `epoch time: ` are
    read with the step pattern alone.
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    in_epoch = steps.in_epoch
    for block in _as_blocks(lines):
        for rare, piece in _around(block, "epoch time: "):
            if not rare:
                found = _OCR_STEP.findall(piece)
                if found and not _step_cols(steps, out, _transpose(found), 1000.0):
                    _step_lines(steps, out, found, 1000.0)
                continue
            for is_step, seg in _segments(_OCR_RE.findall(piece), _G2):
                if is_step:
                    esnt = list(map(_ESNT, seg))
                    if not _step_cols(steps, out, _transpose(esnt), 1000.0):
                        _step_lines(steps, out, esnt, 1000.0)
                    continue
                _ocr_lines(seg, in_epoch, out)
        out.cap()
    return out


def _ocr_lines(found: list, in_epoch: Callable[..., tuple[int, int] | None], out: Samples) -> None:
    """mindocr matches one by one (the first block, restarts, epoch lines)."""
    for e, _, s, n_, step_ms, epoch_sec, epoch_ms in found:
        if s:
            n = int(n_)
            t = _f(step_ms)
            if t is None or n < 1:
                continue
            w = in_epoch(int(e), int(s), n, resets=True)
            if w:
                out.add(w[0], t / 1000.0, w[1], "step")
            continue
        epoch_s, ms = _f(epoch_sec), _f(epoch_ms)
        if not epoch_s or not ms:
            continue
        n = max(1, round(epoch_s * 1000.0 / ms))
        out.add(int(e) * n, epoch_s / n, n, "epoch")


# TimeMonitor: 1 Train/Eval (absent in old MindSpore: training), 2 epoch ms, 3 per-step ms.
# TimeMonitor prints (no logger): its line starts a line, after `Train ` or `Eval ` (the match
# starts at the line, where the Eval test below looks for "Eval ").
_TM_RE = re.compile(
    r"(?m:^)(?:Train |Eval )?epoch time: " + _NUM + r" ms, per step time: " + _NUM + " ms"
)

TM_FIT_REFUSAL = (
    "TimeMonitor under Model.fit: MindSpore runs the evaluation before the training epoch-end "
    "callback, so every 'Train epoch time' line that follows an 'Eval epoch time' line measures "
    "the evaluation, not training, and no epoch was logged without one. Log training time "
    "with Model.train (run the evaluation in its own loop), evaluate less often "
    "(valid_frequency) so that some epochs are logged clean, or use a per-step logger"
)


def parse_timemonitor(
    lines: Iterable[str], *, info: ParseInfo | None = None, **_: object
) -> Samples:
    """MindSpore TimeMonitor: `Train epoch time: X ms, per step time: Y ms`, one line per epoch.

    The number of steps in the epoch is X / Y. `Eval epoch time` lines are never counted. Under
    `Model.fit` an evaluation runs before the training epoch-end callback and resets
    TimeMonitor's epoch timer, so a `Train` line that follows an `Eval` line (since the previous
    `Train` line) times the evaluation: it is dropped (its steps still count). If every `Train`
    line is contaminated, `info.refusal` says so.
    """
    info = info or ParseInfo()
    out = Samples(info)
    glob = 0
    after_eval = False
    train = dropped = 0
    for block in _as_blocks(lines):
        # an evaluation line is "Eval " right before a match (a longer needle is found faster)
        evals = "Eval epoch time: " in block
        if not evals and not after_eval:  # Model.train: every line is training
            found = _TM_RE.findall(block)
            if not found:
                continue
            xs, ys = _transpose(found)
            ex, ey = _floats(xs, positive=True), _floats(ys, positive=True)
            if ex and ey:
                ns = list(map(float.__round__, map(truediv, ex, ey)))  # round(), without lookup
                if min(ns) >= 1:
                    globs = list(islice(accumulate(ns, initial=glob), 1, None))
                    secs = map(truediv, map(truediv, ex, ns), repeat(1000.0))
                    out.add_columns(globs, secs, ns, "epoch")
                    glob, train = globs[-1], train + len(ns)
                    out.cap()
                    continue
        if evals or after_eval:
            matches = [
                ("E" if block.startswith("Eval ", m.start()) else "", *m.groups())
                for m in _TM_RE.finditer(block)
            ]
        else:  # Model.train: no evaluation lines, no positions needed
            matches = [("", x, y) for x, y in _TM_RE.findall(block)]
        for which, x, y in matches:
            if which:
                after_eval = True
                continue
            epoch_ms, ms = _f(x), _f(y)
            if not epoch_ms or not ms:
                continue
            n = max(1, round(epoch_ms / ms))
            glob += n
            train += 1
            if after_eval:
                after_eval = False
                dropped += 1
                continue
            out.add(glob, epoch_ms / n / 1000.0, n, "epoch")
        out.cap()
    info.last_step = glob
    if dropped:
        if dropped == train:
            info.refusal = TM_FIT_REFUSAL
        else:
            info.notes.append(
                f"dropped {dropped} of {train} 'Train epoch time' lines that follow an "
                "evaluation (Model.fit): they time the evaluation, not training"
            )
    return out


_AUDIO_RE = re.compile(
    _LOGGER
    + r"(?:\[Train\][ \t]{0,4})?Epoch: \[(\d+)/(\d+)\], Step: \[(\d+)/(\d+)\], Step Time: "
    + _NUM
    + " sec"
)


_AUDIO = _Anchored(
    r"Epoch: \[(\d+)/\d+\], Step: \[(\d+)/(\d+)\], Step Time: " + _NUM + " sec",
    "Epoch: ",
    r"(?:\[Train\][ \t]{0,4})?",
)  # _AUDIO_RE without the unused group


def parse_mindaudio(lines: Iterable[str], *, info: ParseInfo | None = None, **_: object) -> Samples:
    """mindaudio TimeMonitor: `[Train] Epoch: [e/E], Step: [s/S], Step Time: T sec, ...`.

    When lines are more than one step apart, T is taken as the mean of the steps since the
    previous line.
    """
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    in_epoch = steps.in_epoch
    for block in _as_blocks(lines):
        found = _AUDIO.findall(block)
        if found and (w := _windows(steps, _transpose(found), resets=False)):
            globs, spans, secs, _ = w
            out.add_columns(globs, secs, spans, "step")
            steps.prev = globs[-1]
            out.cap()
            continue
        for e, s, n_, sec in found:
            n = int(n_)
            t = _f(sec)
            if t is None or n < 1:
                continue
            w = in_epoch(int(e), int(s), n)
            if w:
                out.add(w[0], t, w[1], "step")
        out.cap()
    return out


def parse_regex(
    lines: Iterable[str],
    *,
    regex: str | None = None,
    regex_times: str = "step",
    steps_per_epoch: int | None = None,
    info: ParseInfo | None = None,
    **_: object,
) -> Samples:
    """User regex with a named group `ms` or `s` (time per step), and optionally `step` (global
    step number). With `regex_times: epoch` each match is one epoch of `steps_per_epoch` steps
    and the group is that epoch's time per step."""
    if not regex:
        raise LogFormatError("log_format 'regex' needs a 'regex' with a named group ms or s")
    try:
        pattern = re.compile(regex)
    except re.error as exc:
        raise LogFormatError(f"invalid regex: {exc}") from None
    per_epoch = regex_times == "epoch"
    if per_epoch and not steps_per_epoch:
        raise LogFormatError("a regex that gives epoch times needs 'steps_per_epoch'")
    unit = 1000.0 if "ms" in pattern.groupindex else 1.0
    group = "ms" if unit == 1000.0 else "s"
    has_step = "step" in pattern.groupindex and not per_epoch
    info = info or ParseInfo()
    out = Samples(info)
    steps = _Steps(info)
    glob = 0
    for line in _rows(lines):
        m = pattern.search(line)
        if not m or m.group(group) is None:
            continue
        v = _f(m.group(group))
        if v is None:
            continue
        if per_epoch:
            assert steps_per_epoch
            glob += steps_per_epoch
            out.add(glob, v / unit, steps_per_epoch, "epoch")
        elif has_step and m.group("step"):
            try:
                w = steps.window(int(m.group("step")))
            except ValueError:
                continue
            if w:
                out.add(w[0], v / unit, w[1])
        else:
            glob += 1
            out.add(glob, v / unit, 1)
    return out


Parser = Callable[..., Samples]

PARSERS: dict[str, Parser] = {
    "mindone": parse_mindone,
    "mindone_result": parse_mindone_result,
    "perf_recorder": parse_perf_recorder,
    "mindcv": parse_mindcv,
    "mindcv_result": parse_mindcv_result,
    "mindocr_result": parse_mindocr_result,
    "mindyolo": parse_mindyolo,
    "mindocr": parse_mindocr,
    "timemonitor": parse_timemonitor,
    "mindaudio": parse_mindaudio,
    "regex": parse_regex,
}

# The pattern each format's step lines match: what bench/bench_logs.py times as the floor.
LINE_PATTERNS: dict[str, re.Pattern[str]] = {
    "mindone": _MINDONE_RE,
    "mindcv": _MINDCV_RE,
    "mindyolo": _YOLO_RE,
    "mindocr": _OCR_RE,
    "timemonitor": _TM_RE,
    "mindaudio": _AUDIO_RE,
}


# ---- detection ----------------------------------------------------------------------------

# Line signatures, most specific first (earlier wins ties).
_SIGNATURES: list[tuple[str, re.Pattern[str]]] = [
    ("mindone", re.compile(r"step_time\(ms\) [0-9]")),
    (
        "mindcv",
        re.compile(r"Epoch: \[(\d+)/(\d+)\], batch: \[(\d+)/(\d+)\][^\n]* time: " + _NUM + "s"),
    ),
    (
        "mindyolo",
        re.compile(r"Epoch \d+/\d+, (?:Step \d+/\d+, step time:|epoch time:)"),
    ),
    (
        "mindocr",
        re.compile(r"epoch: \[\d+/\d+\][^\n]* per step time: [0-9.]+ ms"),
    ),
    (
        "mindaudio",
        re.compile(r"Epoch: \[(\d+)/(\d+)\], Step: \[(\d+)/(\d+)\], Step Time: " + _NUM + " sec"),
    ),
    ("timemonitor", re.compile(r"epoch time: " + _NUM + r" ms, per step time: " + _NUM + r" ms")),
]  # unanchored: which format a log is in; the parsers read only anchored lines


def _detect_table(first: str) -> str | None:
    raw_fields = first.split("\t") if "\t" in first else first.split()
    fields = [f.strip().lower() for f in raw_fields]
    if not fields:
        return None
    if fields[0] == "epoch" and "traintime" in fields:
        return "mindcv_result"
    if fields[0] == "epoch" and "train_time" in fields:
        return "mindocr_result"
    if fields[0] == "step" and ("train_time(s)" in fields or "train_time" in fields):
        padded = "\t" in first and any(f != f.rstrip() for f in raw_fields[:-1])
        if not padded and "lr" in fields:
            return "mindone_result"
        return "perf_recorder"
    return None


_NONBLANK = re.compile(r"\S")


def _detect_blocks(pieces: Iterable[str]) -> tuple[str | None, bool]:
    """(format, whether the first non-empty line was seen)."""
    counts = dict.fromkeys((name for name, _ in _SIGNATURES), 0)
    first_seen = False
    for block in pieces:
        if not first_seen and (m := _NONBLANK.search(block)):
            first_seen = True
            start = block.rfind("\n", 0, m.start()) + 1
            table = _detect_table(block[start : block.index("\n", m.start())])
            if table:
                return table, True
        for name, pattern in _SIGNATURES:
            counts[name] += sum(1 for _ in pattern.finditer(block))
    best, best_n = None, 0
    for name, _ in _SIGNATURES:
        if counts[name] > best_n:
            best, best_n = name, counts[name]
    return best, first_seen


def detect_format(source: Source) -> str | None:
    """Name of the format of `source` (text, or a path) as a key of `PARSERS`, or None if nothing
    matches. Looks at the first `DETECT_PREFIX` characters, and at the whole log only when the
    prefix shows nothing."""
    if isinstance(source, str) and not source.endswith(("\n", "\r")):
        source += "\n"
    found, _ = _detect_blocks(blocks(source, limit=DETECT_PREFIX))
    if found is not None:
        return found
    found, _ = _detect_blocks(blocks(source))
    return found


# ---- the whole log ------------------------------------------------------------------------

_MSRUN_RE = re.compile(r"Start worker process with rank id:[ \t]*(\d+)")
_MODE_RE = re.compile(r"MindSpore mode\[GRAPH\(0\)/PYNATIVE\(1\)\]:[ \t]*([01])\b")


@dataclass
class LogRead:
    """A parsed log: its format, samples and what was noticed on the way."""

    fmt: str | None
    samples: Samples
    notes: list[str] = field(default_factory=list)
    refusal: str | None = None  # s/step must not be reported from this log (why, for the user)
    ranks: int = 0  # ranks msrun announced in this output (0: none seen)
    pynative: bool | None = None  # the log's mode banner, when it has one
    restarts: int = 0
    last_step: int = 0  # the last step counted, lines not kept as samples included


class _Scan:
    """Passes blocks through while noting the msrun and mode banners."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces
        self.ranks = 0
        self.pynative: bool | None = None

    def __iter__(self) -> Iterator[str]:
        for block in self.pieces:
            if "Start worker process with rank id:" in block:  # the longer, the faster
                for m in _MSRUN_RE.finditer(block):
                    self.ranks = max(self.ranks, int(m.group(1)) + 1)
            if self.pynative is None and "MindSpore mode[GRAPH(0)/PYNATIVE(1)]:" in block:
                m = _MODE_RE.search(block)
                if m:
                    self.pynative = m.group(1) == "1"
            yield block


def interleaved_refusal(ranks: int) -> str:
    who = f"{ranks} ranks" if ranks >= 2 else "several ranks"
    return (
        f"the log interleaves the output of {who} without a rank prefix (msrun --join prints "
        "every worker's output on its console): read each rank's own log instead, e.g. "
        "log: msrun_log/worker_*.log"
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a parse builds up to a million sample tuples (it
    would scan them all again and again: a third of the time); parsing makes no cycles, and
    everything it drops is freed by reference counting as before."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def read_log(
    source: Source,
    fmt: str = "auto",
    *,
    regex: str | None = None,
    steps_per_epoch: int | None = None,
    regex_times: str = "step",
) -> LogRead:
    """Parse `source` (log text, or the path of a regular file, streamed) in format `fmt`
    (`auto` detects). Raises `LogFormatError` for an unknown format or missing hints; OSError
    when a path cannot be read."""
    fmt = str(fmt)
    if fmt == "auto":
        detected = detect_format(source)
        if detected is None:
            return LogRead(None, Samples())
        fmt = detected
    parser = PARSERS.get(fmt)
    if parser is None:
        raise LogFormatError(f"unknown log format '{fmt}'; known: {', '.join(PARSERS)}")
    info = ParseInfo()
    scan = _Scan(blocks(source))
    with _collector_paused():
        samples = parser(
            scan,
            regex=regex,
            steps_per_epoch=steps_per_epoch,
            regex_times=regex_times,
            info=info,
        )
    read = LogRead(
        fmt,
        samples,
        notes=list(info.notes),
        refusal=info.refusal,
        ranks=scan.ranks,
        pynative=scan.pynative,
        restarts=info.restarts,
        last_step=info.last_step,
    )
    if info.dropped:
        read.notes.append(
            f"the log has {len(samples) + info.dropped} step samples; measured the first "
            f"{len(samples)}"
        )
    if read.refusal is None and samples:
        several = scan.ranks >= 2 and (fmt == "timemonitor" or info.restarts >= 1)
        frequent = info.restarts >= 2 and info.restarts * 5 >= len(samples)
        if several or frequent:
            read.refusal = interleaved_refusal(scan.ranks)
    return read


def parse_log(
    text: Source,
    fmt: str = "auto",
    *,
    regex: str | None = None,
    steps_per_epoch: int | None = None,
    regex_times: str = "step",
) -> tuple[str | None, Samples]:
    """Parse `text` (or a file path, streamed) in format `fmt` (`auto` detects). Returns
    (format used, samples); see `read_log` for the notes and refusals.

    The format is None (and samples empty) when `auto` recognises nothing.
    Raises `LogFormatError` for an unknown format or missing hints.
    """
    read = read_log(
        text, fmt, regex=regex, steps_per_epoch=steps_per_epoch, regex_times=regex_times
    )
    return read.fmt, read.samples
