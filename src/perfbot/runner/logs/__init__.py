"""Step-time parsers for the training logs of MindSpore model repositories.

Every parser turns log text into `StepSample`s: the *per-step* time in seconds of a run of `span`
consecutive steps ending at global step `step` (1-based). A line that reports one step has
span 1; a line that averages (or accumulates) a window of steps has the window's length as span
and the window's mean as `seconds`. Per-epoch lines (data-sink mode, TimeMonitor, result files)
are samples of kind `"epoch"` covering the whole epoch.

The formats are described in `shared/spec/LOG-FORMATS.md` and `docs/runner.md`. Parsers are
registered in `PARSERS` by format name; `detect_format` picks one for `auto`.

The package: `reader` (blocks of clean lines, `Samples`, step windows), `fastpath` (blocks read
at once), one module per format family (`mindone`, `mindcv`, `yolo_ocr`, `timemonitor`,
`regex`), `detect` (`auto`); here the registry and the whole log (`read_log`, `parse_log`).

Logs are **streamed**: a file is read in blocks of complete lines (`BLOCK` characters), never as
a whole, and each format's line pattern runs over a block at once (`findall`), so memory stays
bounded and time is close to one regular-expression pass. Lines longer than `MAX_LINE` are skipped,
at most `MAX_SAMPLES` samples are kept.

All parsers strip ANSI colour codes, accept LF/CRLF/CR line ends, skip lines they do not
understand, and ignore a last line that has no line end (it may have been cut mid-number).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .detect import (  # noqa: F401
    DETECT_PREFIX,
    _detect_blocks,
    detect_format,
)
from .mindcv import (
    _MINDCV_RE,
    parse_mindcv,
    parse_mindcv_result,
    parse_mindocr_result,
)
from .mindone import (  # noqa: F401
    _MINDONE_RE,
    _plain_run,
    _row_keys,
    parse_mindone,
    parse_mindone_result,
    parse_perf_recorder,
)
from .reader import (  # noqa: F401
    BLOCK,
    MAX_LINE,
    MAX_SAMPLES,
    Kind,
    LogFormatError,
    ParseInfo,
    Samples,
    Source,
    StepSample,
    _as_blocks,
    blocks,
    clean_lines,
    open_regular,
)
from .regex import (
    parse_regex,
)
from .timemonitor import (  # noqa: F401
    _AUDIO_RE,
    _TM_RE,
    TM_FIT_REFUSAL,
    parse_mindaudio,
    parse_timemonitor,
)
from .yolo_ocr import (
    _OCR_RE,
    _YOLO_RE,
    parse_mindocr,
    parse_mindyolo,
)

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
                mode = _MODE_RE.search(block)
                if mode:
                    self.pynative = mode.group(1) == "1"
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
