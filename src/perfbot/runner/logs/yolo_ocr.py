"""mindyolo and mindocr: step lines whose windows restart at every epoch."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from operator import itemgetter

from .fastpath import (
    _G2,
    _Anchored,
    _around,
    _segments,
    _step_cols,
    _transpose,
)
from .reader import (
    _LOGGER,
    _NUM,
    ParseInfo,
    Samples,
    _as_blocks,
    _f,
    _Steps,
)

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
