"""PB410–PB417: cell values in the forms of SPEC §2.2, one rule per form, driven by columns.yaml."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ..context import Context
from ..model import Cell, Row, Table
from ..spec import Resolved
from ..spec.forms import (
    FORMS,
    PLACEHOLDER,
    compile_minutes,
    compile_seconds,
    link_normalizer,
    parse_time,
    round2,
)
from ._util import q, set_cell
from .derived import Shown, _agrees, _formula, _numbers
from .registry import Issue, rule

# --- value forms (SPEC §2.2): one rule per form, driven by columns.yaml -------------------------


def _form_issues(ctx: Context, table: Table, form_name: str) -> Iterator[Issue]:
    key = ("form-columns", table.index)
    by_form = ctx.memo.get(key)
    if not isinstance(by_form, dict):  # once per table, not once per form rule
        by_form = {}
        for col in ctx.columns(table):
            if col.column is not None:
                by_form.setdefault(col.column.form, []).append(col)
        ctx.memo[key] = by_form
    for col in by_form.get(form_name, ()):
        yield from _check_column(ctx, table, col, form_name)


# a short note in brackets after a value (`12x308x476(video)`, `4 (video)`)
_NOTE = re.compile(r"[ \t]{0,3}[(（][^()（）]{1,40}[)）]$")
_NOTED_FORMS = frozenset({"positive_int", "resolution"})


# per form, cell texts that are a placeholder or of the form (what most cells are: `8`, `O2`,
# `0.89` ...), so a text seen before costs a set lookup, not two regular expressions; only
# short texts, and a bounded number of them
_PASSED: dict[str, set[str]] = {}
_PASSED_MAX_LEN = 64
_PASSED_SIZE = 4096


def _check_column(ctx: Context, table: Table, col: Resolved, form_name: str) -> Iterator[Issue]:
    form = FORMS[form_name]
    name = col.column.name  # type: ignore[union-attr]
    label = col.unit or name  # the header as the table writes it when it is a unit variant
    normalize = link_normalizer(name) if form_name == "link" else form.normalize
    seconds: list[Cell] = []  # graph compile in seconds, no fix: one finding for the column
    placeholder, match, i = PLACEHOLDER.match, form.match, col.index
    passed = _PASSED.setdefault(form_name, set())
    for row in table.rows:
        if i >= len(row.cells):  # ctx.cell's None
            continue
        cell = row.cells[i]
        v = cell.value.strip()
        if v in passed:
            continue
        if placeholder(v) or match(v):
            if len(v) <= _PASSED_MAX_LEN:
                if len(passed) >= _PASSED_SIZE:
                    passed.clear()
                passed.add(v)
            continue
        if form_name in _NOTED_FORMS and form.match(_NOTE.sub("", v)):
            continue  # `1372x2044 (image)`, `4 (video)`: the guide's value, with a short note
        if (
            form_name == "graph_compile"
            and ctx.config.allow.compile_seconds
            and (compile_seconds(v) is not None)
        ):
            continue
        if form_name == "decimal2" and name == "s/step" and parse_time(v) is None:
            continue  # PB404 reports a non-numeric step time
        new = normalize(v)
        extra = ""
        if form_name == "graph_compile" and new is None and compile_seconds(v) is not None:
            seconds.append(cell)  # told once for the column, below
            continue
        fix = set_cell(cell, new, f"Write {new}") if new is not None and new != v else None
        if fix is not None and form_name == "decimal2":
            change = rounding_change(v, new)  # type: ignore[arg-type]
            if change is not None and abs(change) > ROUNDING_TOLERANCE:
                fix = set_cell(cell, new, f"Round to {new}", "unsafe")  # type: ignore[arg-type]
                extra = (
                    f" (rounding to 2 decimals changes the value by {_percent(change)}: that "
                    "changes a measurement, so it is an unsafe fix)"
                )
            elif name in ("img/s", "s/step"):
                broken = _breaks_img_s(ctx, table, row, name, new)  # type: ignore[arg-type]
                if broken is not None:
                    new, extra = broken
                    fix = set_cell(cell, new, f"Write {new}", "unsafe")
        suggestion = f"; perfbot suggests `{new}`" if fix else ""
        want = form.want
        t = parse_time(v) if form_name == "decimal2" else None
        if t is not None and t[1] is not None and Shown.half_of(t[2]) == 0.005:
            want = "the number alone (the header gives the unit)"
        yield Issue(
            cell.line,
            f"`{label}` {q(cell.value)}: the guide wants {want}, e.g. `{form.example}`"
            f"{suggestion}{extra}",
            fix,
            table=table.index,
            row_key=ctx.row_key(table, row),
        )
    if seconds:
        yield _compile_seconds_issue(ctx, table, seconds, label)


def _compile_seconds_issue(ctx: Context, table: Table, cells: list[Cell], label: str) -> Issue:
    """graph compile written in seconds (`403.87 s`, `77s`): a repository's convention, told once
    per column (not once per row), with the minutes of its first value."""
    first = cells[0]
    mins = compile_minutes(first.value.strip())[0]  # type: ignore[index]
    more = f" and {len(cells) - 1} more row(s)" if len(cells) > 1 else ""
    return Issue(
        first.line,
        f"`{label}` {q(first.value)}{more} in seconds: the guide wants minutes, one value or a "
        f"range, e.g. `3~5 mins` (≈ {mins:.1f} mins; to keep seconds, set "
        "`allow: {compile_seconds: true}` in .perfbot.yml)",
        table=table.index,
    )


# Padding with zeros (`49` -> `49.00`) and rounding that moves a value by at most 0.5 % of itself
# are presentation (safe fixes), the same for every 2-decimal column; rounding that moves it more
# (`0.025` -> `0.03`, +20 %) changes a measurement: an unsafe fix, and the message says by how much
ROUNDING_TOLERANCE = 0.005


def rounding_change(old: str, new: str) -> float | None:
    """How much writing ``new`` for the number ``old`` shows changes it, relative to it (0.2 for
    `0.025` -> `0.03`); None when ``old`` is not a number or is zero."""
    t = parse_time(old)
    if t is None or not t[0]:
        return None
    try:
        y = float(new)
    except ValueError:
        return None
    return (y - t[0]) / t[0]


def _breaks_img_s(
    ctx: Context, table: Table, row: Row, name: str, new: str
) -> tuple[str, str] | None:
    """The row's img/s agrees with cards × batch size / s/step, and would not once the img/s or
    s/step cell shows ``new`` (2 decimals claim a precision the row's other numbers contradict:
    `399.3` padded to `399.30` where 8 × 10 / 200.37 ms = 399.26). (the value to suggest, a note
    for the message), or None when the edit keeps them agreeing."""
    nums = _numbers(ctx, table, row)
    shown = Shown.of(ctx.cell(row, ctx.column(table, "img/s")))
    t = parse_time(new)
    if nums is None or shown is None or t is None or nums.sp is not None:
        return None
    if not _agrees(nums, shown):
        return None  # PB401's (or a multiple the README explains)
    if name == "img/s":
        if _agrees(nums, Shown(t[0], Shown.half_of(t[2]))):
            return None
        want = round2(nums.cards * nums.batch / nums.per_batch)
        return want, (
            f" (`{new}` would not agree with the row: {_formula(nums)} = {want}; perfbot "
            "suggests the recomputed value, an unsafe fix)"
        )
    if _agrees(replace(nums, step=Shown(t[0], Shown.half_of(t[2]))), shown):
        return None
    return new, (
        f" (`{new}` would no longer agree with img/s {q(_shown_text(row, ctx, table))}: write the "
        "2 decimals you measured; an unsafe fix)"
    )


def _shown_text(row: Row, ctx: Context, table: Table) -> str:
    cell = ctx.cell(row, ctx.column(table, "img/s"))
    return cell.value if cell is not None else ""


def _percent(change: float) -> str:
    pct = change * 100
    return f"{pct:+.2g} %" if abs(pct) < 10 else f"{pct:+.0f} %"


def _form_rule(
    id: str, slug: str, form_name: str, doc: str, severity: str = "warning", safety: str = "safe"
) -> None:
    def check(ctx: Context, table: Table) -> Iterator[Issue]:
        return _form_issues(ctx, table, form_name)

    check.__doc__ = doc
    check.__name__ = slug.replace("-", "_")
    rule(id, slug, severity=severity, scope="performance", fix="sometimes", safety=safety)(check)  # type: ignore[arg-type]


_form_rule(
    "PB410",
    "two-decimals",
    "decimal2",
    """\
