"""Which format a log is in (`auto`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .reader import (
    _NONBLANK,
    _NUM,
    Source,
    blocks,
)

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


DETECT_PREFIX = 1 << 20  # characters `auto` looks at before falling back to the whole log


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
