"""Table cells: the cells of a pipe-table line with their columns, the bounds on what a table
is read of, and the cells of HTML tables."""

from __future__ import annotations

import re

from ..model import Cell

_DELIM_CELL = re.compile(r"^\s*(:?)-+(:?)\s*$")


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