s/step, img/s, s/img, s/video, psnr and ssim are numbers with exactly 2 decimals.

Padding with zeros (`0.9` to `0.90`, `49` to `49.00`) is presentation, a safe fix, the same in
every 2-decimal column (s/step, img/s, s/img, s/video, psnr, ssim). Rounding a longer number is
safe when it moves the value by at most 0.5 % of itself (`71.9123` to `71.91`); rounding that
moves it more (`0.025` to `0.03`: +20 %) changes a measurement: an unsafe fix, and the message
says by how much. Padding or rounding img/s or s/step so that the row's img/s no longer agrees
with cards × batch size / s/step (`399.3` padded to `399.30` where the row computes 399.26) is
unsafe too: img/s gets the recomputed value.

Example:
    | ... | 0.9 | 71.9123 |

Use instead:
    | ... | 0.90 | 71.91 |
""",
    safety="mixed",
)
_form_rule(
    "PB411",
    "positive-integer",
    "positive_int",
    """\
cards, batch size, steps, stage and grad accu are positive integers.

Example:
    | dit | 8.0 | 64 | ...

Use instead:
    | dit | 8 | 64 | ...
""",
)
_form_rule(
    "PB412",
    "resolution-format",
    "resolution",
    """\
resolution is `WxH` (or `FxHxW` for video) with a lowercase `x` and no spaces.

