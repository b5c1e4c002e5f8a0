"""The re-parse of fixed text is the full parse (issue 11): perfbot.reparse, differentially.

``reparse.parse_after(old, new, spec)`` tokenises only a window of ``new`` around the lines that
differ from ``old`` (the Source parsed last) and keeps the old tokens elsewhere. Hypothesis builds
Markdown with the strategies of ``test_parse_differential`` (tables in lists, quotes and HTML,
fences holding pipes, setext underlines, CRLF, ...), edits it the way fixes do (a row's cells
changed, an alignment row rewritten, a table's columns reordered, a sentence rewritten, a line
inserted after a row), plus any line replaced by any other, and the Document must equal
``parse_document`` of the new text, field by field, with the same tokens underneath.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from perfbot import engine, parse, reparse
from perfbot.config_light import DEFAULT
from perfbot.fix import Edit, apply_edits
from perfbot.model import Document
from perfbot.parse import blocks
from perfbot.source import Source
from perfbot.spec import builtin_spec
from test_parse_differential import CELL, LINE, SETTINGS, markdown

SPEC = builtin_spec()
FIXTURES = Path(__file__).parent / "fixtures"

SENTENCES = [
    "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.",
    "Experiments are tested on ascend 910 with mindspore 2.2.10 pynative mode.",
    "experiments were run on Ascend 910* with MindSpore 2.3 graph mode",
    "text",
]
ALIGN_CELLS = [":---:", "---:", ":---", "---", "-"]


@st.composite
def fix_like_edits(draw, src: Source) -> list[Edit]:
    """1 to 4 edits of ``src``'s lines, of the kinds fixes make (and any line changed)."""
    edits: list[Edit] = []
    n = len(src.lines)
    near = draw(st.integers(1, n))  # mostly on a few lines together (one table), as fixes are
    spread = draw(st.sampled_from([4, 4, n]))
    for _ in range(draw(st.integers(1, 4))):
        ln = min(n, near + draw(st.integers(0, spread)))
        line = src.line(ln)
        cells = parse.split_cells(line, ln) if "|" in line else ()
        kind = draw(st.sampled_from(["cell", "align", "reorder", "sentence", "insert", "any"]))
        if kind == "cell" and cells:  # a cell's text changed (its padding kept)
            c = draw(st.sampled_from(cells))
            edits.append(Edit(ln, c.start, c.end, draw(CELL).strip() or "x"))
        elif kind == "align" and cells:  # the alignment row rewritten, padding and all
            new = "|".join(f" {draw(st.sampled_from(ALIGN_CELLS))} " for _ in cells)
            edits.append(Edit(ln, 0, len(line), f"|{new}|"))
        elif kind == "reorder" and len(cells) > 1:  # a table's columns reordered, row by row
            order = draw(st.permutations(range(len(cells))))
            k = ln
            while k <= n and "|" in src.line(k):
                row = parse.split_cells(src.line(k), k)
                if len(row) == len(cells):
                    for c, j in zip(row, order, strict=True):
                        edits.append(Edit(k, c.start, c.end, row[j].text))
                k += 1
        elif kind == "sentence":  # a sentence (or any paragraph line) rewritten
            edits.append(Edit(ln, 0, len(line), draw(st.sampled_from(SENTENCES))))
        elif kind == "insert":  # a row inserted after a line (a fix adding a missing row)
            row = "| " + " | ".join(draw(st.lists(CELL, min_size=1, max_size=4))) + " |"
            edits.append(Edit.insert_after(ln, line, [row]))
        else:  # any line changed into any other: fences, HTML, quotes opened or closed
            edits.append(Edit(ln, 0, len(line), draw(LINE)))
    return edits


SECTIONS = [
    "## Performance\n\nExperiments are tested on ascend 910* with mindspore 2.3.1 graph mode.",
    "| model | cards | img/s |\n|:-:|:-:|:-:|\n| a | 8 | 1.5 |\n| b | 1 | 2 |",
    "### Requirements\n\n| mindspore | ascend driver |\n|---|---|\n| 2.3.1 | 24.1 |",
    '<div align="center">\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n</div>',
    "text\nmore text",
]


