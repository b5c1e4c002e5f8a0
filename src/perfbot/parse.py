"""Markdown -> :class:`~perfbot.model.Document`, with exact source positions.

mistune 3 finds the block structure (fences, indented code, HTML blocks and comments, headings,
paragraphs). It gives no positions, so :class:`_SpanParser` records each top-level block's source
offsets as the block parser produces it. Pipe tables are parsed by perfbot's own block rule
(:func:`_parse_pipe_table`), registered in the same parser: unlike mistune's table plugin it keeps
tables whose rows have too many or too few cells (a finding, not a silent paragraph), and gives
every cell its line and columns.

This module records positions and structure only; it makes no judgement about the guide.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any, cast

import mistune
from mistune.block_parser import BlockParser
from mistune.core import BlockState

from .blockscan import RuleMatcher, search_lines
from .model import Cell, Document, Heading, HtmlTable, Row, Sentence, Table, TableKind
from .source import Source
from .spec import Spec, builtin_spec

# A pipe-table header line followed by a delimiter row (GFM): the delimiter has a '-' and a '|'.
# Linear on any text: the header splits at its *first* pipe only (``[^\n|]*``), so a line of
# pipes is not tried at every split; the delimiter is matched without lookaheads, and
# :func:`_parse_pipe_table` checks that it holds a '-' and a '|'.
_TABLE = r"^ {0,3}(?P<pt_head>[^\n|]*\|[^\n]*)\n(?P<pt_delim>[ \t]{0,3}[|: \t-]+)(?:\n|$)"
_DELIM_CELL = re.compile(r"^\s*(:?)-+(:?)\s*$")


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


_PIPE_OR_ESCAPE = re.compile(r"\\.|\|")


def segments(line: str) -> list[tuple[int, int]]:
    """Column bounds of each cell's raw text (padding included) between the pipes of a line."""
    n = len(line)
    i = n - len(line.lstrip(" \t"))
    if line.startswith("|", i):
        i += 1
    bounds: list[tuple[int, int]] = []
    seg = i
    if "\\" in line:  # ``\x`` escapes the character after it (a pipe does not split there)
        for m in _PIPE_OR_ESCAPE.finditer(line, i):
            if m.group() == "|":
                bounds.append((seg, m.start()))
                seg = m.end()
    else:
        find = line.find
        p = find("|", i)
        while p >= 0:
            bounds.append((seg, p))
            seg = p + 1
            p = find("|", seg)
    if not bounds or line[seg:].strip():
        bounds.append((seg, n))
    return bounds


# Model tables have a few columns and at most some dozens of rows (the corpus: 17 and 11). A
# table beyond these is not one: only this much of it is read (an 8 MB line of pipes would be
# millions of cells), it is recognised as no guide table, no rule runs on it and PB604 says so.
MAX_TABLE_ROWS = 1000
MAX_ROW_CELLS = 100
# and a README has a few tables: those beyond the first MAX_TABLES pipe tables (and as many HTML
# tables) are only counted, and only MAX_DOC_CELLS cells are read in all (the corpus: 11 tables
# and 380 cells at most), so that parsing and checking stay within a small multiple of a
# README's size whatever the file holds
MAX_TABLES = 200
MAX_DOC_CELLS = 50_000


def _cells_end(line: str, limit: int = MAX_ROW_CELLS) -> int:
    """Where the cells of ``line`` to read end: ``len(line)``, or, when the line has more than
    ``limit + 1`` pipes, at its pipe number ``limit + 2`` (escaped or not: this only bounds the
    work; the cells before it are cut as usual, and the table is not checked)."""
    if line.count("|") <= limit + 1:
        return len(line)
    p = -1
    for _ in range(limit + 2):
        p = line.find("|", p + 1)
    return p


def split_cells(line: str, lineno: int) -> tuple[Cell, ...]:
    """Cells of one table line with their columns; ``\\|`` does not split."""
    if "\\" in line:
        raws = [(a, line[a:b]) for a, b in segments(line)]
    else:  # what segments() cuts, by str.split: each piece starts after the previous pipe
        i = len(line) - len(line.lstrip(" \t"))
        if line.startswith("|", i):
            i += 1
        pieces = line[i:].split("|")
        last = pieces.pop()
        if last.strip() or not pieces:
            pieces.append(last)
        raws = []
        for raw in pieces:
            raws.append((i, raw))
            i += len(raw) + 1
    cells = []
    for a, raw in raws:
        text = raw.strip()
        if text:
            s = a + raw.find(text)  # after the leading blanks (``text`` starts with no blank)
            cells.append(Cell(text, lineno, s, s + len(text)))
        else:
            mid = a + 1 if raw else a
            cells.append(Cell("", lineno, mid, mid))
    return tuple(cells)


