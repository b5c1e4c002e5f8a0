"""A benchmark's own regular expression."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .mindone import (
    _rows,
)
from .reader import (
    LogFormatError,
    ParseInfo,
    Samples,
    _f,
    _Steps,
)


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
