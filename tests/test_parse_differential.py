"""The fast block parse is mistune's: a differential test against the stock loop (issue 11).

:class:`perfbot.parse.blocks._SpanParser` runs its own copy of mistune's ``BlockParser.parse``
loop, made faster (line starts only for the next-block search, no indented-code test on a line
without a leading blank), and perfbot's table cells are cut by hand-tuned code. The reference here
is what perfbot did before: mistune's *unpatched* ``BlockParser.parse`` with perfbot's span hook as
it was, and the regex-based cell splitter. Hypothesis builds Markdown from the block kinds that
decide where a table is (pipe tables, code fences, HTML blocks, lists, block quotes, setext
headings, indented code, reference links, thematic breaks) and their nasty mixes (tables in lists
and quotes, fences holding pipes, setext underlines that look like delimiter rows, CRLF and lone
CR, tabs), and both must give the same tokens (with their source spans) and the same Document.
"""

from __future__ import annotations

import os
import re
from contextlib import ExitStack
from unittest import mock

import mistune
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mistune.block_parser import BlockParser

from perfbot import blockscan, parse
from perfbot.model import Cell
from perfbot.parse import blocks, tables
from perfbot.source import Source

SETTINGS = settings(
    max_examples=int(os.environ.get("PERFBOT_FUZZ_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- the reference: perfbot's parse before it was made fast ---------------------------------------


class _ReferenceParser(BlockParser):
    """Stock ``BlockParser.parse``; the span hook exactly as perfbot had it."""

    state_cls = blocks._SpanState

    def parse_method(self, m: re.Match[str], state):  # type: ignore[override]
        n = len(state.tokens)
        start = m.start()
        end = super().parse_method(m, state)
        stop = end if end else state.find_line_end_at(start)
        for tok in state.tokens[n:]:
            tok.setdefault("_span", (start, stop))
        return end


def _reference_markdown() -> mistune.Markdown:
    md = mistune.Markdown(renderer=None, block=_ReferenceParser())
    md.block.register("pipe_table", blocks._TABLE, blocks._parse_pipe_table, before="paragraph")
    md.block.rules.remove("list")
    return md


_REF = _reference_markdown()
_PIPE_OR_ESCAPE = re.compile(r"\\.|\|")
_DELIM_CELL = re.compile(r"^\s*(:?)-+(:?)\s*$")


def ref_segments(line: str) -> list[tuple[int, int]]:
    body = line.lstrip(" \t")
    i = len(line) - len(body)
    if body.startswith("|"):
        i += 1
    bounds: list[tuple[int, int]] = []
    seg = i
    for m in _PIPE_OR_ESCAPE.finditer(line, i):
        if m.group() == "|":
            bounds.append((seg, m.start()))
            seg = m.end()
    if line[seg:].strip() or not bounds:
        bounds.append((seg, len(line)))
    return bounds


def ref_split_cells(line: str, lineno: int) -> tuple[Cell, ...]:
    cells = []
    for a, b in ref_segments(line):
        raw = line[a:b]
        text = raw.strip()
        if text:
            s = a + (len(raw) - len(raw.lstrip()))
            cells.append(Cell(text, lineno, s, s + len(text)))
        else:
            mid = a + 1 if b > a else a
            cells.append(Cell("", lineno, mid, mid))
    return tuple(cells)


def ref_align(cell: Cell) -> str | None:
    m = _DELIM_CELL.match(cell.text)
    if not m:
        return None
    left, right = bool(m.group(1)), bool(m.group(2))
    return "center" if left and right else "left" if left else "right" if right else None


def tokens(md: mistune.Markdown, text: str) -> list[dict]:
    state = blocks._SpanState()
    state.process(text if text.endswith("\n") else text + "\n")
    md.block.parse(state)
    return state.tokens


def reference_document(src: Source):
    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(blocks, "_MD", _REF))
        for name, ref in (("segments", ref_segments), ("split_cells", ref_split_cells)):
            for module in (parse, tables):  # where the builder reads them, and where defined
                stack.enter_context(mock.patch.object(module, name, ref))
        stack.enter_context(mock.patch.object(parse, "_align", ref_align))
        return parse.parse_document(src)


# --- strategies: Markdown made of the block kinds that decide where a table is -------------------

CELL = st.sampled_from(
    ["a", "b c", "1.5", "\\|", "`x|y`", "**b**", " ", "", "中文", "<br>", "x\ty", "\\", "-", ":"]
)
DELIM_CELL = st.sampled_from([":--:", "---", ":--", "--:", "-", " --- ", "-\t-", " :-: "])
ODD_DELIM_CELL = st.sampled_from([":", "", "===", "- -", "--x", "::", "-\\|", "`-`"])
PARA = st.sampled_from(
    [
        "text", "1. not a list?", "!x", "*a*", "  two spaces", "x | y", "|", "\\|", "[x]", "#x",
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.", "2", "_a_",
        "<span>inline</span> text", "a\tb", "= not setext", "+", "`code`", "~~", "> not", "é",
    ]
)  # fmt: skip
HTML = st.sampled_from(
    [
        '<div align="center">', "</div>", "<details>", "</details>", "<summary>Perf</summary>",
        "<table>", "<tr><td>a</td><td>b</td></tr>", "</table>", "<!-- c", "-->", "<!-- x -->",
        '<p align="center">', "</p>", "<span>x</span>", '<img src="a.png">', "<br>", "<?php",
        "?>", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<pre>", "</pre>", "<script>", "</script>",
        "<center>", "<a href='x'>", "</a>", "<div>| a | b |", "  <div>", "    <div>", "<DIV>",
    ]
)  # fmt: skip
MISC = st.sampled_from(
    [
        "# h", "##", "###### x #", "####### no", "#\th", "***", "- - -", "___", "* * *", "---",
        "===", "[a]: http://x", "[a]: <b> 'title'", "[]: x", "[a]:", "    code", "\tcode",
        "  \tcode", "     ", "", " ", "\t", "```", "~~~", "````", "```py|x", "``` `x`", "   ```",
        "    ```", ">", "> ", "- ", "1.", "| a | b |", "|---|---|", "a|b", "-|-", "|:-:|",
    ]
)  # fmt: skip
LINE = st.one_of(PARA, HTML, MISC)


@st.composite
def table(draw) -> list[str]:
    n = draw(st.integers(1, 4))
    lead = draw(st.sampled_from(["", "|", " |", "   |", "\t|", "    |"]))
    trail = draw(st.sampled_from(["", "|", " | ", "|  ", "\\|"]))
    header = lead + "|".join(draw(st.lists(CELL, min_size=n, max_size=n))) + trail
    if "|" not in header:
        header += " |"
    odd = draw(st.integers(0, 4)) == 0  # mostly a delimiter row; now and then a near miss
    dlead = draw(st.sampled_from(["", "|", " |", "   |", *(["\t", "    |"] if odd else [])]))
    dtrail = draw(st.sampled_from(["", "|", " |", *(["| x", "\\|"] if odd else [])]))
    m = draw(st.sampled_from([n, n, 1, 2, 5]))
    cell = st.one_of(DELIM_CELL, ODD_DELIM_CELL) if odd else DELIM_CELL
    delim = dlead + "|".join(draw(st.lists(cell, min_size=m, max_size=m))) + dtrail
    if "|" not in delim and not odd:
        delim += "|"
    rows = [header, delim]
    for _ in range(draw(st.integers(0, 4))):
        k = draw(st.integers(0, 5))
        row = draw(st.sampled_from(["", "|", " | "])) + "|".join(
            draw(st.lists(CELL, min_size=k, max_size=k))
        )
        rows.append(row + draw(st.sampled_from(["", "|"])))
    if draw(st.booleans()):
        rows.append(draw(LINE))
    return rows


@st.composite
def fence(draw) -> list[str]:
    indent = " " * draw(st.integers(0, 4))
    marker = draw(st.sampled_from(["```", "````", "~~~", "~~~~", "``"]))
    info = draw(st.sampled_from(["", "python", "a|b", "`x`", " text ", "~"]))
    body = draw(st.lists(st.one_of(LINE, table().map("\n".join)), max_size=4))
    close = draw(
        st.sampled_from(["", marker, marker + "`", indent + marker, "    " + marker, "```", "~~~"])
    )
    return [indent + marker + info, *body, *([close] if close else [])]


@st.composite
def container(draw) -> list[str]:
    """Lines of other blocks under list markers or quote marks (tables in lists and quotes)."""
    inner = draw(st.one_of(table(), st.lists(LINE, min_size=1, max_size=3), fence()))
    kind = draw(st.sampled_from(["- ", "* ", "+ ", "1. ", "2) ", "-\t", "> ", ">", "> > "]))
    lazy = draw(st.booleans())
    out = []
    for i, line in enumerate(inner):
        if i == 0 or (kind.startswith(">") and not (lazy and i == len(inner) - 1)):
            prefix = kind  # a lazy quote's last line has no mark
        else:
            prefix = draw(st.sampled_from(["  ", "   ", "    ", "", "\t"]))
        out.append(prefix + line)
    return out


@st.composite
def setext(draw) -> list[str]:
    text = draw(st.one_of(PARA, st.just("| a | b |"), st.just("a | b")))
    under = draw(
        st.sampled_from(["===", "---", "-", "= =", "|---|", "---|---", " ---  ", "----- |", ":-:"])
    )
    return [text, under]


BLOCK = st.one_of(
    table(),
    fence(),
    container(),
    setext(),
    st.lists(HTML, min_size=1, max_size=4),
    st.lists(LINE, min_size=1, max_size=4),
)


@st.composite
def markdown(draw) -> str:
    lines: list[str] = []
    for block in draw(st.lists(BLOCK, min_size=1, max_size=8)):
        lines.extend(block)
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n", "mixed"]))
    if eol == "mixed":
        ends = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines)))
        text = "".join(ln + e for ln, e in zip(lines, ends, strict=False))
    else:
        text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    return text