Example:
    | ... | 1024 X 1024 | ...

Use instead:
    | ... | 1024x1024 | ...
""",
)
_form_rule(
    "PB413",
    "jit-level-format",
    "jit_level",
    """\
jit level is `O0`, `O1` or `O2`, with the capital letter O.

Example:
    | ... | o2 | ...

Use instead:
    | ... | O2 | ...
""",
)
_form_rule(
    "PB414",
    "graph-compile-format",
    "graph_compile",
    """\
graph compile is given in minutes, one value or a range: `5 mins`, `3~5 mins`.

Seconds (`77s`) are accepted when `.perfbot.yml` sets `allow: {compile_seconds: true}`;
otherwise a column in seconds is one finding, on its first row (a repository's convention,
not a mistake in each row).

Example:
    | ... | 3-5 min | ...

Use instead:
    | ... | 3~5 mins | ...
""",
)
_form_rule(
    "PB415",
    "switch-format",
    "switch",
    """\
sink, flash attn, recompute, cache and discriminator are `ON` or `OFF`.

Example:
    | ... | on | False | ...

Use instead:
    | ... | ON | OFF | ...
""",
)
_form_rule(
    "PB416",
    "precision-format",
    "precision",
    """\
precision is `fp32`, `fp16` or `bf16` (mixed precision: a note under the table).

Example:
    | ... | FP16 | ...

Use instead:
    | ... | fp16 | ...
""",
)
_form_rule(
    "PB417",
    "link-format",
    "link",
    """\
recipe and weight are Markdown links.

Example:
    | ... | https://example.com/dit.ckpt |

Use instead:
    | ... | [weight](https://example.com/dit.ckpt) |
""",
)
