"""The block structure of a README, from mistune 3 with source positions.

mistune finds the block structure (fences, indented code, HTML blocks and comments, headings,
paragraphs). It gives no positions, so :class:`_SpanParser` records each top-level block's source
offsets as the block parser produces it. Pipe tables are parsed by perfbot's own block rule
(:func:`_parse_pipe_table`), registered in the same parser: unlike mistune's table plugin it keeps
tables whose rows have too many or too few cells (a finding, not a silent paragraph).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

import mistune
from mistune.block_parser import BlockParser
from mistune.core import BlockState

from ..blockscan import RuleMatcher, search_lines
from .tables import MAX_TABLE_ROWS

# A pipe-table header line followed by a delimiter row (GFM): the delimiter has a '-' and a '|'.
# Linear on any text: the header splits at its *first* pipe only (``[^\n|]*``), so a line of
# pipes is not tried at every split; the delimiter is matched without lookaheads, and
# :func:`_parse_pipe_table` checks that it holds a '-' and a '|'.
_TABLE = r"^ {0,3}(?P<pt_head>[^\n|]*\|[^\n]*)\n(?P<pt_delim>[ \t]{0,3}[|: \t-]+)(?:\n|$)"


@dataclass(slots=True)
class _RawTable:
    start: int  # offset of the header line
    end: int  # offset after the last row
    rows: list[int]  # offsets of each line (header, delimiter, body rows), at most the first
    # MAX_TABLE_ROWS + 3 (a table longer than that is not read: see MAX_TABLE_ROWS)
    lines: int = 0  # how many lines the table has


class _SpanState(BlockState):
    """BlockState that records the source span of each paragraph it adds.

    A paragraph's lines are kept as a list of pieces (``_parts``) while it grows and joined
    once by :func:`_joined`: mistune's own ``last["text"] += text`` copies the whole paragraph
    for each line it adds, quadratic on a paragraph of many lines (133,000 lines of ``| : |``,
    800 kB, took 1.5 s, 15x an ordinary README of that size). Nothing reads a paragraph's text
    while the block parse runs (a setext underline only renames the token).

    With ``syncs`` (a list: the top-level parse of a document) the fast loop records there
    ``(cursor, token count)`` after each run of blank lines: the points :mod:`perfbot.reparse`
    may restart the parse at. With ``stop_at`` it stops at the first such point that is a key
    there (``stopped`` is then True and nothing after it is parsed).
    """

    syncs: list[tuple[int, int]] | None = None
    stop_at: dict[int, int] | None = None
    stopped = False

    def add_paragraph(self, text: str) -> None:
        last = self.last_token()
        if last is not None and last["type"] == "paragraph":
            parts = last.get("_parts")
            if parts is None:
                parts = last["_parts"] = [last["text"]]
            parts.append(text)
            span = last.get("_span")
            start = span[0] if span is not None else self.cursor
            last["_span"] = (start, self.cursor + len(text))
        else:
            tok = {
                "type": "paragraph",
                "text": text,
                "_span": (self.cursor, self.cursor + len(text)),
            }
            self.tokens.append(tok)

    def append_paragraph(self) -> int | None:
        last = self.last_token()
        if last is not None and last["type"] == "paragraph":
            pos = self.find_line_end()
            parts = last.get("_parts")
            if parts is None:
                parts = last["_parts"] = [last["text"]]
            parts.append(self.get_text(pos))
            return pos
        return None


def _joined(tokens: list[dict]) -> list[dict]:
    """``tokens`` (and the children of block quotes, in place) with each paragraph's pieces
    joined into its ``text``, as mistune would have it."""
    for tok in tokens:
        parts = tok.pop("_parts", None)
        if parts is not None:
            tok["text"] = "".join(parts)
        children = tok.get("children")
        if children:
            _joined(children)
    return tokens


# The loop in :meth:`_SpanParser.parse` is mistune's ``BlockParser.parse`` of these versions (the
# lock pins one); with any other the stock loop runs, slower and the same.
_FAST_LOOP_VERSIONS = ("3.4.0",)
_FAST_LOOP = getattr(mistune, "__version__", "") in _FAST_LOOP_VERSIONS


_STOCK_BLANK_LINE = BlockParser.parse_blank_line
_MATCHERS: dict[re.Pattern[str], RuleMatcher] = {}  # per rule pattern (mistune caches those)


class _SpanParser(BlockParser):
    """BlockParser hook: every token a rule appends gets ``_span`` = (start, end) offsets.

    :meth:`parse` is mistune 3.4's ``BlockParser.parse`` loop, made faster without changing a
    token (``tests/test_parse_differential.py`` holds it to the stock loop): the search for the
    next block looks at line starts only (when every rule starts with ``^``, read from the
    rules' patterns); at a line only the rules that can start with its first character are
    tried (:class:`~perfbot.blockscan.RuleMatcher`); a line that does not start with a space or
    a tab is not tried as indented code (``_is_indent_code_line`` needs one there); and a blank
    line is recorded in the loop, as ``parse_blank_line`` and :meth:`parse_method` would.
    """

    state_cls = _SpanState

    def parse_method(self, m: re.Match[str], state: BlockState) -> int | None:
        tokens = state.tokens
        n = len(tokens)
        start = m.start()
        end = self._methods[m.lastgroup](m, state)  # type: ignore[index]
        if len(tokens) > n:
            stop = end if end else state.find_line_end_at(start)
            for tok in tokens[n:]:
                if "_span" not in tok:
                    tok["_span"] = (start, stop)
        return end

    def parse(self, state: BlockState, rules: list[str] | None = None) -> None:
        if not _FAST_LOOP:
            return super().parse(state, rules)
        if rules is None:
            rules = self.rules
        sc = self.compile_sc(rules)
        matcher = _MATCHERS.get(sc)
        if matcher is None:
            matcher = _MATCHERS[sc] = RuleMatcher(sc, rules, self.specification)
        search = search_lines if matcher.anchored else None
        src = state.src
        cursor_max = state.cursor_max
        indent = "indent_code" in rules
        match = matcher.match
        blank = getattr(self._methods.get("blank_line"), "__func__", None) is _STOCK_BLANK_LINE
        while state.cursor < cursor_max:
            cursor = state.cursor
            if indent and src[cursor] in " \t":
                end_pos = self._parse_indent_code_fast(state)
                if end_pos is not None:
                    state.cursor = end_pos
                    continue

            m = match(src, cursor)
            if not m and self._parse_plain_paragraph(state, matcher):  # type: ignore[arg-type]
                continue

            if not m:
                m = search(matcher, src, cursor) if search else sc.search(src, cursor)
            if not m:
                break

            end_pos = m.start()
            if end_pos > cursor:
                state.add_paragraph(src[cursor:end_pos])
                state.cursor = end_pos

            if blank and m.lastgroup == "blank_line":
                # mistune's parse_blank_line and the span hook, inlined (the commonest token)
                end_pos2 = m.end()
                tok: dict[str, Any] = (
                    {"type": "blank_line", "newlines": m.group(0).count("\n")}
                    if state.cursor == 0
                    else {"type": "blank_line"}
                )
                tok["_span"] = (state.cursor, end_pos2)
                state.append_token(tok)
                span_state = cast(_SpanState, state)  # block_tokens parses with one
                syncs = span_state.syncs
                if syncs is not None:
                    syncs.append((end_pos2, len(state.tokens)))
                    if span_state.stop_at is not None and end_pos2 in span_state.stop_at:
                        state.cursor = end_pos2
                        span_state.stopped = True
                        return None
            else:
                end_pos2 = self.parse_method(m, state) or 0  # None: no token there, as 0
            if end_pos2:
                state.cursor = end_pos2
            else:
                end_pos3 = state.find_line_end()
                state.add_paragraph(state.get_text(end_pos3))
                state.cursor = end_pos3

        if state.cursor < cursor_max:
            state.add_paragraph(src[state.cursor :])
            state.cursor = cursor_max


def _parse_pipe_table(block: BlockParser, m: re.Match[str], state: BlockState) -> int | None:
    delim = m.group("pt_delim")
    if "-" not in delim or "|" not in delim:
        return None  # not a table: mistune reads the header line as a paragraph
    start = m.start()
    delim_start = m.start("pt_delim")
    pos = state.find_line_end_at(delim_start)
    offsets = [start, delim_start]
    n = 2
    while pos < state.cursor_max:
        line_end = state.find_line_end_at(pos)
        line = state.src[pos:line_end]
        if not line.strip() or "|" not in line:
            break
        if n <= MAX_TABLE_ROWS + 2:
            offsets.append(pos)
        n += 1
        pos = line_end
    state.append_token({"type": "pipe_table", "_raw": _RawTable(start, pos, offsets, n)})
    return pos


def _make_markdown() -> mistune.Markdown:
    md = mistune.Markdown(renderer=None, block=_SpanParser())
    md.block.register("pipe_table", _TABLE, _parse_pipe_table, before="paragraph")
    # List items are read as the paragraphs, fences and tables they hold: a table or sentence
    # in a list item is checked like any other (GitHub renders it), code indented under an
    # item is still code, and mistune's list parser was a third of the parsing time.
    md.block.rules.remove("list")
    return md


_MD = _make_markdown()


def block_tokens(text: str, syncs: list[tuple[int, int]] | None = None) -> list[dict]:
    """Top-level block tokens of ``text`` (``\\n`` line endings), each with ``_span`` offsets.
    With ``syncs``, the points after each run of blank lines are added to it (see _SpanState)."""
    state = _SpanState()
    state.syncs = syncs
    if not text.endswith("\n"):
        text += "\n"
    state.process(text)
    _MD.block.parse(state)
    return _joined(state.tokens)
