"""parse.py: positions, sections, sentences, table kinds, HTML blocks, BOM."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from perfbot.engine import check_source, fix_source
from perfbot.model import Document, Table
from perfbot.parse import parse_document, parse_sentence, segments, split_cells
from perfbot.source import Source, read_source

REQ = """\
| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
"""

PERF = """\
| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |
"""

SENTENCE = "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode."


def doc(text: str) -> Document:
    return parse_document(Source.from_text(text))


def only_table(text: str) -> Table:
    d = doc(text)
    assert len(d.tables) == 1, d.tables
    return d.tables[0]


# --- positions ---------------------------------------------------------------------------------


def test_table_line_numbers_are_one_based() -> None:
    text = f"# DiT\n\n## Performance\n\n{SENTENCE}\n\n{PERF}"
    t = only_table(text)
    assert (t.header.line, t.delimiter.line) == (7, 8)
    assert [r.line for r in t.rows] == [9, 10]
    assert (t.start_line, t.end_line) == (7, 10)
    lines = text.splitlines()
    for row in t.lines:
        assert row.raw == lines[row.line - 1]
        assert all(c.line == row.line for c in row.cells)


def test_cell_columns_point_at_the_cell_text() -> None:
    t = only_table("|  model name |cards|  s/step  |\n|:-:|:-:|:-:|\n| dit |  8 | 0.93 |\n")
    for row in t.lines:
        for c in row.cells:
            assert row.raw[c.start : c.end] == c.text
    assert [(c.start, c.end) for c in t.header.cells] == [(3, 13), (15, 20), (23, 29)]
    assert [c.text for c in t.rows[0].cells] == ["dit", "8", "0.93"]


def test_escaped_pipe_does_not_split_and_value_unescapes_it() -> None:
    t = only_table("| model name | s/step |\n|--|--|\n| dit \\| xl | `a\\|b` |\n")
    a, b = t.rows[0].cells
    assert (a.text, a.value) == ("dit \\| xl", "dit | xl")
    assert (b.text, b.value) == ("`a\\|b`", "`a|b`")
    assert t.rows[0].raw[a.start : a.end] == "dit \\| xl"


def test_empty_cells_have_a_position_inside_their_gap() -> None:
    (a, b, c) = split_cells("| a |  | c |", 3)
    assert (b.text, b.start, b.end) == ("", 6, 6)
    assert (a.start, a.end, c.start, c.end) == (2, 3, 9, 10)


@pytest.mark.parametrize(
    ("line", "bounds"),
    [
        ("| a | b |", [(1, 4), (5, 8)]),
        ("a | b", [(0, 2), (3, 5)]),
        ("|a|b", [(1, 2), (3, 4)]),
        ("   | a |  ", [(4, 7)]),
        ("| a \\| b |", [(1, 9)]),
        ("| a | b \\", [(1, 4), (5, 9)]),
        ("", [(0, 0)]),
        ("|", [(1, 1)]),
    ],
)
def test_segments(line: str, bounds: list[tuple[int, int]]) -> None:
    assert segments(line) == bounds


def test_ragged_rows_are_kept_with_their_cells() -> None:
    t = only_table(
        "| model name | s/step | img/s |\n|--|--|--|\n| a | 1.00 |\n| b | 1.00 | 1.00 | x |\n"
    )
    assert [len(r.cells) for r in t.rows] == [2, 4]


def test_alignments() -> None:
    t = only_table("| a | b | c | s/step |\n|:--|--:|:-:|---|\n")
    assert t.aligns == ("left", "right", "center", None)
    assert t.rows == ()


def test_table_ends_at_a_blank_line_or_a_line_without_a_pipe() -> None:
    d = doc(f"{PERF}\n{PERF}")
    assert [(t.start_line, t.end_line) for t in d.tables] == [(1, 4), (6, 9)]
    t = only_table(PERF + "some text\n")
    assert t.end_line == 4


def test_table_right_after_a_paragraph_line() -> None:
    d = doc(f"## Performance\n{SENTENCE}\n{PERF}")
    (t,) = d.tables
    assert t.header.line == 3
    assert t.sentence is not None and t.sentence.line == 2


# --- sections ----------------------------------------------------------------------------------


def test_sections_from_atx_and_setext_headings() -> None:
    text = (
        "Stable Diffusion\n================\n\n"  # setext h1, line 1
        "Performance\n-----------\n\n"  # setext h2, line 4
        "### **Training** `v2` ###\n\n"  # atx h3 with closing hashes, line 7
        f"{SENTENCE}\n\n{PERF}\n"
        "## Other\n\n"  # line 16
        "| a | b |\n|--|--|\n"
    )
    d = doc(text)
    assert [(h.level, h.text, h.line) for h in d.headings] == [
        (1, "Stable Diffusion", 1),
        (2, "Performance", 4),
        (3, "Training v2", 7),
        (2, "Other", 16),
    ]
    perf, other = d.tables
    assert [h.text for h in perf.section] == ["Stable Diffusion", "Performance", "Training v2"]
    assert perf.heading == "Stable Diffusion / Performance / Training v2"
    assert [h.text for h in other.section] == ["Stable Diffusion", "Other"]


def test_headings_in_code_are_not_headings() -> None:
    d = doc("# Real\n\n```\n# not a heading\n```\n\n    ## indented code\n")
    assert [h.text for h in d.headings] == ["Real"]


# --- sentences ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "device", "versions", "mode", "canonical"),
    [
        (SENTENCE, "910*", ("2.3.1",), "graph", True),
        (
            "Experiments are tested on ascend 910 with mindspore 2.5.0 pynative mode.",
            "910",
            ("2.5.0",),
            "pynative",
            True,
        ),
        (
            "Experiments are tested on Ascend Atlas 800T A2 machines with mindspore 2.5.0 graph "
            "mode.",
            "910*",
            ("2.5.0",),
            "graph",
            False,
        ),
        (
            "Experiments are tested on ascend 910B with mindspore 2.3.1 **graph** mode.",
            "910*",
            ("2.3.1",),
            "graph",
            False,
        ),
        (
            "Experiments are tested on ascend 910* with mindspore graph mode.",
            "910*",
            (),
            "graph",
            False,
        ),
        (
            "Experiments are tested on ascend 910* with mindspore 2.3.0/2.3.1 graph mode.",
            "910*",
            ("2.3.0", "2.3.1"),
            "graph",
            False,
        ),
        (
            "The following experiments are tested on Ascend 910* with MindSpore 2.3.1 PyNative "
            "mode:",
            "910*",
            ("2.3.1",),
            "pynative",
            False,
        ),
        (
            "Experiments are tested on ascend 910* with mindpsore 2.3.1 graph mode.",
            "910*",
            ("2.3.1",),
            "graph",
            False,
        ),
        (
            "Experiments are tested on the NPU with mindspore 2.3.1.",
            None,
            ("2.3.1",),
            None,
            False,
        ),
    ],
)
def test_parse_sentence(
    text: str, device: str | None, versions: tuple[str, ...], mode: str | None, canonical: bool
) -> None:
    s = parse_sentence(text, 7)
    assert s is not None
    assert (s.line, s.device, s.versions, s.mode, s.canonical) == (
        7,
        device,
        versions,
        mode,
        canonical,
    )


@pytest.mark.parametrize(
    "text",
    [
        "We trained on 8 NPUs.",
        "Performance",
        "| model name | s/step |",
        "mindspore 2.3.1 graph mode",
    ],
)
def test_not_a_sentence(text: str) -> None:
    assert parse_sentence(text, 1) is None


def test_sentence_text_is_the_sentence_not_the_whole_paragraph_line() -> None:
    s = parse_sentence(f"**Note.** {SENTENCE} Numbers are averages.", 1)
    assert s is not None and s.text == SENTENCE and s.canonical


def test_sentences_are_found_in_paragraphs_only() -> None:
    text = f"# P\n\n```\n{SENTENCE}\n```\n\n<!-- {SENTENCE} -->\n\n- a list item\n\n{SENTENCE}\n"
    assert [s.line for s in doc(text).sentences] == [11]


def test_sentence_attaches_to_the_table_below_it() -> None:
    text = f"## Performance\n\n{SENTENCE}\n\n{PERF}\n### Inference\n\n{PERF}"
    d = doc(text)
    assert [t.sentence.line if t.sentence else None for t in d.tables] == [3, 3]


# --- table kinds -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("| mindspore | ascend driver | firmware | cann toolkit/kernel |", "requirements"),
        ("| MindSpore | CANN |", "requirements"),
        ("| mindspore | notes |", "other"),  # one requirements column is not enough
        ("| model name | cards | s/step |", "performance"),
        ("| Model | Graph Compile |", "performance"),  # an alias, a case variant
        ("| model | ms/step |", "performance"),  # a unit variant
        ("| model name | params(M) | acc@top1 |", "other"),
        ("| step | what to do |", "other"),
    ],
)
def test_table_kind_from_header(header: str, kind: str) -> None:
    n = header.count("|") - 1
    t = only_table(f"# Anything\n\n{header}\n|{'--|' * n}\n")
    assert t.kind == kind


def test_kind_does_not_depend_on_the_section() -> None:
    d = doc(f"## Requirements\n\n{PERF}\n## Performance\n\n{REQ}")
    assert [t.kind for t in d.tables] == ["performance", "requirements"]
    assert [t.index for t in d.tables] == [0, 1]


# --- HTML blocks ---------------------------------------------------------------------------------


def test_table_inside_div_without_blank_line_is_parsed_in_place() -> None:
    text = f'## Performance\n\n{SENTENCE}\n\n<div align="center">\n{PERF}</div>\n'
    t = only_table(text)
    assert t.in_html and t.kind == "performance"
    assert t.header.line == 6 and [r.line for r in t.rows] == [8, 9]
    assert t.rows[1].cells[-1].text == "550.54"
    assert t.sentence is not None and t.sentence.line == 3


def test_table_inside_div_with_blank_lines_is_plain_markdown() -> None:
    t = only_table(f'<div align="center">\n\n{PERF}\n</div>\n')
    assert not t.in_html and t.header.line == 3


def test_nested_wrappers_are_unwrapped() -> None:
    t = only_table(f'<div align="center"><p>\n{PERF}</p></div>\n')
    assert t.in_html and t.header.line == 2


def test_html_table_is_recorded_not_parsed() -> None:
    text = (
        "# DiT\n\n## Performance\n\n"
        "<table>\n<tr><th>model name</th><th>s/step</th><th>img/s</th></tr>\n"
        "<tr><td>dit</td><td>0.89</td><td>71.91</td></tr>\n</table>\n\n"
        "<table><tr><td><img src='a.png'></td></tr></table>\n"
    )
    d = doc(text)
    assert d.tables == []
    assert [(h.line, h.end_line, h.kind) for h in d.html_tables] == [
        (5, 8, "performance"),
        (10, 10, "other"),
    ]
    assert [h.text for h in d.html_tables[0].section] == ["DiT", "Performance"]


def test_comments_and_code_hide_tables() -> None:
    text = (
        f"<!--\n{PERF}-->\n\n"
        f"```\n{PERF}```\n\n"
        "Indented:\n\n" + "".join(f"    {ln}\n" for ln in PERF.splitlines()) + "\n"
        f"~~~md\n{PERF}~~~\n\n"
        f"<!-- a one-line comment -->\n"
    )
    d = doc(text)
    assert d.tables == [] and d.html_tables == []


# --- BOM ----------------------------------------------------------------------------------------


def test_bom_is_not_part_of_line_one(tmp_path: Path) -> None:
    p = tmp_path / "README.md"
    p.write_bytes(codecs.BOM_UTF8 + f"{REQ}\n# DiT\n".encode())
    src = read_source(p)
    assert isinstance(src, Source) and src.bom == codecs.BOM_UTF8
    d = parse_document(src)
    (t,) = d.tables
    assert t.kind == "requirements" and t.header.line == 1
    assert t.header.cells[0].start == 2  # columns count characters after the BOM
    assert [h.text for h in d.headings] == ["DiT"]


def test_bom_file_is_fixed_in_place_and_keeps_its_bom(tmp_path: Path) -> None:
    p = tmp_path / "README.md"
    p.write_bytes(codecs.BOM_UTF8 + REQ.replace("8.0.RC2.beta1", "8.0.RC3.beta1").encode())
    src = read_source(p)
    assert isinstance(src, Source)
    assert [f.rule for f in check_source(src).findings] == ["PB501"]
    fixed, _ = fix_source(src)
    assert src.encode(fixed) == codecs.BOM_UTF8 + REQ.encode()


def test_positions_survive_crlf() -> None:
    text = f"# DiT\r\n\r\n{PERF}".replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    t = only_table(text)
    assert t.header.line == 3
    assert not t.header.raw.endswith("\r")
    assert t.rows[1].cells[-1].text == "550.54"


@pytest.mark.parametrize(
    "html",
    [
        '<img src="x.png">\n| model name | s/step |\n|--|--|\n| a | 1.00 |\n',  # type 7 block
        "<section>\n| model name | s/step |\n|--|--|\n",  # type 6, not a wrapper we unwrap
        "<td>x | y</td>\n",
        "</table>\n|\n|\n",
        '<div align="center">\n<img src="x.png">\n| model name | s/step |\n|--|--|\n</div>\n',
    ],
)
def test_html_block_with_pipes_is_not_parsed_forever(html: str) -> None:
    """An HTML block with a `|` and no wrapper line to unwrap used to be parsed again and again
    (RecursionError). Like GitHub, its lines are raw HTML, not a table."""
    d = doc(f"# DiT\n\n{html}")
    assert d.tables == []
    assert check_source(Source.from_text(html)).findings == []


@pytest.mark.parametrize(
    "html",
    [
        "<?php\n |-| --- |\n<br>\n",  # found by tests/test_parse_differential.py
        "<!-- x\n| a |\n<br>\n",
        '<div align="center">\n<?php\n<br>\n| model name | s/step |\n|--|--|\n</div>\n',
    ],
)
def test_html_block_unwrapping_to_itself_is_read_once(html: str) -> None:
    """An HTML block running to the end of the text (``<?php``, an unclosed comment) with a
    wrapper line in it gave the same block again once its wrappers were blanked: unwrapped
    forever (RecursionError)."""
    d = doc(f"# DiT\n\n{html}")
    assert d.tables == []
    assert check_source(Source.from_text(html)).findings == []


def test_sentence_found_when_lower_casing_changes_the_text_length() -> None:
    # "İ" lower-cases to two characters: the cheap look must not shift offsets
    text = (
        "İİİ\n\nExperiments are conducted on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        "| model name | s/step |\n|:-:|:-:|\n| a | 1.00 |\n"
    )
    table = parse_document(Source.from_text(text)).tables[0]
    assert table.sentence is not None and table.sentence.line == 3


def test_whether_a_line_is_the_sentence_does_not_depend_on_the_rest_of_the_file() -> None:
    """The sentence search's first look ran on the lower-cased text, or, when lower-casing
    changes the text's length (an `İ` anywhere in the file), on the text with (?i): the two
    disagreed on `ſ` (long s), which (?i) takes for `s`, so `teſted` was a sentence only in a
    file holding an `İ` somewhere (found by the re-parse's differential test)."""
    base = (
        "# m\n\nExperiments are teſted on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        "| model name | cards | s/step |\n|:-:|:-:|:-:|\n| a | 1 | 0.5 |\n"
    )
    found = [
        [s.line for s in parse_document(Source.from_text(base + extra, path="README.md")).sentences]
        for extra in ("", "\nİ\n")
    ]
    assert found == [[3], [3]]