def _align(cell: Cell) -> str | None:
    m = _DELIM_CELL.match(cell.text)
    if not m:
        return None
    left, right = bool(m.group(1)), bool(m.group(2))
    return "center" if left and right else "left" if left else "right" if right else None


# --- the "Experiments are tested on ..." sentence ----------------------------------------------

_SENTENCE_HINT = re.compile(
    r"(?i)\b(?:experiments?\s+(?:are|were|is|was)\s+(?:tested|conducted|run|measured)"
    r"|(?:performance|speed|results?)\s+(?:are\s+|is\s+)?tested"
    r"|test(?:ing)?\s+results?)\s+on\b"
    r"|实验在"
    # 在采用图模式的ascend 910*上实验结果,
    # 在 Ascend 910* 上使用 MindSpore 2.2.14 的图模式进行实验测试
    # (bounded gaps, no nested quantifiers: linear time on any line)
    r"|在[^，。；,;\n]{0,60}?(?:ascend|昇腾|910)[^，。；,;\n]{0,80}?(?:实验|测试)"
)
# a cheap look before _SENTENCE_HINT: one of the words it needs
_SENTENCE_WORDS = ("tested", "conducted", "measured", "run", "test", "实验", "测试")
_SENTENCE_QUICK = re.compile(r"(?i)tested|conducted|measured|run|test|实验|测试")
_DEVICE = re.compile(
    r"(?i)\[?(?P<d>910\s*\*|910\s*b\d?|atlas\s+800[ti]\s+a2|atlas\s+a2|910a?|910)\]?"
    r"(?:\s+(?:machines?|chips?|npus?|servers?))?"
)
_MS_VERSION = re.compile(
    r"(?i)(?<![a-z])mind[ \t]{0,2}s?p?s?o?r?e(?![a-z])\*{0,2}[ \t]{0,3}"
    r"(?:(?:版本为|版本|version)[ \t]{0,3})?(?:[:：][ \t]{0,3})?"
    r"\[?v?(?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,4})?(?:[-.]?rc\d{0,4})?)"
    r"(?:\s*/\s*(?P<v2>\d+\.\d+(?:\.\d+)?))?\]?\*?"
)
_MINDSPORE_TYPO = re.compile(r"(?i)\bmind(?:spore|psore|sopre|spre|spor|sproe)\b")
# No leading ``\**``: from every start in a run of stars it scanned the rest of the run (quadratic);
# only the end and the groups of a match are used.
_MODE = re.compile(
    r"(?i)\b(?P<m>graph|pynative|py-native)\b\*{0,2}[ \t]{1,3}mode\b"
    r"|[（(]?(?P<zh>静态图|动态图|图)模式[）)]?"
)
_FOLLOWING = re.compile(r"(?i)(?:the\s+following\s+)$")
# words before the hint that open the sentence (`All experiments are tested ...`): a rewrite takes
# them too, so no `All` is left before the guide's `Experiments` (bounded: the last 120 characters)
_LEAD_WORDS = re.compile(r"(?:[A-Za-z][A-Za-z0-9'’-]{0,30},?[ \t]{1,3}){1,6}$")
_LEAD_STOP = tuple(".!?:;。！？：；>*_-+([")


def _opening_words(line: str, start: int) -> int:
    """Where the sentence whose hint starts at ``start`` begins: at the words before the hint when
    only markup, a list marker or another sentence's end comes before them."""
    lo = max(0, start - 120)
    m = _LEAD_WORDS.search(line, lo, start)
    if m is None:
        return start
    before = line[: m.start()].rstrip()
    if not before or before.endswith(_LEAD_STOP) or before.isdigit():
        return m.start()
    return start


_CLAUSE_END = re.compile(r"[.:](?:\s|$)")
_SPACES = re.compile(r"\s+")
_ZH_MODE = {"图": "graph", "静态图": "graph", "动态图": "pynative"}