# --- the tests ------------------------------------------------------------------------------------

NASTY = [
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "text\n| a | b |\n|---|---|\n",
    "!x\n| a |\n|---|\n| 1 |\n",  # a paragraph that is no plain start: the next block is searched
    "- | a | b |\n  |---|---|\n  | 1 | 2 |\n",
    "> | a | b |\n> |---|---|\n| lazy |\n",
    "```\n| a | b |\n|---|---|\n```\n| a |\n|-|\n",
    "a | b\n---|---\n",
    "Title\n|---|\n",
    '<div align="center">\n\n| a | b |\n|---|---|\n\n</div>\n',
    "<!-- c\n| a |\n|---|\n-->\n",
    "| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n",
    "\t| a |\n\t|---|\n    | a |\n    |---|\n",
    "*x*\n    code\n| a |\n|:-:|\n",
    "[a]: http://x\n| a |\n|---|\n",
    "1. one\n2. two\n\n| a |\n|---|\n",
    "     \n| a |\n|---|\n",
    "---\n| a |\n|---|\n",
    "> a\n***\n| a |\n|---|\n",  # a quote ended by a block: two tokens from one rule
    "> a\n<div>\n| a |\n|---|\n",
    "> a\n```\n| a |\n```\n",
    "a\n- - -\n| a |\n|---|\n",
]


