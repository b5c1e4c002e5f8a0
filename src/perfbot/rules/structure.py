"""PB6xx: table structure: ragged rows, broken delimiter rows, HTML tables, tables too large to
check."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..fix import Edit, Fix
from ..model import Table
from ..parse import MAX_TABLES
from .registry import Issue, rule


@rule("PB601", "ragged-row", severity="error", scope="tables")
def ragged_row(ctx: Context, table: Table) -> Iterator[Issue]:
    """A row has more or fewer cells than the header.

    GitHub drops the extra cells and leaves missing ones empty, so the row shows other numbers
    than its author meant; a delimiter row of another width stops the table from rendering at
    all.

    Example:
        | model name | cards | s/step |
        |:--:|:--:|:--:|
        | dit | 1 | 0.89 | 71.91 |

    Use instead:
        | model name | cards | s/step | img/s |
        |:--:|:--:|:--:|:--:|
        | dit | 1 | 0.89 | 71.91 |
    """
    n = len(table.header.cells)
    if len(table.delimiter.cells) != n:
        yield Issue(
            table.delimiter.line,
            f"the delimiter row has {len(table.delimiter.cells)} cells but the header has {n}: "
            "GitHub will not render this as a table",
            table=table.index,
        )
    for row in table.rows:
        k = len(row.cells)
        if k != n:
            more = "more" if k > n else "fewer"
            yield Issue(
                row.line,
                f"this row has {k} cells, {more} than the header's {n}: "
                + ("GitHub drops the extra cells" if k > n else "GitHub leaves the rest empty"),
                table=table.index,
                row_key=ctx.row_key(table, row),
            )


@rule("PB602", "html-table", severity="info", scope="document")
def html_table(ctx: Context) -> Iterator[Issue]:
    """An HTML `<table>` with Requirements or Performance columns is not checked.

    perfbot reads Markdown pipe tables; an HTML table whose cells name the guide's columns
    (`mindspore`, `s/step`, `img/s` ...) is published as it is, unchecked. Other HTML tables
    (image galleries, say) are left alone.

    Example:
        <table><tr><th>model name</th>...</tr></table>

    Use instead:
        | model name | cards | ... |
        |:--:|:--:|:--:|
    """
    for h in ctx.doc.html_tables:
        if h.kind in ("requirements", "performance"):
            what = "Requirements" if h.kind == "requirements" else "performance"
            yield Issue(
                h.line,
                f"this HTML <table> looks like a {what} table, which perfbot cannot check; the "
                "guide's tables are Markdown pipe tables",
                end_line=h.end_line,
            )


@rule("PB603", "table-in-html", severity="error", scope="tables", fix="always")
def table_in_html(ctx: Context, table: Table) -> Iterator[Issue]:
    """A table directly under an HTML line (`<div align="center">`) is not rendered by GitHub.

    An HTML block such as `<div align="center">` goes on until the next blank line, and
    everything in it is raw HTML: GitHub shows the table's pipes as text. A blank line between
    the HTML line and the table makes it a table again, still inside the `<div>`.

    Example:
        <div align="center">
        | model name | cards | ... |
        |:--:|:--:|:--:|
        </div>

    Use instead:
        <div align="center">

        | model name | cards | ... |
        |:--:|:--:|:--:|
        </div>
    """
    if not table.in_html:
        return
    yield Issue(
        table.header.line,
        "GitHub does not render this table: it follows an HTML line (such as "
        '`<div align="center">`) with no blank line between them, so it shows as text; add a '
        "blank line above the table",
        Fix("Add a blank line above the table", (Edit.insert_before(table.header.line, [""]),)),
        table=table.index,
    )


@rule("PB604", "table-too-large", severity="info", scope="document")
def table_too_large(ctx: Context) -> Iterator[Issue]:
    """A table with the guide's columns is too large to be checked.

    A model's Requirements and Performance tables have a few columns and some dozens of rows.
    So that no file can make it hang or fill the memory, perfbot reads at most 1,000 rows of a
    table and 100 cells of a row, and 200 tables (pipe and HTML each) and 50,000 cells of a
    README. A table beyond that is not a model table and is not checked, and neither are the
    tables after the README's limits. Split the data by model, or move it to a file of its own.

    Example:
        | model name | cards | s/step | img/s |
        |:--:|:--:|:--:|:--:|
        | m1 | 8 | 0.93 | 550.54 |
        ... 5,000 rows ...

    Use instead:
        | model name | cards | s/step | img/s |
        |:--:|:--:|:--:|:--:|
        | m1 | 8 | 0.93 | 550.54 |
    """
    budget = None  # the first table not checked for the document's cell budget (said once)
    for t in ctx.doc.tables:
        if t.oversize and (ctx.recognised(t).table or t).kind != "other":
            if "in all" in t.oversize:
                budget = budget or t
                continue
            yield Issue(
                t.start_line,
                f"perfbot did not check this table, which has the guide's columns: {t.oversize}; "
                "a model's table has a few columns and some dozens of rows",
                end_line=t.end_line,
            )
    if budget is not None:
        yield Issue(
            budget.start_line,
            f"perfbot did not check this table and the tables with the guide's columns after it: "
            f"{budget.oversize}; a model README has a few small tables",
        )
    if ctx.doc.unread_tables:
        yield Issue(
            ctx.doc.unread_line,
            f"perfbot did not read the {ctx.doc.unread_tables:,} tables from here on: it reads "
            f"the first {MAX_TABLES} (pipe and HTML tables each) of a README, which has a few",
        )
