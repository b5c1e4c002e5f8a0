"""PB5xx: the Requirements rows against the version compatibility matrix (SPEC §1)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..display import code_span
from ..fix import Edit, Fix
from ..model import Cell, Row, Table
from ..spec.versions import mindspore_versions, parse_version, same_driver, same_firmware
from ._util import cell_edit, floor_table, q, set_cell
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
    """The CANN version is not one the row's MindSpore release accepts.

    Each MindSpore wheel states the CANN versions it accepts (its `run_check`); the matrix
    also gives the recommended pairing of each release (CANN, driver, firmware; `perfbot
    matrix` shows both). A CANN outside what the release accepts is an error; a CANN it accepts
    that is not the recommended one is a warning; a patch release (`8.5.1` for `8.5.0`) counts as
    its release. The fix writes the recommended CANN, keeping the cell's form (a link stays a
    link), and the recommended driver and firmware too when the row's would not go with it; no
    fix on a row naming several MindSpore versions (split it), or when the recommended
    driver/firmware is unknown. A repository that verified another combination adds it under
    `matrix:` in `.perfbot.yml`.

    Example:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |

    Use instead:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    for _row, cells, issues in _issues(ctx, table):
        for i in issues:
            if i.code not in ("cann_mismatch", "cann_accepted") or cells["cann"] is None:
                continue
            if not i.expected:
                continue
            cell = cells["cann"]
            if i.code == "cann_accepted":
                yield Issue(
                    cell.line,
                    f"CANN {q(cell.value)} is accepted by MindSpore {i.mindspore} ("
                    f"{_accepted_from(ctx, i.mindspore)}: CANN {i.accepted}), but the "
                    "recommended pairing is CANN "
                    f"`{i.expected}`{_pairing(ctx, i.mindspore)}",
                    severity="warning",
                    table=table.index,
                    row_key=cell.text,
                )
                continue
            several = len(mindspore_versions(cells["mindspore"].value)) > 1
            accepts = (
                f"; MindSpore {i.mindspore} accepts CANN {i.accepted} "
                f"({_accepted_from(ctx, i.mindspore)})"
                if i.accepted
                else ""
            )
            fix, why = (None, "") if several else _cann_fix(ctx, cells, i)
            yield Issue(
                cell.line,
                f"CANN {q(cell.value)} does not ship with MindSpore {i.mindspore}{accepts}; the "
                f"matrix pairs it with CANN `{i.expected}`"
                + (
                    " (this row names several MindSpore versions: give each its own row)"
                    if several
                    else why + " (if you verified another combination, list it under `matrix:` in "
                    ".perfbot.yml: it replaces perfbot's row for that MindSpore)"
                ),
                fix,
                table=table.index,
                row_key=cell.text,
            )


def _accepted_from(ctx: Context, mindspore: str | None) -> str:
    row = ctx.matrix.lookup(mindspore) if mindspore else None
    if row is not None and row.cann_accepted is not None:
        return "`cann_accepted` of its `matrix:` row"
    return "its wheel's run_check"


def _pairing(ctx: Context, mindspore: str | None) -> str:
    row = ctx.matrix.lookup(mindspore) if mindspore else None
    if row is None:
        return ""
    parts = [f"{k} `{v}`" for k, v in (("driver", row.driver), ("firmware", row.firmware)) if v]
    return f" with {' and '.join(parts)}" if parts else ""


_SAME = {"driver": same_driver, "firmware": same_firmware}

# a version inside a cell: digits and dots with letters (8.0.RC3.beta1, 7.0.0 beta1, 24.1RC2)
# (starting only where a word starts, so a run of digits is tried once: linear time)
_TOKEN = re.compile(r"(?<![0-9A-Za-z.])[0-9]+(?:[.][0-9A-Za-z]+)+(?:[ -](?:beta|alpha)[.]?[0-9]*)?")
_LINK_TARGET = re.compile(r"\]\([^()]*\)")


def version_edit(cell: Cell, kind: str, new: str) -> Edit | None:
    """An edit writing ``new`` in place of the version ``cell`` holds, keeping the rest of the
    cell (a link's target, a `CANN ` prefix, bold, backticks); the whole cell when it holds no
    version of ``kind`` and no link; None when the version cannot be found without touching a
    link."""
    text = cell.text
    whole = parse_version(kind, cell.value)
    hidden = [(m.start(), m.end()) for m in _LINK_TARGET.finditer(text)]
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in hidden):
            continue
        v = parse_version(kind, m.group())
        if v is not None and (whole is None or v.canonical == whole.canonical):
            return Edit(cell.line, cell.start + m.start(), cell.start + m.end(), new)
    if whole is None and "](" not in text:
        return cell_edit(cell, new)
    return None