def canonical_sentence(device: str, version: str, mode: str, *, continues: bool = False) -> str:
    """The guide's sentence; without its final "." when the line goes on with a clause."""
    end = "" if continues else "."
    return f"Experiments are tested on ascend {device} with mindspore {version} {mode} mode{end}"


def sentence_span(line: str) -> tuple[int, int] | None:
    """Columns of the sentence in a line: from its first word through ``mode`` and a ``.``/``:``."""
    m = _SENTENCE_HINT.search(line)
    if not m:
        return None
    start = m.start()
    if m.group(0).startswith(("实验在", "在")):  # a Chinese sentence: the rest of its line
        return start, len(line.rstrip())
    lead = line[:start]
    lm = _FOLLOWING.search(lead)
    start = lm.start() if lm else _opening_words(line, start)
    mode = None
    for mm in _MODE.finditer(line, m.end()):
        mode = mm
        break
    if mode:
        end = mode.end()
        # "graph mode." / "graph mode :" / "**mindspore 2.3.1 graph mode**." / "graph mode.**"
        stop = _SENTENCE_STOP.match(line, end)
        if stop and stop.end() > end:
            end = stop.end()
    else:
        dot = _CLAUSE_END.search(line[m.end() :])
        end = m.end() + dot.end() if dot else len(line)
        end = len(line[:end].rstrip())
    return _balance_emphasis(line, start, end)


# after "mode": a closing emphasis mark, then the sentence's stop (or the stop, then the mark)
_SENTENCE_STOP = re.compile(r"(?:\*\*|__)?(?:[ \t]{0,4}[.:：。])?(?:(?<=[.:：。])(?:\*\*|__))?")


def _balance_emphasis(line: str, start: int, end: int) -> tuple[int, int]:
    """Widen a sentence's span so it holds both marks of any ``**``/``__`` it holds one of.

    A rewrite replaces the span with the guide's plain words: half of a bold pair left outside it
    would break the line (``... pynative mode.**.``), so the span takes the whole emphasis.
    """
    for mark in ("**", "__"):
        if line.count(mark, start, end) % 2 == 0:
            continue
        opener = line.rfind(mark, 0, start)
        if opener >= 0 and line.count(mark, 0, opener) % 2 == 0:
            start = opener  # "**Experiments are ... mode**." / "Note: **the experiments ...**"
            continue
        closer = line.find(mark, end)
        if closer >= 0:  # "... with **mindspore 2.3.1 graph** mode."
            end = closer + len(mark)
            stop = re.match(r"[ \t]{0,4}[.:：。]", line[end : end + 5])
            if stop:
                end += stop.end()
    return start, end


def parse_sentence(line: str, lineno: int) -> Sentence | None:
    span = sentence_span(line)
    if span is None:
        return None
    text = line[span[0] : span[1]].strip()
    hint = _SENTENCE_HINT.search(text)
    assert hint is not None  # the span starts with it
    # the device comes after the English hint ("tested on ascend 910*"), inside a Chinese one
    dm = _DEVICE.search(text, hint.start() if hint.group(0).startswith("在") else hint.end())
    device = device_text = None
    if dm:
        device_text = dm.group(0)
        d = _SPACES.sub(" ", dm.group("d")).lower()
        device = "910" if d in ("910", "910a") else "910*"
    versions: list[str] = []
    vm = _MS_VERSION.search(text)
    if vm:
        versions.append(vm.group("v"))
        if vm.group("v2"):
            versions.append(vm.group("v2"))
    mm = _MODE.search(text)
    mode = None
    if mm:
        mode = (
            _ZH_MODE[mm.group("zh")] if mm.group("zh") else mm.group("m").lower().replace("-", "")
        )
    # "... graph mode, using bf16." goes on after the sentence: its canonical form has no "."
    # so does "... graph mode and jit level O1." / "... graph mode (jit level O1)." (no stop
    # after "mode": a "." there would cut the line's sentence in two)
    rest = line[span[1] :].strip()
    continues = rest[:1] in (",", ";") or (
        bool(rest) and not text.endswith((".", ":", "：", "。")) and rest[:1] not in "。.:："
    )
    canonical = (
        device is not None
        and len(versions) == 1
        and mode is not None
        and text == canonical_sentence(device, versions[0], mode, continues=continues)
    )
    return Sentence(lineno, text, device, device_text, tuple(versions), mode, canonical, continues)


