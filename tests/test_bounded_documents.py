"""No README can make perfbot hang or fill the memory with tables: a model README has a few
tables of a few columns and some dozens of rows (the corpus: at most 11 tables, 17 cells a row,
11 rows, 380 cells in all). A file within the 8 MB read limit could hold millions of cells (one
line of pipes) or a hundred thousand tables; on main at f72f661 an 8 MB line of pipes after a
table header took 9 s and 1.5 GB, 160,000 small performance tables 27 s and 1.3 GB (a million
findings). perfbot now reads at most MAX_TABLE_ROWS rows and MAX_ROW_CELLS cells of a table,
MAX_TABLES tables and MAX_DOC_CELLS cells of a README, and PB604 (info) says what it did not
check. Memory is measured with tracemalloc, never a clock."""

from __future__ import annotations

import tracemalloc

from perfbot.engine import check_source
from perfbot.parse import MAX_DOC_CELLS, MAX_ROW_CELLS, MAX_TABLE_ROWS, MAX_TABLES, parse_document
from perfbot.source import Source

HEAD = "# model\n\nExperiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
PERF = "| model name | cards | batch size | s/step | img/s |\n|:--:|:--:|:--:|:--:|:--:|\n"
ROW = "| dit | 8 | 64 | 0.93 | 550.54 |\n"


def src(text: str) -> Source:
    return Source.from_text(text, path="README.md")


def check(text: str):
    """(findings, peak traced bytes per byte of text) of a check."""
    tracemalloc.start()
    try:
        result = check_source(src(text))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result.findings, peak / len(text)


def pb604(findings) -> list[str]:
    return [f"{f.line}: {f.message}" for f in findings if f.rule == "PB604"]


def test_a_table_of_more_rows_than_any_model_table_is_read_in_part_and_said_so():
    n = MAX_TABLE_ROWS * 20
    text = HEAD + PERF + "| dit | 8 | 64 | 0.93 |\n" * n  # every row ragged: PB601 each
    doc = parse_document(src(text))
    (table,) = doc.tables
    assert len(table.rows) == MAX_TABLE_ROWS
    assert table.oversize == f"it has {n:,} rows (perfbot reads {MAX_TABLE_ROWS:,} at most)"
    findings, per_byte = check(text)
    assert pb604(findings) == [
        f"5: perfbot did not check this table, which has the guide's columns: {table.oversize}; "
        "a model's table has a few columns and some dozens of rows"
    ]
    assert not [f for f in findings if f.rule == "PB601"]  # not 20,000 ragged rows
    assert per_byte < 20, per_byte  # was 50


def test_one_line_of_pipes_is_not_millions_of_cells():
    text = HEAD + PERF + "|" * 400_000 + "\n" + ROW
    doc = parse_document(src(text))
    (table,) = doc.tables
    assert max(len(r.cells) for r in table.lines) <= MAX_ROW_CELLS + 1
    assert table.oversize == (
        f"line 7 has more than {MAX_ROW_CELLS} cells (perfbot reads {MAX_ROW_CELLS} at most)"
    )
    findings, per_byte = check(text)
    assert [f.rule for f in findings] == ["PB604"]
    assert per_byte < 20, per_byte  # was 187 (one Cell object per pipe)


def test_escaped_pipes_count_too():
    text = HEAD + PERF + "| a \\| b " * 100_000 + "|\n"
    (table,) = parse_document(src(text)).tables
    assert table.oversize and max(len(r.cells) for r in table.lines) <= MAX_ROW_CELLS + 1


def test_tables_beyond_the_first_ones_are_counted_not_read():
    n = MAX_TABLES * 5
    text = HEAD + (PERF + ROW + "\n") * n
    doc = parse_document(src(text))
    assert len(doc.tables) == MAX_TABLES
    assert doc.unread_tables == n - MAX_TABLES
    first_unread = 5 + 4 * MAX_TABLES
    assert doc.unread_line == first_unread
    findings, per_byte = check(text)
    assert pb604(findings) == [
        f"{first_unread}: perfbot did not read the {n - MAX_TABLES:,} tables from here on: it "
        f"reads the first {MAX_TABLES} (pipe and HTML tables each) of a README, which has a few"
    ]
    assert not [f for f in findings if f.line >= first_unread and f.rule != "PB604"]
    assert per_byte < 30, per_byte  # was 47


def test_html_tables_beyond_the_first_ones_are_counted_not_read():
    html = "<table><tr><th>s/step</th><th>img/s</th></tr><tr><td>1</td><td>2</td></tr></table>\n\n"
    doc = parse_document(src(HEAD + html * (MAX_TABLES + 30)))
    assert len(doc.html_tables) == MAX_TABLES and doc.unread_tables == 30


def test_the_cells_of_a_readme_are_read_up_to_a_budget():
    wide = (
        "| s/step " + "| x " * 99 + "|\n" + "|" + ":-:|" * 100 + "\n" + "|" + " 1 |" * 100 + "\n"
    ) * 50
    per_table = 50 * 100  # cells of each table (its 50 rows, 100 columns), under both caps
    n = MAX_DOC_CELLS // per_table + 5
    text = HEAD + (wide + "\n") * n
    doc = parse_document(src(text))
    assert sum(len(r.cells) for t in doc.tables for r in t.lines) <= MAX_DOC_CELLS + 2 * 100 * n
    over = [t for t in doc.tables if t.oversize]
    assert over and all("cells in all" in t.oversize for t in over)
    assert not [t for t in doc.tables if t.oversize and t.rows and t.index > over[0].index]
    findings, _ = check(text)
    budget = pb604(findings)
    assert len(budget) == 1 and "and the tables with the guide's columns after it" in budget[0]


def test_a_long_table_without_the_guides_columns_is_left_alone():
    text = HEAD + "| name | url |\n|---|---|\n" + "| a | b |\n" * (MAX_TABLE_ROWS + 10)
    findings, _ = check(text)
    assert not findings


def test_a_file_of_short_lines_holds_little_per_line():
    """Every line of a README is a string, but its line ending and its offset are not objects of
    their own: a file of short lines held an int per line (its offset) and, with CRLF endings,
    a "\\r\\n" string per line (200,000 lines: 31 and 35 bytes per byte of text, now 23 and 17;
    at 8 MB, 300 MB and 328 MB for the whole CLI run, now 224 MB and 176 MB)."""
    for eol, most in (("\n", 27), ("\r\n", 25)):
        text = ("|a|" + eol) * 200_000
        findings, per_byte = check(text)
        assert findings == []
        assert per_byte < most, (repr(eol), per_byte)
