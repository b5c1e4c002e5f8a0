"""Step-time parsers for the training logs of MindSpore model repositories.

Every parser turns log text into `StepSample`s: the *per-step* time in seconds of a run of `span`
consecutive steps ending at global step `step` (1-based). A line that reports one step has
span 1; a line that averages (or accumulates) a window of steps has the window's length as span
and the window's mean as `seconds`. Per-epoch lines (data-sink mode, TimeMonitor, result files)
are samples of kind `"epoch"` covering the whole epoch.

The formats are described in `shared/spec/LOG-FORMATS.md` and `docs/runner.md`. Parsers are
registered in `PARSERS` by format name; `detect_format` picks one for `auto`.

All parsers strip ANSI colour codes, accept LF/CRLF/CR line ends, skip lines they do not
understand, and ignore a last line that has no line end (it may have been cut mid-number).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "PARSERS",
    "LogFormatError",
    "StepSample",
    "clean_lines",
    "detect_format",
    "parse_log",
]

Kind = Literal["step", "epoch"]


class LogFormatError(ValueError):
    """The log cannot be read in the requested format (message is for the user)."""


@dataclass(frozen=True, slots=True)
class StepSample:
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


# ---- text cleaning ------------------------------------------------------------------------

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"


def clean_lines(text: str) -> list[str]:
    """Lines of `text` without ANSI escapes or line ends; a final unterminated line is dropped."""
    text = _ANSI_RE.sub("", text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines.pop()
    return [line.rstrip("\r\n") for line in lines]


def _f(s: str) -> float | None:
    try:
        v = float(s)
    except ValueError:
        return None
    if v != v or v in (float("inf"), float("-inf")) or v < 0:
        return None
    return v


class _Steps:
    """Turns global step numbers into (step, span) windows: a line covers the steps since the
    previous line. A step number that does not increase means the log restarted (a second run
    appended to it); counting starts over."""

    def __init__(self) -> None:
        self.prev: int | None = None
        self.base = 0  # for logs that give only the step within the epoch
        self.last_in_epoch = 0

    def window(self, global_step: int, start: int | None = None) -> tuple[int, int] | None:
        """(global_step, span) for a line at `global_step`; `start` is the step before the
        first line's window when the log does not begin at step 1 (e.g. its epoch's start)."""
        if self.prev is not None and global_step <= self.prev:
            self.prev = None
        prev = self.prev if self.prev is not None else (start or 0)
        if global_step <= prev or global_step < 1:
            return None
        self.prev = global_step
        return global_step, global_step - prev

    def in_epoch(self, epoch: int, step: int, per_epoch: int) -> tuple[int, int] | None:
        """`window` for a line at step `step` of `per_epoch` in (1-based) epoch `epoch`."""
        start = (epoch - 1) * per_epoch
        return self.window(start + step, start)

    def continue_epoch(self, in_epoch: int) -> int:
        """Global step for a line that gives only its step within the epoch."""
        if in_epoch <= self.last_in_epoch:
            self.base = self.prev or 0
        self.last_in_epoch = in_epoch
        return self.base + in_epoch


# ---- per-format parsers -------------------------------------------------------------------
# Each takes the cleaned lines and keyword hints, returns samples in log order.

_MINDONE_RE = re.compile(
    r"epoch\s+(\d+),\s*step\s+(\d+),.*?(?:global_step\s+(\d+),\s*)?step_time\(ms\)\s+" + _NUM
)


def parse_mindone(lines: list[str], **_: object) -> list[StepSample]:
    """mindone EvalSaveCallback: `epoch E, step S, ..., global_step G, step_time(ms) T`.

    `step_time(ms)` averages the steps since the previous line (log_interval).
    """
    out: list[StepSample] = []
    steps = _Steps()
    for line in lines:
        m = _MINDONE_RE.search(line)
        if not m:
            continue
        ms = _f(m.group(4))
        if ms is None:
            continue
        in_epoch = int(m.group(2))
        glob = int(m.group(3)) if m.group(3) else None
        if glob is None:
            glob = steps.continue_epoch(in_epoch)
        start = glob - in_epoch if glob >= in_epoch else None
        w = steps.window(glob, start)
        if w:
            out.append(StepSample(w[0], ms / 1000.0, w[1]))
    return out


def _table_rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header fields and rows of a tab- (or whitespace-) separated result file."""
    header: list[str] | None = None
    rows: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        fields = [f.strip() for f in (line.split("\t") if "\t" in line else line.split())]
        if header is None:
            header = [f.lower() for f in fields]
            continue
        if [f.lower() for f in fields[:2]] == header[:2]:
            header = [f.lower() for f in fields]  # a second run appended its header
            rows.append([])  # marks a restart
            continue
        rows.append(fields)
    return header or [], rows