@st.composite
def long_markdown(draw) -> str:
    """Several documents of ``markdown()`` and guide-like sections, between blank lines: room
    for a window with kept tokens before and after it. Mostly without ``]:`` (which makes the
    re-parse fall back to a full one)."""
    parts = draw(st.lists(st.one_of(markdown(), st.sampled_from(SECTIONS)), min_size=2, max_size=7))
    text = "\n\n".join(p.rstrip("\r\n") for p in parts) + "\n"
    return text if draw(st.integers(0, 4)) == 0 else text.replace("]:", "] :")


def assert_same_document(got: Document, want: Document) -> None:
    # the tables cell by cell first, for a readable failure; then every field at once
    assert [t.start_line for t in got.tables] == [t.start_line for t in want.tables]
    for tg, tw in zip(got.tables, want.tables, strict=True):
        for rg, rw in zip(tg.lines, tw.lines, strict=True):
            assert (rg.line, rg.raw) == (rw.line, rw.raw)
            assert [(c.text, c.line, c.start, c.end) for c in rg.cells] == [
                (c.text, c.line, c.start, c.end) for c in rw.cells
            ]
    assert got.headings == want.headings
    assert got.sentences == want.sentences
    assert got.html_tables == want.html_tables
    assert got == want


def reparsed(old: Source, new_text: str) -> Source:
    """Parse ``new_text`` after ``old``; check it against the full parse; return its Source."""
    new = Source.from_text(new_text)
    got = reparse.parse_after(old, new, SPEC)
    last = parse.last_parsed()
    assert last is not None and last.source is new
    syncs: list[tuple[int, int]] = []
    assert last.tokens == parse.block_tokens(last.text, syncs)  # the same tokens underneath
    assert last.syncs == syncs  # and the same restart points, for the next pass
    assert_same_document(got, parse.parse_document(new, SPEC))
    parse._LAST[:] = [last]  # the next pass starts from the spliced parse, not the full one
    return new


@SETTINGS
@given(st.data(), st.one_of(markdown(), long_markdown()))
@example(None, "| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n|---|\n| 3 |\n")
def test_reparse_after_fix_like_edits_is_the_full_parse(data, text: str) -> None:
    if data is None:  # the example: a row inserted into the first table, lines after it move
        old = Source.from_text(text)
        parse.parse_document(old, SPEC)
        reparsed(old, apply_edits(old, [Edit.insert_after(3, "| 1 | 2 |", ["| 5 | 6 |"])]))
        return
    old = Source.from_text(text)
    parse.parse_document(old, SPEC)
    new = reparsed(old, apply_edits(old, data.draw(fix_like_edits(old))))
    # a second pass starts from the first one's spliced parse
    reparsed(new, apply_edits(new, data.draw(fix_like_edits(new))))


EDGES = "# T\n\npara one\n\npara two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## U\n\npara three\n"


@pytest.mark.parametrize(
    "edits",
    [
        [Edit(5, 0, 8, "")],  # the line after a blank run made blank: the run grows
        [Edit(5, 0, 8, "```")],  # a fence opened: it runs to the end
        [Edit(4, 0, 0, "===")],  # a setext underline under the paragraph above
        [Edit(6, 0, 0, "| x |")],  # the blank line between a paragraph and a table filled
        [Edit(9, 5, 6, "22"), Edit.insert_after(9, "| 1 | 2 |", ["| 3 | 4 |"])],
        [Edit(10, 0, 0, "lazy")],  # the table's closing blank line filled
        [Edit(13, 0, 10, "<div>")],  # an HTML block at the end
        [Edit(1, 0, 3, "para"), Edit(13, 0, 4, "PARA")],  # both ends of the document
    ],
)
def test_edits_at_the_edges_of_blocks(edits: list[Edit]) -> None:
    old = Source.from_text(EDGES)
    parse.parse_document(old, SPEC)
    reparsed(old, apply_edits(old, edits))


BIG = "".join(
    f"## Model {i}\n\ntext {i}\n\n| Model | Acc |\n|---|---|\n| m{i} | {i}.5 |\n\n"
    for i in range(60)
)


