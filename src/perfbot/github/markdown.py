"""Untrusted text in what perfbot posts on GitHub: the one path every fragment goes through.

README cells, finding messages (the findings file of ``perfbot post`` is attacker text in full),
file names, ``.perfbot.yml`` values, benchmark names, log lines and GitHub's own error messages
all end up in comments, review bodies, replies and job summaries written by perfbot's account.
Each fragment goes through :func:`inert`, which makes it render as exactly its text in GitHub
Markdown (cmark-gfm with the table, autolink, strikethrough and tagfilter extensions, then
GitHub's mention and reference filters):

* no raw HTML and no ``<!--`` in the body (so nothing can forge perfbot's hidden markers, which
  are HTML comments): ``<``, ``>`` and ``&`` become entities in text, and ``<!--`` inside code
  becomes ``<!-`` U+200D ``-``;
* no Markdown construct: every other ASCII punctuation character is backslash-escaped in text
  (emphasis, links, images, strikethrough, tables, headings, lists, code spans), and a code span
  or block gets a fence longer than any backtick (or tilde) run inside it (CommonMark pairs a
  code span only with a closing run of exactly the same length);
* no mention, team mention, e-mail autolink or issue reference: GitHub finds ``@name``,
  ``#123`` and ``GH-123`` in the *rendered* text, where backslashes are gone, so an ``@`` or a
  ``#`` before a name character (and the ``-`` of ``GH-1``) gets a U+200D ZERO WIDTH JOINER after
  it (code is left alone by GitHub);
* no bare-URL autolink: ``www.`` and ``scheme://`` are broken by the escapes (cmark-gfm matches
  them in the source text);
* one line: whitespace runs (newlines included) become one space, other invisible or control
  characters become U+FFFD, so nothing breaks out of a table cell, a list item or a heading.

Three shapes: text (:func:`inert`), a code span (``inert(x, code=True)``), a table cell
(``cell=True``, with either). :func:`message` is for finding messages, which quote cells in code
spans: it splits the text the way CommonMark does and passes each part through :func:`inert`.
:func:`block` is a fenced block of untrusted lines; :func:`fence_length` is shared with
``suggest.suggestion_block`` (a suggestion keeps the README's exact bytes; only its fence grows).

Pure string functions: no network, no PyGithub.
"""

from __future__ import annotations

import re

from perfbot.display import code_span, no_command

__all__ = [
    "ZWJ",
    "block",
    "break_comments",
    "code",
    "fence_length",
    "inert",
    "message",
    "no_command",
]

ZWJ = "\u200d"
# Markdown inline syntax anywhere in a line: escapes, code, emphasis, strikethrough, links and
# images (an unescaped "(" or "!" is inert without "["), table pipes, GitHub's $math$.
_ALWAYS = frozenset("\\`*_~[]|$")
_ENTITY = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_FENCE_RUN = re.compile(r"`+|~+")
_BACKTICKS = re.compile(r"`+")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")
_LIST_NUMBER = re.compile(r"(\d{1,9})([.)])")


def _one_line(s: object) -> str:
    """``s`` as one line: whitespace runs -> one space, other non-printables -> U+FFFD."""
    t = " ".join(str(s).split())
    if t.isprintable():
        return t
    return "".join(c if c.isprintable() else "\ufffd" for c in t)


def _shorten(t: str, limit: int | None) -> str:
    if limit is None or len(t) <= limit:
        return t
    return t[: max(limit - 1, 0)] + "…"


def break_comments(s: str) -> str:
    """``s`` with every ``<!--`` broken (``<!-`` U+200D ``-``): text shown verbatim (code) that
    still must not open an HTML comment in the raw body, where perfbot's markers live."""
    while "<!--" in s:
        s = s.replace("<!--", f"<!-{ZWJ}-")
    return s


