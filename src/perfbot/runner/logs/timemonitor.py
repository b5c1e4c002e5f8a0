"""MindSpore's TimeMonitor, and mindaudio's."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import accumulate, islice, repeat
from operator import truediv

from .fastpath import (
    _Anchored,
    _floats,
    _transpose,
    _windows,
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
            globs, spans, secs = w[:3]
            out.add_columns(globs, secs, spans, "step")
            steps.prev = globs[-1]
            out.cap()
            continue
        for e, s, n_, sec in found:
            n = int(n_)
            t = _f(sec)
            if t is None or n < 1:
                continue
            win = in_epoch(int(e), int(s), n)
            if win:
                out.add(win[0], t, win[1], "step")
        out.cap()
    return out