@pytest.mark.parametrize("text", NASTY)
def test_same_tokens_and_document_on_nasty_cases(text: str) -> None:
    assert tokens(blocks._MD, text) == tokens(_REF, text)
    src = Source.from_text(text)
    assert parse.parse_document(src) == reference_document(src)


@SETTINGS
@given(markdown())
@example("| a |\n|---|\n")
@example("x\n\n> a\n>\n    | a |\n    |---|\n")
def test_same_tokens_as_stock_mistune(text: str) -> None:
    assert tokens(blocks._MD, text) == tokens(_REF, text)


@SETTINGS
@given(markdown())
def test_same_document_as_the_reference_parse(text: str) -> None:
    src = Source.from_text(text)
    assert parse.parse_document(src) == reference_document(src)


@SETTINGS
@given(st.text(alphabet="| \t\\:-ab`*\u00a0\u3000x", max_size=30))
def test_same_cells_as_the_reference_splitter(line: str) -> None:
    assert parse.segments(line) == ref_segments(line)
    cells = parse.split_cells(line, 3)
    assert cells == ref_split_cells(line, 3)
    assert [tables._align(c) for c in cells] == [ref_align(c) for c in cells]


def test_the_fast_loop_runs_on_the_locked_mistune() -> None:
    # a new mistune runs the stock loop (the same tokens, slower): copy its loop again, then add
    # its version to _FAST_LOOP_VERSIONS
    assert blocks._FAST_LOOP, f"mistune {mistune.__version__}: the stock block loop runs"