# --- document -----------------------------------------------------------------------------------

_HTML_WRAPPER_LINE = re.compile(
    r"^\s*(?:</?(?:div|p|center|details|summary|span|br)\b[^>]*>\s*)+$", re.I
)
# `<summary>Performance on ascend 910*</summary>`: a wrapper line with words in it (no pipe)
_HTML_TEXT_LINE = re.compile(
    r"^\s*(?:</?(?:div|p|center|details|span|br)\b[^>]*>\s*){0,4}"
    r"<(?P<t>summary|p|span|center|b|strong)\b[^>]*>[^|\n]{0,300}</(?P=t)>"
    r"\s*(?:</?(?:div|p|center|details|span|br)\b[^>]*>\s*){0,4}$",
    re.I,
)
_HTML_TABLE = re.compile(r"<table\b", re.I)
# An opening or closing cell tag; the cell texts are cut between them by _html_cells (the
# regex ``<td[^>]*>(.*?)</td>`` it replaces scanned to the end of the block from every unclosed
# ``<td>``: quadratic).
_HTML_CELL_TAG = re.compile(r"<(/?)t[hd]\b[^<>]*>", re.I)
# ``<[^>]+>`` tried the rest of the text from every ``<`` without a ``>``
_ANY_TAG = re.compile(r"<[^<>]+>")
MAX_HTML_CELLS = 64


def _html_cells(raw: str, limit: int = MAX_HTML_CELLS) -> list[str]:
    """The raw text of the first ``limit`` ``<td>``/``<th>`` cells: from an opening tag to the
    next closing one (what ``<t[hd][^>]*>(.*?)</t[hd]>`` found), in one pass."""
    cells: list[str] = []
    start = -1
    for m in _HTML_CELL_TAG.finditer(raw):
        if not m.group(1):
            if start < 0:
                start = m.end()
        elif start >= 0:
            cells.append(raw[start : m.start()])
            start = -1
            if len(cells) >= limit:
                break
    return cells


_HTML_ROW = re.compile(r"<tr\b", re.I)


def _html_rows(raw: str) -> tuple[tuple[str, ...], ...]:
    """An HTML table's cell texts, row by row (at most 64 rows of 64 cells)."""
    chunks = _HTML_ROW.split(raw)[1:65] or [raw]
    rows = []
    for chunk in chunks:
        cells = [_ANY_TAG.sub("", c).strip() for c in _html_cells(chunk)]
        if cells:
            rows.append(tuple(cells))
    return tuple(rows)


def _heading_text(tok: dict) -> str:
    text = tok.get("text", "")
    text = _ANY_TAG.sub("", text)
    return text.replace("**", "").replace("`", "").strip()


_WALKED = frozenset(("paragraph", "heading", "pipe_table", "block_html"))
_SENTENCE_WORDS_LOWER = re.compile("|".join(map(re.escape, _SENTENCE_WORDS)))


