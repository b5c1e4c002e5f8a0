"""PB1xx: the Requirements table is there and has rows (SPEC §1)."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..fix import Edit, Fix
from ._util import floor_table, q
from .registry import Issue, rule


def requirements_lines(ctx: Context, versions: list[str]) -> list[str] | None:
    """A Requirements table for ``versions`` from the matrix, or None if a value is unknown."""
    names = ctx.spec.requirements_order
    rows = []
    for v in versions:
        row = ctx.matrix.canonical_row(v)
        values = [row.get(k) for k in ("mindspore", "driver", "firmware", "cann")]
        if not row or any(x is None for x in values):
            return None
        rows.append("| " + " | ".join(values) + " |")  # type: ignore[arg-type]
    header = "| " + " | ".join(names) + " |"
    delim = "| " + " | ".join(":" + "-" * (max(len(n), 3) - 2) + ":" for n in names) + " |"
    return [header, delim, *rows]


@rule("PB101", "requirements-missing", severity="error", scope="document", fix="sometimes",
      safety="unsafe")  # fmt: skip
def requirements_missing(ctx: Context) -> Iterator[Issue]:
    """A README with a Performance table has no Requirements table.

    The fix adds a Requirements section, with the matrix's row for each MindSpore version the
    performance sentences name, above the Performance section.

    Example:
        ## Performance

        Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

    Use instead:
        ## Requirements

        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | :-------: | :-----------: | :------: | :-----------------: |
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

        ## Performance

        Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.
    """
    # benchmarks on other hardware (a 310P, a GPU) need no 910 Requirements table
    perf = [t for t in ctx.doc.of_kind("performance") if not ctx.recognised(t).hardware]
    if not perf or ctx.doc.of_kind("requirements"):
        return
    if any(h.kind == "requirements" for h in ctx.doc.html_tables):
        return  # an HTML table is there (PB602 says it is not checked)
    if any(r.sideways for r in ctx.recognition.values()):
        return  # one with its versions written as columns (checked against the matrix)
    first = perf[0]
    versions: list[str] = []
    for t in perf:
        if t.sentence:
            for v in t.sentence.versions:
                if v not in versions:
                    versions.append(v)
    fix = None
    table = requirements_lines(ctx, versions) if versions else None
    if table:
        scope = next((h for h in reversed(first.section) if h.level <= 2), None) or (
            first.section[-1] if first.section else None
        )
        if scope is not None:
            new = [f"{'#' * scope.level} Requirements", "", *table, ""]
            fix = Fix("Add a Requirements section from the matrix",
                      (Edit.insert_before(scope.line, new),), "unsafe")  # fmt: skip
    listed = ", ".join(versions) if versions else "the MindSpore version you tested with"
    yield Issue(
        first.header.line,
        "this README has a Performance table but no Requirements table "
        f"(`| mindspore | ascend driver | firmware | cann toolkit/kernel |`) for {listed}",
        fix,
        table=first.index,
    )


@rule("PB102", "requirements-empty", severity="error", scope="requirements")
def requirements_empty(ctx: Context, table) -> Iterator[Issue]:
    """The Requirements table has no rows.

    Example:
        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | :-------: | :-----------: | :------: | :-----------------: |

    Use instead:
        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | :-------: | :-----------: | :------: | :-----------------: |
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    if not table.rows:
        yield Issue(
            table.header.line,
            "the Requirements table has no rows; add one row per MindSpore version the model "
            "was verified on",
            table=table.index,
        )


@rule("PB103", "requirements-floors", severity="warning", scope="requirements")
def requirements_floors(ctx: Context, table) -> Iterator[Issue]:
    """The Requirements table gives minimum versions (`>=2.6.0`), not the versions tested.

    The guide's table names the exact MindSpore, driver, firmware and CANN the model was
    verified on, one row per MindSpore version: a floor says what may work, not what was tested,
    so the row cannot be checked against the matrix. One finding for the table (its columns and
    rows are not checked one by one).

    Example:
        | mindspore | ascend driver | cann |
        | :-------: | :-----------: | :--: |
        | >=2.6.0 | >=24.1.RC1 | >=8.1.RC1 |

    Use instead:
        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | :-------: | :-----------: | :------: | :-----------------: |
        | 2.6.0 | 24.1.RC3 | 7.5.0.3.220 | 8.1.RC1 |
    """
    if not floor_table(ctx, table):
        return
    floors = ctx.recognised(table).floors
    yield Issue(
        table.header.line,
        f"the Requirements table gives minimum versions ({q(floors[0])}), not the versions the "
        "model was tested with; the guide wants one row per tested MindSpore version with its "
        "driver, firmware and CANN: `| mindspore | ascend driver | firmware | cann toolkit/kernel |`",
        table=table.index,
    )
