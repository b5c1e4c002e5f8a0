"""Text that goes into GitHub comments: suggestion blocks, hidden fingerprints, length limits.

* :func:`suggestion_block` wraps replacement lines in a ```suggestion fence that nothing inside can
  close (reviewdog's ``GetCodeFenceLength`` idea).
* :func:`fingerprint` names a finding by where it is in the document's *structure* (file, table,
  row, rule), never by line number, so a rebase that moves a table does not make perfbot post the
  same comment again (the weak spot of reviewdog's fingerprint). :func:`marker` hides it in a
  comment body and :func:`find_markers` reads it back (both from :mod:`.markers`).
* :func:`clamp_body` keeps a body under GitHub's 65,536-character limit without leaving a code
  fence open, and keeps perfbot's markers.

Pure string functions: no network, no PyGithub.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..fingerprint import fingerprint
from .markdown import fence_length
from .markers import FP as _MARKER
from .markers import find_fps as find_markers
from .markers import fp as marker

__all__ = [
    "MAX_BODY",
    "clamp_body",
    "fence_length",
    "find_markers",
    "fingerprint",
    "marker",
    "suggestion_block",
]

MAX_BODY = 65536
"""GitHub's limit on a comment, review or review comment body, in characters."""

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_DETAILS_OPEN = re.compile(r"<details(?=[\s>])", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)
# CommonMark's HTML block of type 6 (the block-level tags a body can hold): it starts on such a
# line and runs to the next blank line; a fence line inside it is HTML text, not a fence.
_HTML_BLOCK_6 = re.compile(
    r"^ {0,3}</?(?:details|summary|div|p|table|thead|tbody|tr|td|th|ul|ol|li|dl|dt|dd|h[1-6]"
    r"|blockquote|pre|hr|section|article|nav|header|footer|center|caption|colgroup|col)"
    r"(?:[ \t]|/?>|$)",
    re.IGNORECASE,
)


def line_comment(path: str, start: int, end: int, body: str) -> dict[str, object]:
    """A review comment on lines ``start``..``end`` of ``path`` at the head (one line when they
    are the same), in the shape the reviews API takes."""
    c: dict[str, object] = {"path": path, "line": end, "side": "RIGHT"}
    if start < end:
        c.update(start_line=start, start_side="RIGHT")
    c["body"] = body
    return c


def suggestion_block(text: str) -> str:
    """A GitHub ```suggestion block that replaces the commented lines with ``text``.

    ``text`` is the replacement lines joined by newlines; one trailing line ending is dropped
    (a block ending in an empty line would add a blank line). ``""`` gives an empty block, which
    deletes the commented lines. The fence is longer than any run of backticks or tildes in
    ``text``; the text itself is kept byte for byte (it is what a click commits).
    """
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith("\n"):
        text = text[:-1]
    fence = "`" * fence_length(text)
    if not text:
        return f"{fence}suggestion\n{fence}"
    return f"{fence}suggestion\n{text}\n{fence}"


@dataclass
class _Scan:
    """State of a Markdown body at the end of a prefix: an open fence and unclosed <details>."""

    fence: str = ""  # the opening fence run ("```", "~~~~") if a fence is open
    fence_info: str = ""
    fence_start: int = 0  # offset of the opening fence line
    details: int = 0  # <details> opened and not yet closed, outside fences
    html_block: bool = False  # inside an HTML block (ends at a blank line)


def _scan(text: str) -> _Scan:
    st = _Scan()
    pos = 0
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        if st.fence:
            stripped = content.lstrip(" ")
            if (
                len(content) - len(stripped) <= 3
                and stripped.rstrip(" \t")
                and set(stripped.rstrip(" \t")) == {st.fence[0]}
                and len(stripped.rstrip(" \t")) >= len(st.fence)
            ):
                st.fence = ""
        else:
            if st.html_block and not content.strip():
                st.html_block = False
            elif not st.html_block and _HTML_BLOCK_6.match(content):
                st.html_block = True
            m = None if st.html_block else _FENCE_OPEN.match(content)
            if m and not (m[1][0] == "`" and "`" in m[2]):
                st.fence, st.fence_info, st.fence_start = m[1], m[2].strip(), pos
            else:
                st.details += len(_DETAILS_OPEN.findall(content))
                st.details -= len(_DETAILS_CLOSE.findall(content))
                st.details = max(st.details, 0)
        pos += len(line)
    return st


def _note(omitted: int) -> str:
    return (
        f"> [!NOTE]\n> This comment was cut to fit GitHub's length limit: "
        f"{omitted} characters were left out.\n"
    )


def _cut_point(body: str, budget: int) -> int:
    """Where to cut ``body`` to keep at most ``budget`` characters: after a line if possible,
    never inside an HTML comment."""
    cut = budget
    nl = body.rfind("\n", 0, cut)
    if nl >= budget // 2:
        cut = nl + 1
    opened = body.rfind("<!--", 0, cut)
    if opened != -1 and body.rfind("-->", opened, cut) == -1:
        cut = opened
    return cut


def clamp_body(body: str, limit: int = MAX_BODY) -> str:
    """``body`` if it fits in ``limit`` characters, else a shortened body that still renders.

    The cut falls after a whole line where it can, and never inside an HTML comment. A code fence
    left open by the cut is closed, except a ```suggestion block: half a suggestion would suggest
    wrong text, so the whole block is dropped. Unclosed ``<details>`` are closed, a note says how
    much was left out, and the perfbot markers of the dropped part are appended, so
    :func:`find_markers` still sees them (unless the markers alone do not fit).
    The result is never longer than ``limit``; with a limit too small for the note it is just
    the first ``limit`` characters.
    """
    if len(body) <= limit:
        return body
    fps = list(dict.fromkeys(_MARKER.findall(body)))
    for keep in (fps, []):
        out = _clamp(body, limit, keep)
        if out is not None:
            return out
    return body[:limit]


def _clamp(body: str, limit: int, fps: list[str]) -> str | None:
    reserve = (
        len(_note(len(body)))
        + 2
        + sum(len(marker(fp)) for fp in fps)
        + fence_length(body)
        + 2
        + len(_DETAILS_OPEN.findall(body)) * len("</details>\n")
    )
    budget = limit - reserve
    for _ in range(4):
        if budget <= 0:
            return None
        kept = body[: _cut_point(body, budget)]
        st = _scan(kept)
        closer = ""
        if st.fence:
            if st.fence_info.split(" ", 1)[0].lower() == "suggestion":
                kept = kept[: st.fence_start]
                st = _scan(kept)
            else:
                closer = ("" if kept.endswith("\n") else "\n") + st.fence + "\n"
        if st.html_block:  # end the HTML block, or the note would be HTML text
            closer += "" if (kept + closer).endswith("\n") else "\n"
            closer += "\n"
        closer += "</details>\n" * st.details
        present = set(_MARKER.findall(kept))
        tail = "".join(marker(fp) for fp in fps if fp not in present)
        head = kept + closer
        sep = "" if not head else "\n" if head.endswith("\n") else "\n\n"
        out = head + sep + _note(len(body) - len(kept)) + tail
        if len(out) <= limit:
            return out
        budget -= len(out) - limit
    return None