class _Builder:
    def __init__(
        self, src: Source, spec: Spec, known_rows: dict[tuple[int, str], Row] | None = None
    ):
        self.src = src
        self.spec = spec
        # rows built before, by (line number, line): a Row is a function of those two
        self.known_rows = known_rows
        self.text = src.normalized() + "\n"
        # for cheap substring looks; a few characters change length when lower-cased. "ſ" (long
        # s) is the one character that _SENTENCE_QUICK's (?i) takes for a letter of its words
        # and lower() does not: both looks must say the same, whatever else the file holds
        lower = self.text.lower().replace("ſ", "s")
        self.lower = lower if len(lower) == len(self.text) else None
        # the offset of each line's start (and one past the end), as machine integers: a list
        # held an int object per line (77 MB for a file of 2,000,000 short lines)
        self.starts = array("q", accumulate(map((1).__add__, map(len, src.lines)), initial=0))
        self.doc = Document(path=src.path)
        self.raw_tables: list[tuple[_RawTable, int, bool]] = []  # (table, heading count, in_html)
        self.paths: list[tuple[Heading, ...]] = [()]  # section_at(n), for n = 0, 1, ...
        self.unwrapping: set[tuple[int, int]] = set()  # HTML blocks being unwrapped
        self.walked: Walked | None = None

    def may_hold_sentence(self, a: int, b: int) -> bool:
        if self.lower is None:
            return _SENTENCE_QUICK.search(self.text, a, b) is not None
        # one of _SENTENCE_WORDS in lower[a:b] (one pass, no slice)
        return _SENTENCE_WORDS_LOWER.search(self.lower, a, b) is not None

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def run(
        self, tokens: list[dict], walk: Callable[[_Builder, list[dict]], None] | None
    ) -> Document:
        """The document from ``tokens``, the top-level block tokens of ``self.text``. ``walk``
        (if given) does :meth:`walk` over them its own way, with the same result."""
        if walk is None:
            self.walk(tokens, base=0, in_html=False)
        else:
            walk(self, tokens)
        doc = self.doc  # what the walk found, in its order (finish_tables sorts the sentences)
        self.walked = Walked(
            list(doc.headings), list(doc.sentences), list(self.raw_tables), list(doc.html_tables)
        )
        self.finish_tables()
        return doc

    def walk(self, tokens: list[dict], base: int, in_html: bool) -> None:
        headings = self.doc.headings
        for tok in tokens:
            t = tok["type"]
            if t not in _WALKED:
                continue  # blank lines, code, quotes, breaks: nothing of theirs is read
            span = tok.get("_span")
            if span is None:
                continue
            a, b = span[0] + base, span[1] + base
            if t == "paragraph":
                self.sentences_in(a, b)
            elif t == "heading":
                level = tok.get("attrs", {}).get("level", 1)
                headings.append(Heading(level, _heading_text(tok), self.line_of(a)))
            elif t == "pipe_table":
                raw: _RawTable = tok["_raw"]
                if base:
                    raw = _RawTable(
                        raw.start + base, raw.end + base, [o + base for o in raw.rows], raw.lines
                    )
                self.raw_tables.append((raw, len(headings), in_html))
            else:
                self.html_block(a, b)

    def sentences_in(self, a: int, b: int, only: set[int] | None = None) -> None:
        """Record the sentences on the lines of text[a:b] (on the lines in ``only``, if given)."""
        if not self.may_hold_sentence(a, b) or not _SENTENCE_HINT.search(self.text, a, b):
            return
        first = self.line_of(a)
        last = self.line_of(max(a, b - 1))
        for ln in range(first, last + 1):
            if only is not None and ln not in only:
                continue
            s = parse_sentence(self.src.line(ln), ln)
            if s:
                self.doc.sentences.append(s)

    def html_block(self, a: int, b: int) -> None:
        if (a, b) in self.unwrapping:
            # the blanked inner text gave this same block again (``<?php`` to the end, say):
            # unwrapping it again would recurse forever; it was read once already
            return
        raw = self.text[a:b]
        if raw.lstrip().startswith("<!--"):
            return  # a comment: nothing in it is published
        first = self.line_of(a)
        if _HTML_TABLE.search(raw):
            if len(self.doc.html_tables) >= MAX_TABLES:
                self.unread(first)
                return
            last = self.line_of(max(a, b - 1))
            section = self.section_at(len(self.doc.headings))
            rows = _html_rows(raw)
            kind = self.classify_texts(list(rows[0])) if rows else "other"
            self.doc.html_tables.append(HtmlTable(first, last, section, kind, rows))
            return
        if "|" not in raw:
            # `<summary>Performance tested on ascend 910* with graph mode</summary>`: a sentence
            self.sentences_in(a, b)
            return
        # <div align="center"> and friends: blank out the wrapper lines (keeping offsets) and
        # parse what is inside as Markdown.
        lines = raw.split("\n")[:-1]
        wrappers = [bool(_HTML_WRAPPER_LINE.match(ln) or _HTML_TEXT_LINE.match(ln)) for ln in lines]
        if not any(wrappers):
            return  # nothing to unwrap: raw HTML (GitHub shows no table either); parsing it
            # again would give this same block forever
        first_line = self.line_of(a)
        self.sentences_in(a, b, {first_line + i for i, w in enumerate(wrappers) if w})
        inner = "".join(
            (" " * len(ln) if w else ln) + "\n" for ln, w in zip(lines, wrappers, strict=True)
        )
        self.unwrapping.add((a, b))
        self.walk(block_tokens(inner), base=a, in_html=True)
        self.unwrapping.discard((a, b))

    def section_at(self, n_headings: int) -> tuple[Heading, ...]:
        """The heading path after the first ``n_headings`` headings. Memoised (headings are only
        ever appended), so a README with thousands of sections is not parsed in quadratic time."""
        paths = self.paths
        while len(paths) <= n_headings:
            path = list(paths[-1])
            h = self.doc.headings[len(paths) - 1]
            while path and path[-1].level >= h.level:
                path.pop()
            path.append(h)
            paths.append(tuple(path))
        return paths[n_headings]

    def unread(self, line: int) -> None:
        """A table beyond MAX_TABLES at ``line``: counted, not read."""
        doc = self.doc
        doc.unread_tables += 1
        doc.unread_line = min(doc.unread_line or line, line)

    def finish_tables(self) -> None:
        starts, src_lines, known = self.starts, self.src.lines, self.known_rows
        budget = MAX_DOC_CELLS  # cells left to read in this document
        for idx, (raw, nh, in_html) in enumerate(self.raw_tables):
            if idx >= MAX_TABLES:
                self.unread(bisect_right(starts, raw.start))
                continue
            rows = []
            oversize = ""
            if raw.lines > MAX_TABLE_ROWS + 2:
                oversize = (
                    f"it has {raw.lines - 2:,} rows (perfbot reads {MAX_TABLE_ROWS:,} at most)"
                )
            for i, o in enumerate(raw.rows[: MAX_TABLE_ROWS + 2]):
                ln = bisect_right(starts, o)
                line = src_lines[ln - 1]
                cut = _cells_end(line)
                if cut < len(line) and not oversize:
                    oversize = (
                        f"line {ln} has more than {MAX_ROW_CELLS} cells (perfbot reads "
                        f"{MAX_ROW_CELLS} at most)"
                    )
                # a Row is a function of its line number and line (cut at ``cut`` as here)
                row = known.get((ln, line)) if known else None
                cells = row.cells if row is not None else split_cells(line[:cut], ln)
                budget -= len(cells)
                if budget < 0 and i >= 2:  # the header and delimiter rows are always read
                    oversize = oversize or (
                        f"the README's tables have more than {MAX_DOC_CELLS:,} cells in all "
                        f"(perfbot reads {MAX_DOC_CELLS:,} at most)"
                    )
                    break
                rows.append(row if row is not None else Row(ln, line, cells))
            header, delim, body = rows[0], rows[1], tuple(rows[2:])
            section = self.section_at(nh)
            kind = self.classify_texts([c.value for c in header.cells])  # recognition: other
            table = Table(
                index=idx,
                header=header,
                delimiter=delim,
                rows=body,
                aligns=tuple(_align(c) for c in delim.cells),
                kind=kind,
                section=section,
                sentence=None,
                in_html=in_html,
                oversize=oversize,
            )
            self.doc.tables.append(table)
        self.doc.tables.sort(key=lambda t: t.start_line)
        self.attach_sentences()

    def classify_texts(self, texts: list[str]) -> TableKind:
        """A table's kind from its header cells (for HTML tables: its first cells)."""
        req = [r for r in self.spec.requirements.resolve_header(texts) if r.column]
        if len(req) >= 2 and any(r.column.name == "mindspore" for r in req):  # type: ignore[union-attr]
            return "requirements"
        perf = self.spec.performance.resolve_header(texts)
        if any(r.name in self.spec.signature for r in perf):
            return "performance"
        return "other"

    def attach_sentences(self) -> None:
        """Give each performance table the sentence above it (its own, or its section's)."""
        self.doc.sentences.sort(key=lambda s: s.line)
        sentences = self.doc.sentences  # in document order
        lines = [s.line for s in sentences]
        heading_lines = [h.line for h in self.doc.headings]
        # the sentences under each heading (0: above the first heading), in document order
        by_owner: dict[int, list[Sentence]] = {}
        owner_of: dict[int, int] = {}  # sentence line -> the line of its heading (0: none)
        for s in sentences:
            i = bisect_right(heading_lines, s.line)
            owner_of[s.line] = heading_lines[i - 1] if i else 0
            by_owner.setdefault(owner_of[s.line], []).append(s)
        owner_lines = {h: [s.line for s in ss] for h, ss in by_owner.items()}
        prev_end = 0
        out: list[Table] = []
        for t in self.doc.tables:
            if t.kind != "performance":
                out.append(t)
                continue
            # the last sentence between the previous performance table and this one, in the
            # table's own section or one enclosing it (a remark in another section is not it)
            j = bisect_left(lines, t.start_line)
            enclosing = {0, *(h.line for h in t.section)}
            chosen = (
                sentences[j - 1]
                if j and sentences[j - 1].line > prev_end and owner_of[lines[j - 1]] in enclosing
                else None
            )
            if chosen is None:
                # A sentence shared by several tables of one section (e.g. ## Performance with
                # ### Training and ### Inference below it) still covers them: a sentence of the
                # table's own section or of a section enclosing it, not of a sibling section.
                for h in (0, *(h.line for h in t.section)):
                    if h not in by_owner:
                        continue
                    under = by_owner[h]
                    k = bisect_left(owner_lines[h], t.start_line)
                    if k and (chosen is None or under[k - 1].line > chosen.line):
                        chosen = under[k - 1]
            t = replace(t, sentence=chosen, index=len(out))
            out.append(t)
            prev_end = t.end_line
        self.doc.tables = [t if t.index == i else replace(t, index=i) for i, t in enumerate(out)]


