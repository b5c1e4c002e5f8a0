"""Parse the text fixes made from the parse of the text they were made on (issue 11).

`perfbot fix` checks the new text after each pass (what it prints, and the proof that the fixes
settled). The new text differs from the old one only in the lines the fixes edited, so its
top-level block tokens are the old ones outside a window around those lines: this module
re-tokenises the window only, and builds the Document from the spliced tokens exactly as
:func:`perfbot.parse.parse_document` builds it from a full tokenisation. The result is equal to
``parse_document(new)``, field by field (``tests/test_reparse.py`` holds it to that).

Why the splice is the full tokenisation
---------------------------------------

mistune's top-level loop (:class:`perfbot.parse.blocks._SpanParser`) reads, at each step, the text
from its cursor on and one thing of what came before: whether the last token is a paragraph (a
paragraph goes on, a setext underline turns it into a heading, a type-7 HTML block may not
interrupt it). A *sync point* is where the loop has just read a run of blank lines: the cursor
is at a line start and the last token is a blank line. From a sync point the rest of the tokens
are therefore a function of the text from there on only (and of no token before it, which no
later step changes: every step that changes an earlier token needs a paragraph there).

- **Start.** The window starts at a sync point ``p`` of the old parse whose line and the two
  after it are unchanged (before the first edited line). Every step before ``p`` read at most
  up to the line after the one it ended on (a pipe table's header and delimiter are two lines),
  so the old tokens before ``p`` are the new text's too, and ``p`` is a sync point of both.
  A reference-link definition can look 999 characters ahead for its ``]``: a text holding
  ``]:`` falls back to a full parse.
- **End.** The new text is tokenised from ``p`` and stops at the first of its sync points that
  lies in the unchanged tail and was a sync point of the old parse too (same text from there
  on, both after blank lines): the old tokens from there on are the new ones, moved by the
  lines' offset. With no such point it runs to the end (a real parse of the rest: correct, just
  slower).
- **Otherwise a full parse:** no parse of the old Source is at hand (it is not the last one
  parsed), the old text has no sync point (no blank line, or mistune's stock loop ran: it
  records none), or ``]:`` appears.

The Document is then built from the spliced tokens by the same builder, which keeps two things
of the old build: a table row on an unchanged line at the same line number (a Row is a function
of the two), and what the walk over the kept tokens found (:class:`_Rewalk`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace

from .model import Document
from .parse import (
    MAX_TABLES,
    Parsed,
    _Builder,
    _tokens_of,
    build_document,
    last_parsed,
    parse_document,
)
from .parse.blocks import _MD, _joined, _RawTable, _SpanState
from .source import Source
from .spec import Spec

# lines at a window's start that must be unchanged: the sync point's own and the two after it
_MARGIN = 3


def parse_after(old: Source, new: Source, spec: Spec) -> Document:
    """``parse_document(new, spec)``, re-tokenising only around the lines where ``new`` differs
    from ``old`` when ``old`` is the Source parsed last (see the module's docstring)."""
    last = last_parsed()
    if last is None or last.source is not old:
        return parse_document(new, spec)

    def tokens_of(text: str, starts: Sequence[int]):  # -> parse.TokensOf's result
        got = _spliced(last, new.lines, text, starts)
        return got if got is not None else _tokens_of(text, starts)

    # the rows of the old tables: a row on an unchanged line at the same line number is the same
    rows = {(r.line, r.raw): r for t in last.doc.tables for r in t.lines} if last.doc else None
    return build_document(new, spec, tokens_of, rows)


def _spliced(last: Parsed, lines: list[str], text: str, starts: Sequence[int]):
    """The top-level tokens of ``text`` (whose lines are ``lines``, starting at ``starts``),
    their sync points, and a walk over them that reuses the old one's findings (see
    :class:`_Rewalk`), from ``last``; None when that cannot be shown to be right."""
    if not last.syncs or "]:" in last.text or "]:" in text:
        return None
    old_lines = last.source.lines
    n = min(len(old_lines), len(lines))
    a = 0  # the first line that differs (0-based)
    while a < n and old_lines[a] == lines[a]:
        a += 1
    k = 0  # lines equal at the end, not counting those of the common start
    while k < n - a and old_lines[-1 - k] == lines[-1 - k]:
        k += 1
    old_syncs = last.syncs
    cursors = [c for c, _ in old_syncs]
    # the window's start: the last old sync point p with lines p .. p+2 before line a
    i = bisect_right(cursors, last.starts[a - _MARGIN]) if a >= _MARGIN else 0
    p, ntok = old_syncs[i - 1] if i else (0, 0)
    tail_old = last.starts[len(old_lines) - k]  # the unchanged tail, in the old text
    delta = starts[len(lines) - k] - tail_old
    j = bisect_left(cursors, tail_old)
    state = _SpanState()
    state.process(text)
    state.cursor = p
    state.syncs = []
    state.stop_at = {c + delta: t for c, t in old_syncs[j:]}
    _MD.block.parse(state)
    window = _joined(state.tokens)
    head = ntok + len(window)
    tokens = last.tokens[:ntok] + window
    syncs = old_syncs[:i] + [(c, t + ntok) for c, t in state.syncs]
    if not state.stopped:
        return tokens, syncs, _Rewalk(last, p, ntok, len(window), None)
    stop = state.cursor
    cut = state.stop_at[stop]  # the old token count at the same point
    tokens += last.tokens[cut:] if not delta else [_moved(t, delta) for t in last.tokens[cut:]]
    syncs += [(c + delta, t - cut + head) for c, t in old_syncs if c + delta > stop]
    return tokens, syncs, _Rewalk(last, p, ntok, len(window), (stop - delta, stop))


class _Rewalk:
    """:meth:`perfbot.parse._Builder.walk` over spliced tokens, taking what the old walk found
    from the tokens kept instead of walking them again.

    The walk goes through the top-level tokens in order, and what it finds in one (headings,
    sentences, raw tables, HTML tables) lies on that token's lines and depends on the token
    and the text of those lines only, except a raw table's count of headings before it. So
    the old findings on the lines before ``p`` are the new ones there; the window's tokens
    are walked; and the old findings from the tail on are the new ones moved by the line
    offset (a raw table: by the offset, its heading count by the change in headings before
    it). An HTML table in the tail (its section is made when found) is walked again instead.
    """

    def __init__(
        self, last: Parsed, p: int, ntok: int, nwin: int, tail: tuple[int, int] | None
    ) -> None:
        self.last, self.p, self.ntok, self.nwin, self.tail = last, p, ntok, nwin, tail

    def __call__(self, b: _Builder, tokens: list[dict]) -> None:
        old = self.last.walked
        # an HTML table beyond MAX_TABLES is counted when walked (Document.unread_tables); an
        # HTML table's kind depends on the guide
        last = self.last
        if (
            old is None
            or len(old.html_tables) >= MAX_TABLES
            or not (last.spec is b.spec or last.spec == b.spec)
        ):
            b.walk(tokens, base=0, in_html=False)
            return
        doc = b.doc
        p, ntok, nwin = self.p, self.ntok, self.nwin
        line_p = bisect_right(self.last.starts, p)  # the window's first line (1-based)
        doc.headings.extend(h for h in old.headings if h.line < line_p)
        doc.sentences.extend(x for x in old.sentences if x.line < line_p)
        doc.html_tables.extend(x for x in old.html_tables if x.line < line_p)
        b.raw_tables.extend(x for x in old.raw_tables if x[0].start < p)
        tail = self.tail
        if tail is not None:
            c_old = tail[0]
            line_c = bisect_right(self.last.starts, c_old)
            if any(x.line >= line_c for x in old.html_tables):
                tail = None
        if tail is None:
            b.walk(tokens[ntok:], base=0, in_html=False)
            return
        b.walk(tokens[ntok : ntok + nwin], base=0, in_html=False)
        c_old, c_new = tail
        dl = bisect_right(b.starts, c_new) - line_c  # how far the tail's lines moved
        delta = c_new - c_old
        dh = len(doc.headings) - sum(1 for h in old.headings if h.line < line_c)
        for h in old.headings:
            if h.line >= line_c:
                doc.headings.append(replace(h, line=h.line + dl) if dl else h)
        for x in old.sentences:
            if x.line >= line_c:
                doc.sentences.append(replace(x, line=x.line + dl) if dl else x)
        for raw, nh, in_html in old.raw_tables:
            if raw.start >= c_old:
                if delta:
                    raw = _moved_raw(raw, delta)
                b.raw_tables.append((raw, nh + dh, in_html))


def _moved(tok: dict, delta: int) -> dict:
    """A top-level token of the old text, at its place in the new one (a copy)."""
    tok = dict(tok)
    span = tok.get("_span")
    if span is not None:
        tok["_span"] = (span[0] + delta, span[1] + delta)
    raw = tok.get("_raw")
    if isinstance(raw, _RawTable):
        tok["_raw"] = _moved_raw(raw, delta)
    return tok


def _moved_raw(raw: _RawTable, delta: int) -> _RawTable:
    rows = [o + delta for o in raw.rows]
    return replace(raw, start=raw.start + delta, end=raw.end + delta, rows=rows)
