"""Text safe to print: one line, whatever a file name or message holds (the reporters, the CLI and
:class:`perfbot.source.FileError` use it; it imports nothing of perfbot)."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(s: str) -> str:
    """``s`` on one line for a terminal or a CI log: control characters (newlines included)
    shown as escapes (``\\n``, ``\\x1b``), so a file name or message cannot start a line of
    its own, such as a forged ``::error`` workflow command, or move the cursor."""

    def esc(m: re.Match[str]) -> str:
        c = m.group()
        return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")

    return _CONTROL.sub(esc, s)


def display_path(path: str) -> str:
    """A path at the start of an output line: :func:`printable`, and ``./`` in front of one that
    would read as a workflow command (``::error ...``, ``##[error]``; the runner ignores leading
    blanks)."""
    p = printable(path)
    if p.lstrip().startswith(("::", "##[")):
        p = "./" + p
    return p


_BACKTICKS = re.compile(r"`+")


def code_span(t: str) -> str:
    """``t`` as one CommonMark code span that shows exactly ``t``: fenced with more backticks
    than its longest run of them, and padded with a space where a backtick or a space at an end
    would join the fence or be stripped (CommonMark strips one space from each side when both
    are there). An empty span is two spaces of code."""
    longest = max((len(m) for m in _BACKTICKS.findall(t)), default=0)
    fence = "`" * (longest + 1)
    if not t:
        pad = " "
    elif not t.strip(" "):
        pad = ""
    else:
        pad = " " if t.startswith(("`", " ")) or t.endswith(("`", " ")) else ""
    return f"{fence}{pad}{t}{pad}{fence}"


_LOG_LINE = re.compile(r"(\r\n|\r|\n)")


def no_command(text: str) -> str:
    """``text`` for a job log (stdout or stderr of a step) such that GitHub's runner reads none of
    its lines as a workflow command: a line that starts, after blanks, with ``::`` or ``##[``
    gets a space after its first character. Lines end at LF, CR or CRLF, as the runner reads
    them."""
    parts = _LOG_LINE.split(text)
    for i in range(0, len(parts), 2):
        line = parts[i]
        stripped = line.lstrip()
        if stripped.startswith(("::", "##[")):
            cut = len(line) - len(stripped) + 1
            parts[i] = line[:cut] + " " + line[cut:]
    return "".join(parts)