def test_every_rule_set_of_the_parser_is_line_anchored() -> None:
    block = blocks._MD.block
    for rules in (None, block.block_quote_rules, ["thematic_break", "list"]):
        sc = block.compile_sc(rules)
        assert blockscan.line_anchored(sc), rules
        # the matcher reads it from each rule's own parse: the same answer
        assert blockscan.RuleMatcher(sc, rules or block.rules, block.specification).anchored
    not_anchored = {**block.specification, "odd": r"x^"}
    sc = re.compile(f"(?P<atx_heading>{block.specification['atx_heading']})|(?P<odd>x^)", re.M)
    assert not blockscan.line_anchored(sc)
    assert not blockscan.RuleMatcher(sc, ["atx_heading", "odd"], not_anchored).anchored


@pytest.mark.parametrize(
    ("pattern", "anchored"),
    [
        (r"^a|^b", True),
        (r"(?P<x>^a)|(?P<y>(^b)+)", True),
        (r"(?:^a)|b", False),
        (r"(?:^a)?b", False),
        (r"(?:^a)*b", False),
        (r"(?=^)a", False),
        (r"a^", False),
        (r"\Aa", True),
        (r"(?>^a)", True),
        (r"", False),
    ],
)
def test_line_anchored_reads_the_pattern(pattern: str, anchored: bool) -> None:
    assert blockscan.line_anchored(re.compile(pattern, re.M)) is anchored


@SETTINGS
@given(
    st.text(alphabet="ab\n|-# ", max_size=40),
    st.integers(0, 41),
    st.sampled_from([r"^a", r"(?P<p>^ {0,3}[^\n|]*\|[^\n]*)|(?P<q>^#+ ?)", r"(^[ \t]*\n)+|^-+$"]),
)
def test_search_lines_is_search(text: str, pos: int, pattern: str) -> None:
    sc = re.compile(pattern, re.M)
    pos = min(pos, len(text))
    got, want = blockscan.search_lines(sc, text, pos), sc.search(text, pos)
    assert (got and (got.span(), got.lastgroup)) == (want and (want.span(), want.lastgroup))


class _CountingPattern:
    """The rule pattern, counting its ``search`` calls (the scan that tries every character)."""

    def __init__(self, sc: re.Pattern[str]):
        self.sc, self.pattern, self.flags, self.searches = sc, sc.pattern, sc.flags, 0

    def match(self, *a):
        return self.sc.match(*a)

    def search(self, *a):
        self.searches += 1
        return self.sc.search(*a)

    def __hash__(self) -> int:
        return hash(self.sc)


