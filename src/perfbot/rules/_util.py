"""Small helpers that rules share for building fixes and messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..fix import Applicability, Edit, Fix
from ..model import Cell
from ..parse import segments

if TYPE_CHECKING:
    from ..context import Context
    from ..model import Table


def floor_table(ctx: Context, table: Table) -> bool:
    """A Requirements table of minimum versions (`>=2.6.0`), as recognition decided it: one
    finding for the table (PB103), none for its columns and rows."""
    return table.kind == "requirements" and bool(ctx.recognised(table).floors)


def q(text: str) -> str:
    """Quote a cell for a message: `text` (or "an empty cell")."""
    if not text:
        return "an empty cell"
    t = text if len(text) <= 60 else text[:57] + "..."
    return f"`{t}`"


def set_cell(cell: Cell, new: str, title: str, applicability: Applicability = "safe") -> Fix:
    """Replace a cell's text, keeping its padding and every other byte of the line. A new value
    that changes a measured or declared fact is an ``unsafe`` fix."""
    return Fix(title, (Edit(cell.line, cell.start, cell.end, new),), applicability)


def cell_edit(cell: Cell, new: str) -> Edit:
    return Edit(cell.line, cell.start, cell.end, new)


def _cell_pieces(line: str) -> tuple[str, list[str], str]:
    """(text before the first cell, each cell's raw text with its padding, text after the last
    cell) of a table line: :func:`perfbot.parse.segments`'s bounds, by ``str.split`` when the
    line holds no backslash (no ``\\|`` to skip), else from ``segments`` itself."""
    if "\\" in line:
        segs = segments(line)
        return line[: segs[0][0]], [line[a:b] for a, b in segs], line[segs[-1][1] :]
    i = len(line) - len(line.lstrip(" \t"))
    if line.startswith("|", i):
        i += 1
    parts = line[i:].split("|")
    last = parts[-1]
    if last.strip() or len(parts) == 1:  # the text after the last pipe is a cell
        return line[:i], parts, ""
    return line[:i], parts[:-1], "|" + last


def reordered(line: str, order: list[int]) -> str | None:
    """``line`` with its cells permuted (each keeps its own padding); None if it is ragged."""
    head, pieces, tail = _cell_pieces(line)
    if len(pieces) != len(order):
        return None
    return head + "|".join([pieces[i] for i in order]) + tail
