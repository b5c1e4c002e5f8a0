"""Small helpers that rules share for building fixes and messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..display import code_span
from ..fix import Applicability, Edit, Fix
from ..model import Cell
from ..parse import segments
from ..spec.forms import PLACEHOLDER
from ..spec.versions import mindspore_versions, normalize_mindspore

if TYPE_CHECKING:
    from ..context import Context
    from ..model import Row, Table


def floor_table(ctx: Context, table: Table) -> bool:
    """A Requirements table of minimum versions (`>=2.6.0`), as recognition decided it: one
    finding for the table (PB103), none for its columns and rows."""
    return table.kind == "requirements" and bool(ctx.recognised(table).floors)


# --- columns that exist only for some runs (issue 22's decisions) -------------------------------


def row_mode(ctx: Context, table: Table, row: Row) -> str | None:
    """`pynative` / `graph` for a row: its own `mode` cell, else the table's sentence."""
    for col in ctx.columns(table):
        header = col.text.strip().strip("*").strip().lower()
        if col.column is None and header in ctx.spec.mode_headers:
            cell = ctx.cell(row, col)
            v = cell.value.lower() if cell else ""
            if "pynative" in v or "动态图" in v:
                return "pynative"
            if "graph" in v or "图" in v:
                return "graph"
    return table.sentence.mode if table.sentence else None


def _measured_before(ctx: Context, table: Table, since: tuple[int, ...]) -> bool:
    """The table was measured on a MindSpore older than ``since``: every version its sentence
    names, or (without one) every version of the Requirements table, is older."""
    if table.sentence is not None and table.sentence.versions:
        texts = list(table.sentence.versions)
    else:
        texts = []
        for t in ctx.doc.of_kind("requirements"):
            col = ctx.column(t, "mindspore")
            for r in t.rows:
                cell = ctx.cell(r, col)
                if cell is not None:
                    texts.extend(v.text for v in mindspore_versions(cell.value))
    keys = [v.key[:2] for v in map(normalize_mindspore, texts) if v is not None]
    return bool(keys) and len(keys) == len(texts) and all(k < since[:2] for k in keys)


def _samples(ctx: Context, table: Table, row: Row) -> bool:
    """The row samples: a sampling cell of it (columns.yaml `inference_columns`: scheduler,
    steps) holds a value, not a placeholder."""
    for name in ctx.spec.inference_columns:
        cell = ctx.cell(row, ctx.column(table, name))
        if cell is not None and not PLACEHOLDER.match(cell.value.strip()):
            return True
    return False


def not_applicable(ctx: Context, table: Table, row: Row | None = None) -> frozenset[str]:
    """The required columns that cannot exist for ``row`` (or, without a row, for every row of
    ``table``): the columns a PyNative run does not have, and those of a MindSpore older than
    the column (columns.yaml `modes`, `since`: jit level and graph compile are graph mode's, jit
    level exists from 2.3 on); and the sampling columns (scheduler, steps) of a stage that does
    not sample, which its own sampling cells say (a VAE, a mesh decoder: every one of them a
    placeholder; a table with no sampling column says nothing). perfbot does not ask for them,
    and `N/A`, `-` or `/` is their right value."""
    key = ("not-applicable", table.index, row.line if row is not None else None)
    found = ctx.memo.get(key)
    if found is None:
        columns = ctx.spec.performance.columns.values()
        rows = [row] if row is not None else list(table.rows)
        if rows and all(row_mode(ctx, table, r) == "pynative" for r in rows):
            out = {c.name for c in columns if c.modes and "pynative" not in c.modes}
        else:
            out = {c.name for c in columns if c.since and _measured_before(ctx, table, c.since)}
        sampling = ctx.spec.inference_columns
        says = any(ctx.column(table, name) is not None for name in sampling)
        if rows and says and not any(_samples(ctx, table, r) for r in rows):
            out |= sampling
        found = frozenset(out)
        ctx.memo[key] = found
    return found  # type: ignore[return-value]


def q(text: str) -> str:
    """Quote a cell for a message: `text` (or "an empty cell")."""
    if not text:
        return "an empty cell"
    t = text if len(text) <= 60 else text[:57] + "..."
    return code_span(t)


def set_cell(cell: Cell, new: str, title: str, applicability: Applicability = "safe") -> Fix:
    """Replace a cell's text, keeping every other byte of the line and, in an aligned table, the
    column's width (:meth:`perfbot.fix.Edit.fitted`). A new value that changes a measured or
    declared fact is an ``unsafe`` fix."""
    return Fix(title, (Edit(cell.line, cell.start, cell.end, new, fit=True),), applicability)


def cell_edit(cell: Cell, new: str) -> Edit:
    return Edit(cell.line, cell.start, cell.end, new, fit=True)


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