def _column(header: list[str], *names: str) -> int | None:
    for name in names:
        if name in header:
            return header.index(name)
    return None


def _result_rows(
    lines: list[str], key: tuple[str, ...], time: tuple[str, ...]
) -> Iterator[tuple[int, float] | None]:
    """(key, seconds) of each row of a result file: the first column of the header named in
    `key` (a step or epoch number) and the first named in `time`. Short rows, eval rows (first
    field `-`) and rows whose numbers do not convert are skipped; None marks a second run's header
    (a restart: `filter(None, ...)` where it does not matter). Nothing when the header lacks
    either column."""
    header, rows = _table_rows(lines)
    i_key = _column(header, *key)
    i_time = _column(header, *time)
    if i_key is None or i_time is None:
        return
    for fields in rows:
        if not fields:
            yield None
            continue
        if len(fields) <= max(i_key, i_time) or fields[0].startswith("-"):
            continue
        try:
            number = int(float(fields[i_key]))
        except (ValueError, OverflowError):  # "abc", or "inf" / "1e400" in a step cell
            continue
        seconds = _f(fields[i_time])
        if seconds is not None:
            yield number, seconds


def parse_mindone_result(lines: list[str], **_: object) -> list[StepSample]:
    """mindone `result.log`: `step\\tloss\\tlr\\ttrain_time(s)`.

    train_time(s) is the time since the previous row (not divided by log_interval), so each row
    covers the steps since the previous row.
    """
    out: list[StepSample] = []
    steps = _Steps()
    for row in _result_rows(lines, ("step",), ("train_time(s)", "train_time")):
        if row is None:
            steps = _Steps()
            continue
        step, total = row
        w = steps.window(step)
        if w:
            out.append(StepSample(w[0], total / w[1], w[1]))
    return out


def parse_perf_recorder(lines: list[str], **_: object) -> list[StepSample]:
    """PerfRecorderCallback `result.log`: one row per step, `train_time(s)` of that step alone.

    Eval rows (first field `-`) are skipped.
    """
    rows = _result_rows(lines, ("step",), ("train_time(s)", "train_time"))
    return [StepSample(step, sec, 1) for step, sec in filter(None, rows) if step >= 1]


_MINDCV_RE = re.compile(
    r"Epoch:\s*\[(\d+)/(\d+)\],\s*batch:\s*\[(\d+)/(\d+)\].*?\btime:\s*" + _NUM + r"\s*s\b"
)


def parse_mindcv(lines: list[str], **_: object) -> list[StepSample]:
    """mindcv StateMonitor: `Epoch: [e/E], batch: [b/N], loss: ..., time: T s`.

    T is accumulated since the previous printed line, so it is divided by the batches since
    then. A line covering a whole epoch (data-sink mode) is an epoch sample.
    """
    out: list[StepSample] = []
    steps = _Steps()
    for line in lines:
        m = _MINDCV_RE.search(line)
        if not m:
            continue
        epoch, batch, n = int(m.group(1)), int(m.group(3)), int(m.group(4))
        total = _f(m.group(5))
        if total is None or n < 1 or batch < 1:
            continue
        w = steps.in_epoch(epoch, batch, n)
        if not w:
            continue
        kind: Kind = "epoch" if (w[1] == n and batch == n and n > 1) else "step"
        out.append(StepSample(w[0], total / w[1], w[1], kind))
    return out


def _epoch_file(lines: list[str], steps_per_epoch: int | None, fmt: str) -> list[StepSample]:
    if not steps_per_epoch:
        raise LogFormatError(
            f"{fmt} logs give one time per epoch; set 'steps_per_epoch' in the benchmark"
        )
    n = steps_per_epoch
    rows = _result_rows(lines, ("epoch",), ("traintime", "train_time", "train_time(s)"))
    return [
        StepSample(epoch * n, total / n, n, "epoch")
        for epoch, total in filter(None, rows)
        if epoch >= 1
    ]


def parse_mindcv_result(
    lines: list[str], *, steps_per_epoch: int | None = None, **_: object
) -> list[StepSample]:
    """mindcv `result.log`: per-epoch rows, `TrainTime` in seconds (needs steps_per_epoch)."""
    return _epoch_file(lines, steps_per_epoch, "mindcv_result")


