"""PB3xx: header names, required columns, column order and alignment (SPEC §1, §2, §2.1)."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..display import code_span
from ..fix import Edit, Fix
from ..model import Cell, Table
from ..spec import Resolved, header_parts
from ..spec.forms import parse_number, round2
from ._util import floor_table, not_applicable, q, reordered
from .registry import Issue, rule


def _rename(cell: Cell, name: str) -> Edit:
    """Rename a header cell, keeping its emphasis and footnote marks (`**Model**` ->
    `**model name**`, `precision*` keeps its `*`)."""
    pre, _, post = header_parts(cell.text)
    return Edit(cell.line, cell.start + len(pre), cell.end - len(post), name, fit=not post)


def _schema_name(table: Table) -> str:
    return "Requirements" if table.kind == "requirements" else "performance"


@rule("PB301", "header-case", severity="warning", scope="tables", fix="always")
def header_case(ctx: Context, table: Table) -> Iterator[Issue]:
    """Header cells are written in lowercase, exactly as the guide names them.

    Emphasis is not case: `**model name**` is the guide's name in bold (the guide is silent on
    bold headers, so perfbot leaves them), and a rename keeps the cell's emphasis.

    Example:
        | Model Name | Cards | batch size | ...

    Use instead:
        | model name | cards | batch size | ...
    """
    if floor_table(ctx, table):
        return  # a table of minimum versions: one finding for it (PB103)
    for col in ctx.columns(table):
        if col.how != "case" or col.column is None:
            continue
        cell = table.header.cells[col.index]
        yield Issue(
            cell.line,
            f"header {q(cell.text)}: the guide writes this column in lowercase as "
            f"`{col.column.name}`",
            Fix(f"Rename to `{col.column.name}`", (_rename(cell, col.column.name),)),
            table=table.index,
        )  # fmt: skip


@rule("PB302", "header-alias", severity="warning", scope="tables", fix="always",
      config_keys=("aliases", "columns"))  # fmt: skip
def header_alias(ctx: Context, table: Table) -> Iterator[Issue]:
    """A column is named by another spelling than the guide's (`bs`, `image size`, `fps` ...).

    The guide's names in Chinese (`模型名称`, `卡数` ... in a README_CN.md) are not other
    spellings: they are read as the guide's columns and not reported.

    Example:
        | model | bs | image size | jit_level | step time | fps |

    Use instead:
        | model name | batch size | resolution | jit level | s/step | img/s |
    """
    if floor_table(ctx, table):
        return  # a table of minimum versions: one finding for it (PB103)
    for col in ctx.columns(table):
        if col.how != "alias" or col.column is None:
            continue
        cell = table.header.cells[col.index]
        name = col.column.name
        yield Issue(
            cell.line,
            f"header {q(cell.text)}: the guide names this column `{name}`",
            Fix(f"Rename to `{name}`", (_rename(cell, name),)),
            table=table.index,
        )


@rule("PB303", "missing-column", severity="error", scope="tables")
def missing_column(ctx: Context, table: Table) -> Iterator[Issue]:
    """A column the guide requires is missing (inference tables also need scheduler and steps).

    Not asked for: jit level and graph compile in a table measured in PyNative mode (its
    sentence, or a `mode` column that says `pynative` on every row), jit level in a table
    measured on MindSpore older than 2.3 (jit levels came with 2.3), scheduler and steps in a
    stage that does not sample (its `steps` or `scheduler` column `N/A` on every row).

    Example:
        | model name | cards | batch size | resolution | s/step | img/s |

    Use instead:
        | model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
    """
    if floor_table(ctx, table):
        return  # a table of minimum versions: one finding for it (PB103)
    # a throughput or step time in another unit (`video/s`, `it/s`) is the column, unchecked
    have = {c.name or c.slot for c in ctx.columns(table)}
    if table.kind == "requirements":
        want = list(ctx.spec.requirements_order)
        what = "a Requirements table"
    else:
        inference = ctx.is_inference(table)
        # no jit level in PyNative mode or before MindSpore 2.3, no graph compile in PyNative
        absent = not_applicable(ctx, table)
        want = [w for w in ctx.spec.required(inference) if w not in absent]
        what = "an inference table" if inference else "a training table"
    missing = [w for w in want if w not in have]
    if table.kind != "requirements":
        # `step time (min)`, `throughput (k img/s)`: a column perfbot does not understand may be
        # the guide's s/step or img/s, so it does not call that one missing
        maybe = ctx.recognised(table).maybe_tail
        missing = [m for m in missing if m not in maybe]
    if missing:
        names = ", ".join(f"`{m}`" for m in missing)
        s = "s" if len(missing) > 1 else ""
        yield Issue(
            table.header.line,
            f"{what} must have the column{s} {names}",
            table=table.index,
        )


@rule("PB304", "column-order", severity="warning", scope="tables", fix="sometimes",
      safety="mixed")  # fmt: skip
def column_order(ctx: Context, table: Table) -> Iterator[Issue]:
    """Columns are not in the guide's order.

    Performance tables start with model name, method, cards, batch size, resolution; then the
    optional columns; then the training tail (precision, jit level, graph compile, s/step, img/s)
    or the inference tail (scheduler, steps, jit level, graph compile, s/step, img/s, psnr, ssim);
    recipe and weight come last. Requirements: mindspore, ascend driver, firmware,
    cann toolkit/kernel. Throughput and step time in another unit (`tokens/s`, `video/s`,
    `it/s`) are the tail's img/s and s/step. A table with a timing column perfbot does not
    understand (`sample time`) is not reordered. The fix moves whole columns, each cell keeping
    its own padding; it is offered when every row has as many cells as the header. A reorder
    that moves a column the guide does not place (`Task`, a metric such as `map`) is an unsafe
    fix: plain `perfbot fix` leaves such a table as it is.

    Example:
        | model name | resolution | cards | batch size | jit level | graph compile | img/s | s/step |

    Use instead:
        | model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
    """
    if floor_table(ctx, table):
        return  # a table of minimum versions: one finding for it (PB103)
    rec = ctx.recognised(table)
    if not rec.reorder:
        return  # a timing column perfbot does not understand: it cannot know where it goes
    cols = ctx.columns(table)
    known = [c.name for c in cols if c.name]
    if len(set(known)) != len(known):
        return  # a column twice: no single right order
    names = [c.name or c.slot for c in cols]  # `video/s`, `frames/s` both stand where img/s goes
    if table.kind == "requirements":
        order_names = ctx.spec.requirements_order
        order = sorted(
            range(len(names)),
            key=lambda i: (order_names.index(names[i]) if names[i] in order_names else 99, i),
        )
    else:  # memoised per list of names
        order = ctx.spec.expected_order(names, ctx.is_inference(table))
    if order == list(range(len(names))):
        return
    # (a unit variant as written: `ms/step` stays `ms/step`, PB306 is about the unit; a header in
    # the README's own language as written: `**模型名称**`, never replaced by the English name)
    expected = " | ".join(
        cols[i].text.strip() if cols[i].how == "translation" else
        cols[i].unit or cols[i].name or cols[i].text
        for i in order
    )  # fmt: skip
    lines = (rec.table or table).lines  # every row, those recognition left unchecked included
    fix = None
    if all(len(r.cells) == len(names) for r in lines):
        # an edit for each line the reorder changes; none when a line is ragged
        changed: list[Edit] = []
        for r in lines:
            new = reordered(r.raw, order)
            if new is None:
                break
            if new != r.raw:
                changed.append(Edit(r.line, 0, len(r.raw), new))
        else:
            fix = Fix("Reorder the columns", tuple(changed)) if changed else None
    # columns the guide does not place (`Task`, a metric such as `map`): a reorder that moves one
    # is not presentation only (where such a column stands is the repository's choice)
    unplaced = [
        cols[i].text.strip() for i in range(len(names)) if names[i] is None and order[i] != i
    ]
    note = ""
    if unplaced:
        shown = ", ".join(code_span(t) for t in unplaced[:4]) + (
            " ..." if len(unplaced) > 4 else ""
        )
        note = f" (this moves {shown}, which the guide does not place: an unsafe fix)"
        if fix is not None:
            fix = Fix(fix.title, fix.edits, "unsafe")
    yield Issue(
        table.header.line,
        f"columns are not in the guide's order; expected {code_span(f'| {expected} |')}{note}",
        fix,
        # a reorder of the guide's columns concerns every row; where the repository's own columns
        # stand is its header's choice (a row added to such a table does not bring it up again)
        end_line=table.header.line if unplaced else table.end_line,
        table=table.index,
    )


def _centered(text: str) -> str:
    width = max(len(text), 3)
    return ":" + "-" * (width - 2) + ":"


@rule("PB305", "not-centered", severity="warning", scope="tables", fix="always")
def not_centered(ctx: Context, table: Table) -> Iterator[Issue]:
    """Every column of the Requirements and Performance tables is centered (`:---:`).

    Example:
        | model name | cards |
        |------------|:------|

    Use instead:
        | model name | cards |
        |:----------:|:-----:|
    """
    if floor_table(ctx, table):
        return  # a table of minimum versions: one finding for it (PB103)
    bad = [c for c, a in zip(table.delimiter.cells, table.aligns, strict=False) if a != "center"]
    if not bad:
        return
    edits = tuple(Edit(c.line, c.start, c.end, _centered(c.text)) for c in bad)
    n = len(bad)
    yield Issue(
        table.delimiter.line,
        f"{n} column{'s are' if n > 1 else ' is'} not centered; the guide centers every column "
        f"of the {_schema_name(table)} table (`:---:`)",
        Fix("Center every column", edits),
        table=table.index,
    )


def _step_rate(ctx: Context, table: Table, col: Resolved) -> Iterator[Issue]:
    """A `step/s` column: steps per second where the guide wants seconds per step (1/x)."""
    cell = table.header.cells[col.index]
    example = ""
    for row in table.rows:
        v = ctx.cell(row, col)
        x = parse_number(v.value) if v is not None else None
        if x:
            example = f" ({v.value} step/s is {round2(1 / x)} s/step)"  # type: ignore[union-attr]
            break
    yield Issue(
        cell.line,
        f"header {q(cell.text)} gives steps per second; the guide wants the time of one step, "
        f"`s/step` = 1 / the rate, with 2 decimals{example}",
        table=table.index,
    )


@rule("PB306", "ms-per-step", severity="warning", scope="performance",
      config_keys=("allow.ms_per_step",))  # fmt: skip
def ms_per_step(ctx: Context, table: Table) -> Iterator[Issue]:
    """The step time is given in milliseconds (`ms/step`) where the guide wants `s/step`.

    A repository that writes ms/step on purpose (mindcv, mindyolo) sets
    `allow: {ms_per_step: true}` in `.perfbot.yml`; img/s is then checked in those units.
    There is no automatic fix: converting 33.09 ms to 2-decimal seconds (0.03) loses the figure.

    A step rate (`step/s`, `speed (step/s)`) is told too, with the s/step it gives (1/x): it is
    not a repository's unit for the same figure but the figure's reciprocal.

    Example:
        | ... | ms/step | img/s |

    Use instead:
        | ... | s/step | img/s |
    """
    for col in ctx.columns(table):
        if col.inverse:
            yield from _step_rate(ctx, table, col)
    if ctx.config.allow.ms_per_step:
        return
    for col in ctx.columns(table):
        if col.how == "unit" or (col.how == "embedded" and col.unit == "ms/step"):
            cell = table.header.cells[col.index]
            yield Issue(
                cell.line,
                f"header {q(cell.text)}: the guide gives step time in seconds as `s/step` with "
                "2 decimals; to keep milliseconds, set `allow: {ms_per_step: true}` in "
                ".perfbot.yml",
                table=table.index,
            )
