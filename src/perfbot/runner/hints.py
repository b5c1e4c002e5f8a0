"""What a log that gives no step times says about itself, for the message that tells the user
what to do: the rank logs an msrun console names, and MindSpore LossMonitor lines (which hold
no time). Read only on those failure paths, streamed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from perfbot.display import code_span, printable
from perfbot.runner.logs import blocks

__all__ = ["LOSS_ONLY", "LogHints", "msrun_refusal", "not_recognised", "rank_glob", "scan_hints"]

# msrun: "Start worker process with rank id:0, log file:msrun_log/worker_0.log. Environment ..."
_LOG_FILE_RE = re.compile(r"rank id:[ \t]*\d+, log file:[ \t]*([^\s,]{1,300}?)\.?(?=[\s,]|$)", re.M)
# MindSpore LossMonitor: "epoch: 1 step: 5, loss is 0.5195528864860535"
_LOSS_RE = re.compile(r"(?m:^)epoch: \d+ step: \d+, loss is ")
MAX_FILES = 64

LOSS_ONLY = (
    "the log has MindSpore LossMonitor lines (`epoch: E step: S, loss is X`) but no step "
    "times: LossMonitor prints no time, so no log format can measure it. Add a timing "
    "callback (`TimeMonitor()` beside `LossMonitor()`) or log with a per-step logger "
    "(see docs/runner.md, Log formats)"
)


@dataclass
class LogHints:
    rank_logs: list[str] = field(default_factory=list)  # as the console names them
    loss_lines: int = 0
    last_line: str | None = None  # the log's last line that is not blank (None: all blank)


LAST_LINE_CHARS = 120


def not_recognised(hints: LogHints) -> str:
    """The message for a log whose format was not recognised, with what the log holds: nothing,
    or its last line (a worker that could not start says so there, even when msrun exits 0)."""
    if hints.last_line is None:
        return (
            "the log is empty: the command wrote nothing there (did the training start? is "
            "`log:` the file it writes?)"
        )
    last = hints.last_line
    if len(last) > LAST_LINE_CHARS:
        last = last[: LAST_LINE_CHARS - 3] + "..."
    return (
        f"the log format was not recognised (its last line: {code_span(printable(last))}); "
        "if the training ran, set log_format (or a regex)"
    )


def scan_hints(path: Path) -> LogHints:
    out = LogHints()
    try:
        for block in blocks(path):
            if "log file:" in block:
                for m in _LOG_FILE_RE.finditer(block):
                    name = m.group(1)
                    if name not in out.rank_logs and len(out.rank_logs) < MAX_FILES:
                        out.rank_logs.append(name)
            if "loss is " in block:
                out.loss_lines += len(_LOSS_RE.findall(block))
            tail = block.rstrip()
            if tail:
                out.last_line = tail[tail.rfind("\n") + 1 :].strip()
    except (OSError, ValueError):
        pass
    return out


def rank_glob(files: list[str]) -> str | None:
    """`msrun_log/worker_*.log` for `msrun_log/worker_0.log`, `msrun_log/worker_1.log`."""
    shapes = set()
    for f in files:
        p = PurePosixPath(f)
        stem = p.stem.rstrip("0123456789")
        if not p.suffix or stem == p.stem:  # no extension, or no rank number before it
            return None
        shapes.add(str(p.with_name(f"{stem}*{p.suffix}")))
    return shapes.pop() if len(shapes) == 1 else None


def msrun_refusal(refusal: str, hints: LogHints) -> str:
    """The interleaved-ranks refusal, naming the rank logs the console names when it does."""
    pattern = rank_glob(hints.rank_logs) if hints.rank_logs else None
    if pattern is None:
        return refusal
    named = ", ".join(hints.rank_logs[:4]) + (", ..." if len(hints.rank_logs) > 4 else "")
    return refusal.replace(
        "e.g. log: msrun_log/worker_*.log",
        f"log: {pattern} (the console names {named}; relative to the benchmark's workdir)",
    )