def _cann_fix(ctx: Context, cells: dict, issue) -> tuple[Fix | None, str]:
    """The fix of a CANN the release does not accept, and what to say when there is none.

    The recommended CANN alone when the row's driver and firmware go with it (no driver/firmware
    finding against it); else the recommended driver, firmware and CANN together; no fix when the
    matrix does not give those."""
    ms = cells["mindspore"].value
    row = ctx.matrix.lookup(ms)
    if row is None or row.cann is None:
        return None, ""
    vals = {k: (c.value if c else None) for k, c in cells.items()}
    after = ctx.matrix.check_row(ms, vals["driver"], vals["firmware"], row.cann)
    stale = [k for k in ("driver", "firmware")
             if any(a.field == k and a.code != "unknown_mindspore" for a in after)]  # fmt: skip
    if stale:
        # the driver and firmware go together: both from the recommended pairing
        stale = [k for k in ("driver", "firmware") if cells[k] is not None and vals[k]]
    edits = []
    for kind in ("cann", *stale):
        want = getattr(row, kind)
        if kind != "cann" and want is not None and _SAME[kind](vals[kind], want):
            continue  # already the recommended one: its bytes stay
        if want is None:
            return None, (
                f"; no fix is offered: the row's {kind} {q(vals[kind] or '')} does not go with "
                f"CANN `{row.cann}` and the matrix has no {kind} for MindSpore {row.mindspore}"
            )
        edit = version_edit(cells[kind], kind, want)
        if edit is None:
            return None, (
                f"; no fix is offered: the {kind} cell's version could not be replaced without "
                "changing its link"
            )
        edits.append(edit)
    title = f"Set CANN to {row.cann}"
    if stale:
        title = "Use the recommended pairing: " + ", ".join(
            f"{k} {getattr(row, k)}"
            for k in ("driver", "firmware", "cann")
            if k in stale or k == "cann"
        )
    edits.sort(key=lambda e: e.start)
    return Fix(title, tuple(edits), "unsafe"), ""


@rule("PB502", "hdk-mismatch", severity="warning", scope="requirements",
      config_keys=("matrix",))  # fmt: skip
def hdk_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """The driver or firmware does not go with the row's CANN.

    A driver is judged against the HDKs Ascend publishes as compatible with the row's CANN (and
    the matrix's own pairings), a firmware against the firmware of those HDKs; a firmware cell
    holding a driver or CANN number is "not a firmware version". READMEs often name the newer HDK
    of the test machine, which may be fine: a warning, with no automatic fix.

    Example:
        | 2.3.1 | 24.1.RC3 | 7.5.0.1.129 | 8.0.RC2.beta1 |

    Use instead:
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
    """
    for row, cells, issues in _issues(ctx, table):
        for i in issues:
            if i.code not in ("driver_mismatch", "firmware_mismatch", "not_firmware"):
                continue
            cell = cells[i.field]
            line = cell.line if cell else row.line
            if i.code == "not_firmware":
                want = f"; the matrix's firmware for MindSpore {i.mindspore} is `{i.expected}`"
                yield Issue(
                    line,
                    f"firmware {q(i.found or '')} is not a firmware version: {i.detail}"
                    + (want if i.expected else ""),
                    table=table.index,
                )
                continue
            what = "ascend driver" if i.field == "driver" else "firmware"
            row_ = ctx.matrix.lookup(i.mindspore) if i.mindspore else None
            known = row_ is not None and getattr(row_, i.field) is not None
            if known:
                compat = ""
                if i.field == "driver" and i.compatible:
                    compat = f"; the HDKs known to work with CANN {i.cann} are {i.compatible}"
                said = (
                    f"is not the one the matrix lists for MindSpore {i.mindspore} "
                    f"(`{i.expected}`){compat}"
                )
            elif i.field == "driver":
                said = (
                    f"is not one of the HDKs known to work with CANN {i.cann} ({i.compatible}); "
                    f"the matrix has no driver for MindSpore {i.mindspore}"
                )
            else:
                said = (
                    f"is not the firmware of an HDK known to work with CANN {i.cann} "
                    f"(`{i.expected}`); the matrix has no firmware for MindSpore {i.mindspore}"
                )
            yield Issue(
                line,
                f"{what} {q(i.found or '')} {said}; if this is the HDK you tested with, it can stay",
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
                        f"MindSpore {code_span(i.found)} is not in perfbot's compatibility matrix, so the "
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