def parse_mindocr_result(
    lines: list[str], *, steps_per_epoch: int | None = None, **_: object
) -> list[StepSample]:
    """mindocr `result.log`: `Epoch\\tloss\\t...\\ttrain_time\\teval_time` per epoch, seconds."""
    return _epoch_file(lines, steps_per_epoch, "mindocr_result")


def _epoch_step(m: re.Match[str], steps: _Steps, unit: float) -> StepSample | None:
    """A line `epoch e/E, step s/S, ... T` matched with e, s, S, T in groups 1, 3, 4, 5: T / unit
    seconds, the mean per step since the previous line."""
    epoch, s, n = int(m.group(1)), int(m.group(3)), int(m.group(4))
    t = _f(m.group(5))
    if t is None or n < 1:
        return None
    w = steps.in_epoch(epoch, s, n)
    return StepSample(w[0], t / unit, w[1]) if w else None


_YOLO_STEP_RE = re.compile(
    r"Epoch\s+(\d+)/(\d+),\s*Step\s+(\d+)/(\d+),\s*step time:\s*" + _NUM + r"\s*ms"
)
_YOLO_ANY_STEP_RE = re.compile(r"Epoch\s+(\d+)/(\d+),\s*Step\s+(\d+)/(\d+)")
_YOLO_EPOCH_RE = re.compile(r"Epoch\s+(\d+)/(\d+),\s*epoch time:\s*" + _NUM + r"\s*min")


def parse_mindyolo(lines: list[str], **_: object) -> list[StepSample]:
    """mindyolo: `Epoch e/E, Step s/S, step time: T ms` (mean over log_interval steps), and
    `Epoch e/E, epoch time: M min.` per epoch (the only timing in data-sink mode)."""
    out: list[StepSample] = []
    steps = _Steps()
    per_epoch: int | None = None
    for line in lines:
        m = _YOLO_STEP_RE.search(line)
        if m:
            per_epoch = int(m.group(4))
            if sample := _epoch_step(m, steps, 1000.0):
                out.append(sample)
            continue
        m = _YOLO_EPOCH_RE.search(line)
        if m:
            minutes = _f(m.group(3))
            if minutes is None or not per_epoch:
                continue
            epoch = int(m.group(1))
            out.append(
                StepSample(epoch * per_epoch, minutes * 60.0 / per_epoch, per_epoch, "epoch")
            )
            continue
        m = _YOLO_ANY_STEP_RE.search(line)
        if m:
            per_epoch = int(m.group(4)) or per_epoch
    return out


_OCR_STEP_RE = re.compile(
    r"epoch:\s*\[(\d+)/(\d+)\]\s*step:\s*\[(\d+)/(\d+)\].*?per step time:\s*" + _NUM + r"\s*ms"
)
_OCR_EPOCH_RE = re.compile(
    r"epoch:\s*\[(\d+)/(\d+)\],.*?epoch time:\s*"
    + _NUM
    + r"\s*s,\s*per step time:\s*"
    + _NUM
    + r"\s*ms"
)


def parse_mindocr(lines: list[str], **_: object) -> list[StepSample]:
    """mindocr: `epoch: [e/E] step: [s/S], ..., per step time: T ms` (mean over log_interval),
    and the epoch line `epoch: [e/E], ..., epoch time: X s, per step time: T ms`."""
    out: list[StepSample] = []
    steps = _Steps()
    for line in lines:
        m = _OCR_STEP_RE.search(line)
        if m:
            if sample := _epoch_step(m, steps, 1000.0):
                out.append(sample)
            continue
        m = _OCR_EPOCH_RE.search(line)
        if m:
            epoch_s, ms = _f(m.group(3)), _f(m.group(4))
            if not epoch_s or not ms:
                continue
            n = max(1, round(epoch_s * 1000.0 / ms))
            out.append(StepSample(int(m.group(1)) * n, epoch_s / n, n, "epoch"))
    return out


_TM_RE = re.compile(
    r"epoch time:\s*" + _NUM + r"\s*ms,\s*per step time:\s*" + _NUM + r"\s*ms", re.I
)