def _escape_text(t: str, line_start: bool = True) -> str:
    out: list[str] = []
    n = len(t)
    m = _LIST_NUMBER.match(t) if line_start else None
    if m:  # "1." or "1)" at the start of a line would open an ordered list
        out.append(m[1] + "\\" + m[2])
    for i in range(m.end() if m else 0, n):
        c = t[i]
        nxt = t[i + 1] if i + 1 < n else ""
        if c in _ENTITY:
            out.append(_ENTITY[c])
        elif c in "@#\uff20\uff03":
            # GitHub's mention, team mention, e-mail and issue-reference filters read the
            # rendered text, where a backslash escape is gone: break the pair instead.
            out.append(("\\" if c == "#" else "") + c)
            # an "@" before anything but a space may start an e-mail autolink's domain
            # ("_@.www.x" links too), so it is always broken there; a "#" only before a name
            at = c in "@\uff20" and nxt not in ("", " ")
            if at or not nxt or _NAME_CHAR.match(nxt) or not nxt.isascii():
                out.append(ZWJ)
        elif c == "-" and t[max(0, i - 2) : i].upper() == "GH" and nxt.isdigit():
            out.append("-" + ZWJ)  # GitHub links GH-123 to an issue, like #123
        elif (
            c in _ALWAYS
            or (i == 0 and line_start and c in "#-+=")  # a heading, list or rule at a line start
            or (c == ":" and nxt == "/")  # scheme:// autolinks
            or (c == "." and t[max(0, i - 3) : i].lower() == "www")  # www. autolinks
        ):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def _code_span(t: str) -> str:
    return code_span(break_comments(t))


def inert(s: object, *, code: bool = False, cell: bool = False, limit: int | None = None) -> str:
    """Untrusted ``s`` as Markdown that GitHub renders as exactly its text (on one line).

    ``code``: as a code span (monospace, the text verbatim but for ``<!--``); else as escaped
    text. ``cell``: it goes into a table cell (``|`` escaped as GFM tables need, in code too).
    ``limit``: at most this many characters of ``s`` are kept (then ``…``).
    """
    return _inert(_shorten(_one_line(s), limit), code=code, cell=cell)


def _inert(t: str, *, code: bool, cell: bool, line_start: bool = True) -> str:
    out = _code_span(t) if code else _escape_text(t, line_start)
    if cell and code:
        out = out.replace("|", "\\|")  # a text cell's | is already \| (and \\ stays \\)
    return out


def code(s: object, limit: int | None = None, *, cell: bool = False) -> str:
    """``inert(s, code=True, ...)``: an untrusted fragment as an inline code span."""
    return inert(s, code=True, cell=cell, limit=limit)


def _split_code_spans(t: str) -> list[tuple[bool, str]]:
    """``t`` cut into (is_code, text) parts the way CommonMark reads code spans: a backtick run
    opens a span closed by the next run of exactly the same length; a run with no match is text.
    The span's content loses one space on each side when it has both (and is not all spaces)."""
    parts: list[tuple[bool, str]] = []
    runs = list(_BACKTICKS.finditer(t))
    pos = 0
    text_from = 0
    i = 0
    while i < len(runs):
        m = runs[i]
        if m.start() < pos:
            i += 1
            continue
        close = next(
            (j for j in range(i + 1, len(runs)) if len(runs[j][0]) == len(m[0])),
            None,
        )
        if close is None:
            i += 1
            continue
        if m.start() > text_from:
            parts.append((False, t[text_from : m.start()]))
        content = t[m.end() : runs[close].start()]
        if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip():
            content = content[1:-1]
        parts.append((True, content))
        pos = text_from = runs[close].end()
        i = close + 1
    if text_from < len(t):
        parts.append((False, t[text_from:]))
    return parts


def message(s: object, *, cell: bool = False, limit: int | None = None) -> str:
    """A finding's message (or any text that quotes values in code spans) as inert Markdown on
    one line: its code spans stay code spans (each re-fenced by :func:`inert`), the rest is
    escaped text. Safe for any input: the findings file of ``perfbot post`` is untrusted."""
    t = _shorten(_one_line(s), limit)
    return "".join(
        _inert(part, code=is_code, cell=cell, line_start=k == 0)
        for k, (is_code, part) in enumerate(_split_code_spans(t))
    )


def fence_length(text: str) -> int:
    """The length of a code fence that no backtick or tilde run in ``text`` can close (>= 3)."""
    longest = max((len(m) for m in _FENCE_RUN.findall(text)), default=0)
    return max(3, longest + 1)


def block(text: str, info: str = "") -> str:
    """Untrusted lines as a fenced code block: shown verbatim (tabs kept, other control
    characters as U+FFFD, ``<!--`` broken), never closed early. ``info`` is perfbot's own."""
    lines = [
        "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in line.removesuffix("\r"))
        for line in text.split("\n")
    ]
    body = break_comments("\n".join(lines))
    fence = "`" * fence_length(body)
    return f"{fence}{info}\n{body}\n{fence}"
