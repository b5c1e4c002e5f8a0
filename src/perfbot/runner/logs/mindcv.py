"""mindcv: StateMonitor step lines, and the per-epoch result files (mindcv, mindocr)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import eq

from .fastpath import (
    _Anchored,
    _per_step,
    _transpose,
    _windows,
)
from .mindone import (
    _result_rows,
    _Rows,
)
from .reader import (
    _LOGGER,
    _NUM,
    LogFormatError,
    ParseInfo,
    Samples,
    _as_blocks,
    _f,
    _Steps,
)

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
            win = in_epoch(int(e), batch, n)
            if not win:
                continue
            kind = "epoch" if (win[1] == n and batch == n and n > 1) else "step"
            out.add(win[0], total / win[1], win[1], kind)
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
        pairs = zip(row.keys, row.secs, strict=True) if isinstance(row, _Rows) else (row,)
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
