"""What the parser gives the rules: tables with every cell's position, headings, sentences.

These are plain slots dataclasses (not pydantic models): they sit on the hot path of every check,
and are built only by :mod:`perfbot.parse` from text that was already read. They are not
``frozen`` (a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, about
three times the cost, and a README has thousands of cells), but nothing changes them after the
parser built them: they are values, compared and hashed by their fields (``unsafe_hash``, the hash
a frozen dataclass had); a changed copy is made with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

TableKind = Literal["requirements", "performance", "other"]


@dataclass(slots=True, unsafe_hash=True)
class Cell:
    """One table cell: ``line`` (1-based) and ``start``/``end`` columns of its raw text."""

    text: str  # raw text between the pipes, stripped
    line: int
    start: int  # column of the first non-blank character (or of the gap when empty)
    end: int  # column after the last non-blank character

    @property
    def value(self) -> str:
        """The text with ``\\|`` unescaped."""
        return self.text.replace("\\|", "|")


@dataclass(slots=True, unsafe_hash=True)
class Row:
    line: int
    raw: str  # the line's content, without its line ending
    cells: tuple[Cell, ...]


@dataclass(slots=True, unsafe_hash=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(slots=True, unsafe_hash=True)
class Sentence:
    """A paragraph line that names the test machine ("Experiments are tested on ...")."""

    line: int
    text: str  # the whole line, stripped
    device: str | None  # "910", "910*" (canonical) or None when not recognised
    device_text: str | None  # as written ("Ascend Atlas 800T A2 machines")
    versions: tuple[str, ...]  # mindspore versions as written
    mode: str | None  # "graph" / "pynative" / None
    canonical: bool  # exactly the guide's wording
    continues: bool = False  # the line goes on after it with a clause (", using bf16.")


@dataclass(slots=True, unsafe_hash=True)
class Table:
    index: int  # 0-based, in document order
    header: Row
    delimiter: Row
    rows: tuple[Row, ...]
    aligns: tuple[str | None, ...]  # "center" / "left" / "right" / None per delimiter cell
    kind: TableKind
    section: tuple[Heading, ...]  # the heading path above the table, outermost first
    sentence: Sentence | None  # the sentence right above (performance tables)
    in_html: bool = False  # found inside an HTML block such as <div align="center">
    # why the table is too large to be a model table ("" if it is not): only its first
    # MAX_TABLE_ROWS rows and MAX_ROW_CELLS cells a row were read (parse/tables.py), recognition
    # makes it no guide table, and PB604 says it was not checked
    oversize: str = ""

    @property
    def start_line(self) -> int:
        return self.header.line

    @property
    def end_line(self) -> int:
        return self.rows[-1].line if self.rows else self.delimiter.line

    @property
    def lines(self) -> tuple[Row, ...]:
        return (self.header, self.delimiter, *self.rows)

    @property
    def heading(self) -> str:
        return " / ".join(h.text for h in self.section)


@dataclass(slots=True, unsafe_hash=True)
class HtmlTable:
    line: int
    end_line: int
    section: tuple[Heading, ...]
    kind: TableKind  # the parser's candidate from its first row; recognition decides
    rows: tuple[tuple[str, ...], ...] = ()  # cell texts per <tr>, the first row being the header


@dataclass(slots=True)
class Document:
    path: str
    tables: list[Table] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    html_tables: list[HtmlTable] = field(default_factory=list)
    # tables (pipe or HTML) beyond parse.MAX_TABLES: counted, not read; the first one's line
    unread_tables: int = 0
    unread_line: int = 0

    def of_kind(self, kind: TableKind) -> list[Table]:
        return [t for t in self.tables if t.kind == kind]
