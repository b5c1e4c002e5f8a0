"""``--color auto|always|never`` for the text format: a stdout wrapper that colours each finding
line as it is written (so it works however the lines are produced). ``auto`` colours a terminal
unless ``NO_COLOR`` is set (https://no-color.org); ``FORCE_COLOR`` forces it."""

from __future__ import annotations

import os
import re
from typing import TextIO

_LINE = re.compile(r"^(?P<loc>[^\n]*?:\d+:) (?P<sev>error|warning|info) (?P<rule>PB\d{3}) ")
_SEV = {"error": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m"}
BOLD, DIM, RESET = "\033[1m", "\033[2m", "\033[0m"


def wanted(mode: str, stream: TextIO) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError, OSError):
        return False


def colour(line: str) -> str:
    m = _LINE.match(line)
    if m is None:
        return line
    sev = m["sev"]
    return (
        f"{BOLD}{m['loc']}{RESET} {_SEV[sev]}{sev}{RESET} {BOLD}{m['rule']}{RESET} "
        + line[m.end() :]
    )


class ColourWriter:
    """Wraps a text stream; complete lines are coloured, a partial line waits for its end."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        data = self._pending + text
        lines = data.split("\n")
        self._pending = lines.pop()
        for ln in lines:
            self.stream.write(colour(ln) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.stream.write(colour(self._pending))
            self._pending = ""
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)