@dataclass(slots=True)
class Walked:
    """What :meth:`_Builder.walk` found over a document's top-level tokens, in its order. Each
    item lies on the lines of the token it came from (a raw table: at its offsets)."""

    headings: list[Heading]
    sentences: list[Sentence]
    raw_tables: list[tuple[_RawTable, int, bool]]  # (table, headings before it, in_html)
    html_tables: list[HtmlTable]


@dataclass(slots=True)
class Parsed:
    """What one parse of a Source leaves for :mod:`perfbot.reparse` to start from."""

    source: Source
    text: str  # the text tokenised: ``source.normalized() + "\\n"``
    starts: Sequence[int]  # the offset of each line's start (and one past the end)
    tokens: list[dict]  # the top-level block tokens (not to be changed: they may be shared)
    syncs: list[tuple[int, int]]  # (cursor, token count) after each run of blank lines
    doc: Document | None = None  # the Document built from them
    spec: Spec | None = None  # the guide the walk read HTML tables' kinds with
    walked: Walked | None = None  # and what the walk over them found


# The last document parsed (one only: its memory is bounded, whatever the run checks). `fix`
# parses the text its fixes made right after the text they were made on. A text over
# REMEMBER_MAX_CHARS is not remembered (its next parse is a whole one): a model README is a
# few kB (the corpus: 30 kB at most), and the tokens of an 8 MB file of small tables would
# double what checking it holds (tables.md: 614 MB against 323 MB for `perfbot fix`).
REMEMBER_MAX_CHARS = 1_000_000
_LAST: list[Parsed] = []


