"""Reading a log: blocks of clean, complete lines; the samples and their columns; step windows."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq
from typing import IO, Literal, NamedTuple, overload

Kind = Literal["step", "epoch"]

# characters read at a time: small enough that a block's cells stay in the CPU cache (blocks
# of 1 MiB parsed result files 1.2-1.7x slower)
BLOCK = 1 << 16
MAX_LINE = 64 * 1024  # longer lines are skipped (no log line of interest is that long)
MAX_SAMPLES = 1_000_000  # samples kept; a longer log is measured on its first ones


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
_NONBLANK = re.compile(r"\S")


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