@pytest.mark.parametrize(
    "edit",
    [
        Edit(175, 8, 12, "75.5"),  # a cell, same length
        Edit(175, 8, 12, "75.50"),  # longer: the offsets after it move
        Edit.insert_after(175, "| m21 | 21.5 |", ["| x | 1 |"]),  # a row: the lines move
    ],
)
def test_only_a_window_is_tokenised_again(edit: Edit, monkeypatch) -> None:
    windows: list[blocks._SpanState] = []

    class Recorded(blocks._SpanState):
        def __init__(self, *a) -> None:
            super().__init__(*a)
            windows.append(self)

    monkeypatch.setattr(reparse, "_SpanState", Recorded)
    old = Source.from_text(BIG)
    parse.parse_document(old, SPEC)
    assert old.line(175) == "| m21 | 21.5 |"
    reparsed(old, apply_edits(old, [edit]))
    (window,) = windows
    assert window.stopped  # it met the old parse again after the edited table
    assert len(window.tokens) <= 4, window.tokens  # of the document's 360


@pytest.mark.parametrize("html_table", [False, True])
@pytest.mark.parametrize(
    "edit", [Edit(7, 7, 10, "0.75"), Edit.insert_after(7, "| m0 | 0.5 |", ["| x | 1 |"])]
)
def test_what_the_tail_holds_is_kept_at_its_new_lines(edit: Edit, html_table: bool) -> None:
    # after the edited first table: sections, sentences, tables in a <div>, an HTML table
    tail = (
        "## Performance\n\nExperiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n"
        '\n<div align="center">\n\n| model | acc |\n|:-:|:-:|\n| m | 1 |\n\n</div>\n\n'
        + ("<table><tr><td>model</td><td>img/s</td></tr></table>\n\n" if html_table else "")
        + "### Inference\n\n| Model | Acc |\n|---|---|\n| n | 2 |\n"
    )
    old = Source.from_text(BIG[:60] + "\n" + tail)
    parse.parse_document(old, SPEC)
    assert old.line(7) == "| m0 | 0.5 |"
    reparsed(old, apply_edits(old, [edit]))


@pytest.mark.parametrize(
    "table",
    [
        "| model | img/s |\n|---|---|\n| m | 1 |\n",
        "<table><tr><td>model</td><td>img/s</td></tr></table>\n",
    ],
)
def test_tables_beyond_the_bounds_are_counted_as_in_a_full_parse(table: str) -> None:
    # more tables than parse.MAX_TABLES: those beyond it are only counted, in the walk (HTML)
    # or when the tables are finished (pipe tables); an edit in the first one moves the rest
    first = "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    text = first + "\n".join([table] * (parse.MAX_TABLES + 5)) + "\n" + first
    old = Source.from_text(text)
    n = len(old.lines)
    for edit in (
        Edit(3, 2, 3, "10"),  # in the first table
        Edit.insert_after(3, "| 1 | 2 |", ["| 3 | 4 |"]),
        Edit(n, 2, 3, "10"),  # in the last one: the tables beyond the bounds are before it
    ):
        parse.parse_document(old, SPEC)
        new = reparsed(old, apply_edits(old, [edit]))
        assert parse.parse_document(new, SPEC).unread_tables >= 5


def test_a_character_that_lower_casing_lengthens_changes_nothing_kept() -> None:
    # The sentence search looks first for its words in the lower-cased text when lower-casing
    # keeps the text's length, else case-insensitively in the text. They once disagreed on
    # "teſted" (long s), so an "İ" (two characters lower-cased) added at the end changed the
    # first paragraph's finding; they agree now, so the walk's findings on kept lines hold.
    old = Source.from_text(
        "Experiments are te\u017fted on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\nmore\n\nend\n"
    )
    parse.parse_document(old, SPEC)
    new = reparsed(old, apply_edits(old, [Edit(11, 0, 3, "\u0130")]))
    assert len(parse.parse_document(new, SPEC).sentences) == 1
    assert len(parse.parse_document(old, SPEC).sentences) == 1


def test_a_parse_with_another_guide_keeps_no_html_table_kind() -> None:
    # an HTML table's kind is read from the guide during the walk: "speedy" is img/s only in a
    # repository's config, so the old walk's finding is not this guide's
    text = "<table><tr><td>model</td><td>speedy</td></tr></table>\n\na\n\nb\n\nc\n\nd\n"
    old = Source.from_text(text)
    parse.parse_document(old, SPEC)
    spec = SPEC.with_config([], {"img/s": ["speedy"]})
    new = Source.from_text(text.replace("d\n", "e\n"))
    got = reparse.parse_after(old, new, spec)
    assert got == parse.parse_document(new, spec)
    assert [h.kind for h in got.html_tables] == ["performance"]