def parse_timemonitor(lines: list[str], **_: object) -> list[StepSample]:
    """MindSpore TimeMonitor: `Train epoch time: X ms, per step time: Y ms`, one line per epoch.

    The number of steps in the epoch is X / Y.
    """
    out: list[StepSample] = []
    glob = 0
    for line in lines:
        m = _TM_RE.search(line)
        if not m:
            continue
        epoch_ms, ms = _f(m.group(1)), _f(m.group(2))
        if not epoch_ms or not ms:
            continue
        n = max(1, round(epoch_ms / ms))
        glob += n
        out.append(StepSample(glob, epoch_ms / n / 1000.0, n, "epoch"))
    return out


_AUDIO_RE = re.compile(
    r"Epoch:\s*\[(\d+)/(\d+)\],\s*Step:\s*\[(\d+)/(\d+)\],\s*Step Time:\s*" + _NUM + r"\s*sec"
)


def parse_mindaudio(lines: list[str], **_: object) -> list[StepSample]:
    """mindaudio TimeMonitor: `[Train] Epoch: [e/E], Step: [s/S], Step Time: T sec, ...`.

    When lines are more than one step apart, T is taken as the mean of the steps since the
    previous line.
    """
    out: list[StepSample] = []
    steps = _Steps()
    for line in lines:
        m = _AUDIO_RE.search(line)
        if m and (sample := _epoch_step(m, steps, 1.0)):
            out.append(sample)
    return out


def parse_regex(lines: list[str], *, regex: str | None = None, **_: object) -> list[StepSample]:
    """User regex with a named group `ms` or `s`, and optionally `step` (global step number)."""
    if not regex:
        raise LogFormatError("log_format 'regex' needs a 'regex' with a named group ms or s")
    try:
        pattern = re.compile(regex)
    except re.error as exc:
        raise LogFormatError(f"invalid regex: {exc}") from None
    unit = 1000.0 if "ms" in pattern.groupindex else 1.0
    group = "ms" if unit == 1000.0 else "s"
    has_step = "step" in pattern.groupindex
    out: list[StepSample] = []
    steps = _Steps()
    glob = 0
    for line in lines:
        m = pattern.search(line)
        if not m or m.group(group) is None:
            continue
        v = _f(m.group(group))
        if v is None:
            continue
        if has_step and m.group("step"):
            try:
                w = steps.window(int(m.group("step")))
            except ValueError:
                continue
            if w:
                out.append(StepSample(w[0], v / unit, w[1]))
        else:
            glob += 1
            out.append(StepSample(glob, v / unit, 1))
    return out


Parser = Callable[..., list[StepSample]]

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


# ---- detection ----------------------------------------------------------------------------

# Line signatures, most specific first (earlier wins ties).
_SIGNATURES: list[tuple[str, re.Pattern[str]]] = [
    ("mindone", re.compile(r"step_time\(ms\)\s+[0-9]")),
    ("mindcv", _MINDCV_RE),
    ("mindyolo", re.compile(r"Epoch\s+\d+/\d+,\s*(?:Step\s+\d+/\d+,\s*step time:|epoch time:)")),
    ("mindocr", re.compile(r"epoch:\s*\[\d+/\d+\].*per step time:\s*[0-9.]+\s*ms")),
    ("mindaudio", _AUDIO_RE),
    ("timemonitor", _TM_RE),
]


def _detect_table(lines: list[str]) -> str | None:
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return None
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


def detect_format(text: str) -> str | None:
    """Name of the format `text` is in (a key of `PARSERS`), or None if nothing matches."""
    lines = clean_lines(text if text.endswith(("\n", "\r")) else text + "\n")
    table = _detect_table(lines)
    if table:
        return table
    best, best_n = None, 0
    for name, pattern in _SIGNATURES:
        n = sum(1 for line in lines if pattern.search(line))
        if n > best_n:
            best, best_n = name, n
    return best


def parse_log(
    text: str,
    fmt: str = "auto",
    *,
    regex: str | None = None,
    steps_per_epoch: int | None = None,
) -> tuple[str | None, list[StepSample]]:
    """Parse `text` in format `fmt` (`auto` detects). Returns (format used, samples).

    The format is None (and samples empty) when `auto` recognises nothing.
    Raises `LogFormatError` for an unknown format or missing hints.
    """
    fmt = str(fmt)
    if fmt == "auto":
        detected = detect_format(text)
        if detected is None:
            return None, []
        fmt = detected
    parser = PARSERS.get(fmt)
    if parser is None:
        raise LogFormatError(f"unknown log format '{fmt}'; known: {', '.join(PARSERS)}")
    samples = parser(clean_lines(text), regex=regex, steps_per_epoch=steps_per_epoch)
    return fmt, samples
