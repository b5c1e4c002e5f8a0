"""PB5xx: the Requirements rows against the version compatibility matrix (SPEC §1)."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..model import Row, Table
from ..spec.versions import mindspore_versions, parse_version
from ._util import floor_table, q, set_cell
from .registry import Issue, rule

_COLS = {"mindspore": "mindspore", "driver": "ascend driver", "firmware": "firmware",
         "cann": "cann toolkit/kernel"}  # fmt: skip


def _row_cells(ctx: Context, table: Table, row: Row) -> dict:
    return {k: ctx.cell(row, ctx.column(table, name)) for k, name in _COLS.items()}


# check_row memoised per row's four cell texts (a repository's READMEs repeat their
# Requirements rows), for one matrix at a time (the built-in one, unless a config adds rows: a
# Matrix never changes); bounded in entries and in the texts' length
_CHECKS: list = [(None, {})]  # [(the matrix, {row's texts: its issues})], swapped whole
_MEMO_SIZE = 4096
_MEMO_MAX_LEN = 200


def _check_row(ctx: Context, vals: dict) -> list:
    matrix = ctx.matrix
    row = (vals["mindspore"], vals["driver"], vals["firmware"], vals["cann"])
    if any(v is not None and len(v) > _MEMO_MAX_LEN for v in row):
        return matrix.check_row(*row)
    held, memo = _CHECKS[0]
    if held is not matrix:
        memo = {}
        _CHECKS[0] = (matrix, memo)
    found = memo.get(row)
    if found is None:
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        found = memo[row] = tuple(matrix.check_row(*row))
    return list(found)


def _issues(ctx: Context, table: Table) -> list:
    """(row, cells, matrix issues) of each Requirements row; computed once for the three rules."""
    key = ("matrix-issues", table.index)
    found = ctx.memo.get(key)
    if found is None:
        found = []
        for row in table.rows if not floor_table(ctx, table) else ():  # PB103's
            cells = _row_cells(ctx, table, row)
            if cells["mindspore"] is None:
                continue
            vals = {k: (c.value if c else None) for k, c in cells.items()}
            found.append((row, cells, _check_row(ctx, vals)))
        ctx.memo[key] = found
    return found


@rule("PB501", "cann-mismatch", severity="error", scope="requirements", fix="sometimes",
      config_keys=("matrix",), safety="unsafe")  # fmt: skip
def cann_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """The CANN version does not ship with the row's MindSpore release.

    CANN is the column that truly follows the MindSpore release. The fix writes the matrix's
    CANN for that MindSpore (not on a row naming several MindSpore versions, which should be
    split); a repository that verified another combination adds it under `matrix:` in
    `.perfbot.yml`.

    Example:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |

    Use instead:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    for _row, cells, issues in _issues(ctx, table):
        for i in issues:
            if i.code != "cann_mismatch" or cells["cann"] is None or not i.expected:
                continue
            cell = cells["cann"]
            several = len(mindspore_versions(cells["mindspore"].value)) > 1
            yield Issue(
                cell.line,
                f"CANN {q(cell.value)} does not ship with MindSpore {i.mindspore}; the matrix "
                f"pairs it with CANN `{i.expected}`"
                + (
                    " (this row names several MindSpore versions: give each its own row)"
                    if several
                    else " (if you verified another combination, list it under `matrix:` in "
                    ".perfbot.yml: it replaces perfbot's row for that MindSpore)"
                ),
                None
                if several
                else set_cell(cell, i.expected, f"Set CANN to {i.expected}", "unsafe"),
                table=table.index,
                row_key=cell.text,
            )


@rule("PB502", "hdk-mismatch", severity="warning", scope="requirements",
      config_keys=("matrix",))  # fmt: skip
def hdk_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """The driver or firmware differs from the matrix's for the row's MindSpore.

    READMEs often name the newer HDK of the test machine, which may be fine: a warning, with no
    automatic fix.

    Example:
        | 2.3.1 | 24.1.RC3 | 7.5.0.1.129 | 8.0.RC2.beta1 |

    Use instead:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    for row, cells, issues in _issues(ctx, table):
        for i in issues:
            if i.code not in ("driver_mismatch", "firmware_mismatch"):
                continue
            cell = cells[i.field]
            what = "ascend driver" if i.field == "driver" else "firmware"
            yield Issue(
                cell.line if cell else row.line,
                f"{what} {q(i.found or '')} is not the one the matrix lists for MindSpore "
                f"{i.mindspore} (`{i.expected}`); if this is the HDK you tested with, it can stay",
                table=table.index,
            )


@rule("PB503", "unknown-mindspore", severity="warning", scope="requirements",
      config_keys=("matrix",))  # fmt: skip
def unknown_mindspore(ctx: Context, table: Table) -> Iterator[Issue]:
    """The MindSpore version is not in perfbot's compatibility matrix, so the row is unchecked.

    Add the combination under `matrix:` in `.perfbot.yml`
    (`- {mindspore: "2.8.0", driver: ..., firmware: ..., cann: ...}`); `perfbot matrix` shows
    the rows perfbot knows.

    Example:
        | 1.8.1 | 22.0.0 | 1.82.22.2.220 | 5.1.RC2 |

    Use instead:
        (the same row, with `matrix:` in .perfbot.yml listing it)
    """
    for _row, cells, issues in _issues(ctx, table):
        for i in issues:
            if i.code == "unknown_mindspore":
                cell = cells["mindspore"]
                if not mindspore_versions(cell.value):
                    msg = (
                        f"mindspore {q(cell.value)} is not a MindSpore version, so the row cannot "
                        "be checked; write the exact version the model was verified on, one row "
                        "per version"
                    )
                else:
                    msg = (
                        f"MindSpore `{i.found}` is not in perfbot's compatibility matrix, so the "
                        "row is not checked; add the combination under `matrix:` in .perfbot.yml "
                        "(`perfbot matrix` shows the known rows)"
                    )
                yield Issue(cell.line, msg, table=table.index)


_KIND = {"mindspore": "mindspore", "driver": "driver", "firmware": "firmware", "cann": "cann"}


@rule("PB504", "version-spelling", severity="info", scope="requirements", fix="always")
def version_spelling(ctx: Context, table: Table) -> Iterator[Issue]:
    """A version is spelled differently from the matrix (case, prefix, missing dot).

    Versions compare equal regardless (`24.1.rc2` is `24.1.RC2`); the fix writes the matrix's
    own spelling.

    Example:
        | 2.3.1 | 24.1rc2 | 7.3.0.1.231 | CANN 8.0.RC2.beta1 |

    Use instead:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    for row in table.rows if not floor_table(ctx, table) else ():  # PB103's
        cells = _row_cells(ctx, table, row)
        ms = cells["mindspore"]
        if ms is None:
            continue
        canonical = ctx.matrix.canonical_row(ms.value)
        if not canonical:
            continue
        for kind in ("driver", "firmware", "cann"):
            cell, want = cells[kind], canonical.get(kind)
            if cell is None or not want or cell.value == want or "](" in cell.value:
                continue  # a linked version keeps its link
            if cell.value.strip().upper() == want.upper():
                continue  # `23.0.rc2` for `23.0.RC2`: the guide's own table writes both
            a, b = parse_version(kind, cell.value), parse_version(kind, want)
            if a is not None and b is not None and a.canonical == b.canonical:
                yield Issue(
                    cell.line,
                    f"{q(cell.value)} is the matrix's `{want}` spelled differently",
                    set_cell(cell, want, f"Write {want}"),
                    table=table.index,
                )