def test_a_reference_definition_reaching_back_over_the_window_is_seen() -> None:
    # ``[a`` opens a label that ``f]: /url`` closes six lines on: the whole text becomes one
    # reference definition (no token at all), so the tokens before the edit change too
    old = Source.from_text("[a\n\nb\n\nc\n\nd\n\ne\n\nf\n")
    parse.parse_document(old, SPEC)
    new = reparsed(old, apply_edits(old, [Edit(11, 1, 1, "]: /url")]))
    last = parse.last_parsed()
    assert last is not None and last.source is new and last.tokens == []


def test_a_source_not_parsed_last_is_parsed_in_full() -> None:
    a, b = Source.from_text(BIG), Source.from_text(BIG.replace("m3 ", "m33 "))
    parse.parse_document(a, SPEC)
    parse.parse_document(Source.from_text("other\n"), SPEC)  # now `a` is not the last parsed
    calls = []
    real = reparse._spliced
    try:
        reparse._spliced = lambda *args: calls.append(args) or real(*args)  # type: ignore[misc]
        assert reparse.parse_after(a, b, SPEC) == parse.parse_document(b, SPEC)
    finally:
        reparse._spliced = real
    assert calls == []


def _fixture_sources() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.md") if not p.name.endswith(".fixed.md"))


@pytest.mark.parametrize("unsafe", [False, True])
def test_fix_prints_the_check_of_the_text_it_writes(unsafe: bool, tmp_path: Path) -> None:
    """On the corpus-shaped fixtures: fix's last check (what `perfbot fix` prints) equals a fresh
    check of the new text, and the fix passes after the first re-tokenise a window only."""
    spliced = []
    real = reparse._spliced

    def counting(*args):
        got = real(*args)
        spliced.append(got is not None)
        return got

    fixed_files = 0
    reparse._spliced = counting  # type: ignore[assignment]
    try:
        for path in _fixture_sources():
            src = Source.from_text(path.read_text(encoding="utf-8"), path=str(path))
            first = engine.check_source(src, DEFAULT)
            text, _, final = engine.fix_result(src, DEFAULT, first=first, unsafe=unsafe)
            want = engine.check_source(Source.from_text(text, path=str(path)), DEFAULT)
            assert final.findings == want.findings, path
            assert final.has_model_tables == want.has_model_tables, path
            fixed_files += text != src.text
    finally:
        reparse._spliced = real
    assert fixed_files > 20
    assert spliced.count(True) >= fixed_files  # every re-check after a fix took the window path


def test_shuffled_passes_on_a_long_document_match_the_full_parse() -> None:
    """Many passes in a row on one text, each edit somewhere else (a long fix loop)."""
    rnd = random.Random(11)
    src = Source.from_text(BIG)
    parse.parse_document(src, SPEC)
    for _ in range(40):
        ln = rnd.randrange(1, len(src.lines) + 1)
        line = src.line(ln)
        edit = rnd.choice(
            [
                Edit(ln, 0, len(line), rnd.choice([*SENTENCES, "", "```", "<div>", "---"])),
                Edit.insert_after(ln, line, ["| a | b |"]),
                Edit(ln, 0, 0, "| "),
            ]
        )
        src = reparsed(src, apply_edits(src, [edit]))


def test_a_text_too_large_for_a_readme_is_not_remembered() -> None:
    """Only a README-sized text is kept for the next re-parse: the tokens of a file of many
    small tables would double what fixing it holds. Its next parse is a whole one, the same."""
    table = "| model | s/step |\n|---|---|\n| a | 1 |\n\n"
    big = Source.from_text(table * (parse.REMEMBER_MAX_CHARS // len(table) + 1))
    parse.parse_document(big, SPEC)
    assert parse.last_parsed() is None
    new = Source.from_text(big.text.replace("| a | 1 |", "| a | 1.00 |", 1))
    assert reparse.parse_after(big, new, SPEC) == parse.parse_document(new, SPEC)
    small = Source.from_text(table)
    parse.parse_document(small, SPEC)
    last = parse.last_parsed()
    assert last is not None and last.source is small