def test_the_next_block_is_found_at_line_starts_not_by_a_character_scan() -> None:
    text = "!x\n" * 50 + "| a | b |\n|---|---|\n| 1 | 2 |\n"
    md = blocks._make_markdown()
    counting = _CountingPattern(md.block.compile_sc())
    with mock.patch.object(md.block, "compile_sc", lambda rules=None: counting):
        got = tokens(md, text)
    assert got == tokens(_REF, text)
    assert [t["type"] for t in got] == ["paragraph", "pipe_table"]
    assert counting.searches == 0


# --- blockscan: the first character of a rule, and the matcher built on it ------------------------

RULE_SETS = [
    None,  # the parser's own rules (pipe tables, no lists)
    blocks._MD.block.block_quote_rules,  # mistune's defaults, lists included
    ["blank_line", "indent_code", "fenced_code"],
    ["thematic_break", "list"],
]
SCAN_TEXT = st.text(alphabet="ab|-=#>*_`~[]<!:1. \t\n\\\x0b\u00a0中", max_size=40)


@SETTINGS
@given(SCAN_TEXT, st.sampled_from(range(len(RULE_SETS))))
def test_rule_matcher_matches_like_the_rule_pattern(text: str, which: int) -> None:
    block = blocks._MD.block
    rules = RULE_SETS[which]
    sc = block.compile_sc(rules)
    matcher = blockscan.RuleMatcher(sc, rules or block.rules, block.specification)
    for pos in range(len(text) + 1):
        got, want = matcher.match(text, pos), sc.match(text, pos)
        assert (got is None) == (want is None), pos
        if got and want:
            assert (got.span(), got.lastgroup) == (want.span(), want.lastgroup)
            # the same groups hold text; the groups of rules not tried are absent, not None
            # (mistune's rule methods read the groups of their own rule, always tried)
            assert nonempty(got) == nonempty(want)


def nonempty(m: re.Match[str]) -> dict[str, str]:
    return {k: v for k, v in m.groupdict().items() if v is not None}


PATTERNS = [
    r"^ {0,3}#+", r"(?:ab|c)?d", r"[^\n|]*\|", r"(?i)t", r"(?i:x)y", r"\s*-", r"x*?y", r"(?=a)b",
    r"[a-c]{2,}", r".", r"(a)\1", r"(?:)", r"[\w]", r"(?>a|b)c", r"\Ad|e$", r"[^\n]+|\n",
]  # fmt: skip


@SETTINGS
@given(st.sampled_from(PATTERNS), st.text(alphabet="abcdexyT|#- \n\t", max_size=12))
def test_first_chars_holds_every_match_start(pattern: str, text: str) -> None:
    first = blockscan.first_chars(pattern, re.M)
    sc = re.compile(pattern, re.M)
    for pos in range(len(text) + 1):
        m = sc.match(text, pos)
        if m is None:
            continue
        if m.end() == pos:
            assert first[1], (pattern, "matched empty")
        if pos < len(text):  # what RuleMatcher asks: may it match at a line starting so?
            assert blockscan._may_start(first, text[pos]), (pattern, text[pos])


def test_first_chars_of_mistune_rules() -> None:
    spec = blocks._MD.block.specification
    assert blockscan.first_chars(spec["atx_heading"], re.M) == ((False, frozenset(" #")), False)
    assert blockscan.first_chars(spec["pipe_table"], re.M) == ((True, frozenset("\n")), False)
    assert blockscan.first_chars(r"(?i)a") == ((True, frozenset()), False)  # case folding: all
    matcher = blockscan.RuleMatcher(blocks._MD.block.compile_sc(), blocks._MD.block.rules, spec)
    blank = matcher.for_char("\n")
    assert blank is not None and blank.groupindex.keys() == {"blank_line"}  # one rule tried
    only_tables = matcher.for_char("中")
    assert only_tables is not None and only_tables.groupindex.keys() == {
        "pipe_table",
        "pt_head",
        "pt_delim",
    }