def last_parsed() -> Parsed | None:
    return _LAST[0] if _LAST else None


TokensOf = Callable[
    [str, Sequence[int]],
    tuple[list[dict], list[tuple[int, int]], Callable[["_Builder", list[dict]], None] | None],
]


def build_document(
    src: Source,
    spec: Spec,
    tokens_of: TokensOf,
    known_rows: dict[tuple[int, str], Row] | None = None,
) -> Document:
    """The Document of ``src``, from ``tokens_of(text, starts)`` -> (its top-level block tokens,
    their sync points, a walk over them or None for :meth:`_Builder.walk`), reusing
    ``known_rows``; remembered as :func:`last_parsed`."""
    b = _Builder(src, spec, known_rows)
    tokens, syncs, walk = tokens_of(b.text, b.starts)
    parsed = Parsed(src, b.text, b.starts, tokens, syncs, spec=spec)
    _LAST[:] = [parsed] if len(b.text) <= REMEMBER_MAX_CHARS else []
    parsed.doc = b.run(tokens, walk)
    parsed.walked = b.walked
    return parsed.doc


def _tokens_of(text: str, starts: Sequence[int]) -> tuple[list[dict], list[tuple[int, int]], None]:
    syncs: list[tuple[int, int]] = []
    return block_tokens(text, syncs), syncs, None


def parse_document(src: Source, spec: Spec | None = None) -> Document:
    """Parse a README. Never raises for any text."""
    return build_document(src, spec or builtin_spec(), _tokens_of)
