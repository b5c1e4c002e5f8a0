"""PB4xx: cell values: the forms of SPEC §2.2 and the derived numbers (img/s, s/img)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..context import Context
from ..model import Cell, Row, Table
from ..registry import Issue, rule
from ..spec import Resolved
from ..spec.forms import (
    FORMS,
    PLACEHOLDER,
    compile_minutes,
    compile_seconds,
    link_normalizer,
    parse_number,
    parse_time,
    round2,
)
from ._util import q, set_cell

# --- numbers as shown, with the precision they were rounded to ---------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """A number as a README shows it: the value and the half-width of its rounding interval."""

    value: float
    half: float

    @classmethod
    def of(cls, cell: Cell | None) -> Shown | None:
        if cell is None:
            return None
        x = parse_number(cell.value)
        if x is None:
            return None
        text = cell.value.strip().strip("*`")
        text = (
            text.replace(",", ".")
            if text.count(",") == 1 and len(text.split(",")[1]) < 3
            else text.replace(",", "")
        )
        return cls(x, cls.half_of(text))

    @staticmethod
    def half_of(text: str) -> float:
        decimals = len(text.split(".", 1)[1]) if "." in text else 0
        return 0.5 * 10.0**-decimals

    @property
    def lo(self) -> float:
        return self.value - self.half

    @property
    def hi(self) -> float:
        return self.value + self.half


def _int(cell: Cell | None) -> int | None:
    x = parse_number(cell.value) if cell else None
    return int(x) if x is not None and x == int(x) and x > 0 else None


@dataclass(frozen=True, slots=True)
class RowNumbers:
    cards: int
    batch: int
    steps: int  # sampling steps for inference tables, 1 for training
    step: Shown  # s/step as shown (in the column's unit)
    scale: float  # step.value * scale = seconds
    step_cell: Cell
    frames: int = 1  # a `frames` column: img/s may count frames

    @property
    def per_batch(self) -> float:
        """Seconds one batch takes, from the shown s/step."""
        return self.steps * self.step.value * self.scale

    def batch_time_range(self) -> tuple[float, float]:
        """Seconds one batch takes (steps × s/step), for every s/step that rounds as shown."""
        k = self.steps * self.scale
        return k * self.step.lo, k * self.step.hi

    def throughput_range(self, per_sample: int = 1) -> tuple[float, float]:
        """img/s for every true step time that rounds to the shown s/step."""
        n = self.cards * self.batch * per_sample
        lo_t, hi_t = self.batch_time_range()
        return n / hi_t, n / lo_t


def _numbers(ctx: Context, table: Table, row: Row) -> RowNumbers | None:
    step_col = ctx.column(table, "s/step")
    cards = _int(ctx.cell(row, ctx.column(table, "cards")))
    batch = _int(ctx.cell(row, ctx.column(table, "batch size")))
    step_cell = ctx.cell(row, step_col)
    t = parse_time(step_cell.value) if step_cell else None
    if step_col is None or cards is None or batch is None or t is None:
        return None
    x, unit, text = t
    scale = step_col.scale
    if unit == "s":
        scale = 1.0  # "0.89s" under any header is seconds
    elif unit == "ms":
        scale = 0.001
    step = Shown(x, Shown.half_of(text))
    if step.lo <= 0:
        return None
    steps = 1
    if ctx.is_inference(table) and ctx.column(table, "steps") is not None:
        s = _int(ctx.cell(row, ctx.column(table, "steps")))
        if s is None:
            return None
        steps = s
    frames = _int(ctx.cell(row, ctx.column(table, "frames")))
    return RowNumbers(cards, batch, steps, step, scale, step_cell, frames or 1)


def _fmt(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x}"


def _step_text(nums: RowNumbers) -> str:
    v = nums.step_cell.value
    return f"{v} ms" if nums.scale != 1 and not v.endswith("ms") else v


def _overlaps(a_lo: float, a_hi: float, b_lo: float, b_hi: float) -> bool:
    eps = 1e-9 * max(1.0, abs(a_hi), abs(b_hi))
    return a_lo <= b_hi + eps and b_lo <= a_hi + eps


def _agrees(nums: RowNumbers, shown: Shown, per_sample: int = 1) -> bool:
    return _overlaps(*nums.throughput_range(per_sample), shown.lo, shown.hi)


def _derived_rows(
    ctx: Context, table: Table, name: str = "img/s"
) -> Iterator[tuple[Row, RowNumbers, Cell, Shown]]:
    """Rows whose ``name`` cell (img/s, s/img ...) can be compared with cards, batch size and
    s/step: (row, its numbers, the cell, the number it shows)."""
    col = ctx.column(table, name)
    if col is None:
        return
    for row in table.rows:
        nums = _numbers(ctx, table, row)
        cell = ctx.cell(row, col)
        shown = Shown.of(cell)
        if nums is not None and shown is not None and cell is not None:
            yield row, nums, cell, shown


def _time_per_image(nums: RowNumbers, shown: Shown) -> bool:
    """The shown img/s is steps × s/step: the time per image (PB402's), in an inference table."""
    return nums.steps > 1 and _overlaps(*nums.batch_time_range(), shown.lo, shown.hi)


def _multiple(nums: RowNumbers, shown: Shown) -> int | None:
    """k >= 2 when the shown img/s is k x the guide's value (k images per sample), else None."""
    base = nums.cards * nums.batch / nums.per_batch
    if base <= 0:
        return None
    k = round(shown.value / base)
    return k if 2 <= k <= 256 and _agrees(nums, shown, k) else None


@rule("PB401", "img-s-mismatch", severity="error", scope="performance", fix="always")
def img_s_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """img/s does not equal cards × batch size / s/step (÷ steps in inference tables).

    s/step is itself rounded, so a shown img/s agrees when some step time that rounds to the
    shown s/step gives it: 4 × 64 / 1.03 = 248.54 shown as 248.52 agrees (1.0301 s). The fix
    writes the value computed from the shown cells; the message also says which s/step would
    make the shown img/s right, in case s/step is the wrong cell.

    Example:
        | dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |

    Use instead:
        | dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |
    """
    for row, nums, img_cell, shown in _derived_rows(ctx, table):
        if _agrees(nums, shown) or (nums.frames > 1 and _agrees(nums, shown, nums.frames)):
            continue
        if _time_per_image(nums, shown):
            continue  # reported by PB402: the value is the time per image
        if _multiple(nums, shown):
            continue  # reported by PB406: several images per sample
        want = round2(nums.cards * nums.batch / nums.per_batch)
        formula = f"{nums.cards} × {nums.batch}"
        formula += (
            f" / ({nums.steps} × {_step_text(nums)})"
            if nums.steps > 1
            else (f" / {_step_text(nums)}")
        )
        if shown.value > 0:
            implied = nums.cards * nums.batch / (shown.value * nums.steps) / nums.scale
            hint = f"; the shown img/s would need s/step ≈ {implied:.2f}"
            if nums.scale != 1:
                hint += " ms"
        else:
            hint = ""
        yield Issue(
            img_cell.line,
            f"img/s {q(img_cell.value)} does not match cards × batch size / s/step: "
            f"{formula} = {want}{hint}",
            set_cell(img_cell, want, f"Set img/s to {want}"),
            table=table.index,
            row_key=ctx.row_key(table, row),
        )


@rule("PB402", "img-s-is-s-img", severity="warning", scope="performance")
def img_s_is_s_img(ctx: Context, table: Table) -> Iterator[Issue]:
    """In an inference table, the img/s cell holds the time per image (steps × s/step).

    The guide's own inference example (`ddim | 40 | O1 | 5 mins | 0.11 | 4.40`) puts
    40 × 0.11 = 4.40 s under img/s. Throughput is cards × batch size / (steps × s/step); a time
    per image belongs in an `s/img` (or `s/video`) column, an optional column that goes before the
    inference tail.

    Example:
        | model name | ... | scheduler | steps | jit level | graph compile | s/step | img/s |
        | sd | ... | ddim | 40 | O1 | 5 mins | 0.11 | 4.40 |

    Use instead:
        | model name | ... | s/img | scheduler | steps | jit level | graph compile | s/step | img/s |
        | sd | ... | 4.40 | ddim | 40 | O1 | 5 mins | 0.11 | 0.23 |
    """
    if not ctx.is_inference(table):
        return
    for row, nums, img_cell, shown in _derived_rows(ctx, table):
        if nums.steps <= 1 or _agrees(nums, shown):
            continue
        if _time_per_image(nums, shown):
            want = round2(nums.cards * nums.batch / nums.per_batch)
            yield Issue(
                img_cell.line,
                f"img/s {q(img_cell.value)} looks like seconds per image "
                f"({nums.steps} steps × {_step_text(nums)}); img/s would be {want}: "
                "put the time per image in an `s/img` column",
                table=table.index,
                row_key=ctx.row_key(table, row),
            )


@rule("PB406", "img-s-multiple", severity="info", scope="performance")
def img_s_multiple(ctx: Context, table: Table) -> Iterator[Issue]:
    """img/s is a whole multiple of cards × batch size / s/step: several images per sample?

    A model that makes several images per sample (multi-view generation, video frames) may count
    each of them. The guide's img/s counts samples; say in a note under the table what img/s
    counts, or add a `frames` column (then img/s may count frames).

    Example:
        | mvd | 1 | 1 | 512x512 | O0 | euler | 50 | 1.60 | 0.075 |

    Use instead:
        | mvd | 1 | 1 | 512x512 | O0 | euler | 50 | 1.60 | 0.01 |

        (or keep 0.075 with a note: "img/s counts the 6 views of each sample")
    """
    for row, nums, img_cell, shown in _derived_rows(ctx, table):
        if _agrees(nums, shown):
            continue
        if nums.frames > 1 and _agrees(nums, shown, nums.frames):
            continue
        if _time_per_image(nums, shown):
            continue  # reported by PB402, not "steps × s/step images per sample"
        k = _multiple(nums, shown)
        if k:
            base = round2(nums.cards * nums.batch / nums.per_batch)
            yield Issue(
                img_cell.line,
                f"img/s {q(img_cell.value)} is {k} × cards × batch size / s/step ({base}); if each "
                f"sample yields {k} images, say so in a note under the table",
                table=table.index,
                row_key=ctx.row_key(table, row),
            )


@rule("PB403", "s-img-mismatch", severity="error", scope="performance", fix="always")
def s_img_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """s/img (or s/video) does not equal steps × s/step / (cards × batch size).

    In an inference table one batch takes steps × s/step seconds; for batch size 1 that is the
    time per image or video (dynamicrafter: 50 × 1.42 = 71.00 s/video).

    Example:
        | ... | ddim | 50 | O1 | 5 mins | 1.42 | 0.01 | 80.00 |

    Use instead:
        | ... | ddim | 50 | O1 | 5 mins | 1.42 | 0.01 | 71.00 |
    """
    if not ctx.is_inference(table) or ctx.column(table, "steps") is None:
        return
    for name in ("s/img", "s/video"):
        for row, nums, cell, shown in _derived_rows(ctx, table, name):
            n = nums.cards * nums.batch
            lo, hi = nums.batch_time_range()
            if _overlaps(lo / n, hi / n, shown.lo, shown.hi):
                continue
            want = round2(nums.per_batch / n)
            yield Issue(
                cell.line,
                f"{name} {q(cell.value)} does not match steps × s/step / (cards × batch size): "
                f"{nums.steps} × {_step_text(nums)} / ({nums.cards} × {nums.batch}) = {want}",
                set_cell(cell, want, f"Set {name} to {want}"),
                table=table.index,
                row_key=ctx.row_key(table, row),
            )


@rule("PB404", "step-time-invalid", severity="error", scope="performance")
def step_time_invalid(ctx: Context, table: Table) -> Iterator[Issue]:
    """s/step is not a positive number, so img/s cannot be derived from it.

    Example:
        | dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.00 | 71.91 |

    Use instead:
        | dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |
    """
    col = ctx.column(table, "s/step")
    if col is None:
        return
    for row in table.rows:
        cell = ctx.cell(row, col)
        if cell is None or PLACEHOLDER.match(cell.value.strip()):
            continue  # missing values are PB405's
        t = parse_time(cell.value)
        if t is None:
            yield Issue(
                cell.line,
                f"s/step {q(cell.value)} is not a number; the guide wants seconds per step "
                "with 2 decimals, e.g. `0.89`",
                table=table.index,
                row_key=ctx.row_key(table, row),
            )
        elif t[0] <= 0 or t[0] - Shown.half_of(t[2]) <= 0:
            yield Issue(
                cell.line,
                f"s/step {q(cell.value)} is not a positive time; img/s cannot follow from it",
                table=table.index,
                row_key=ctx.row_key(table, row),
            )


@rule("PB405", "missing-value", severity="warning", scope="performance")
def missing_value(ctx: Context, table: Table) -> Iterator[Issue]:
    """A required column has an empty or placeholder cell (`-`, `N/A`, `xx.xx`).

    Example:
        | dit | 1 | 64 | 256x256 | O2 | - | 0.89 | 71.91 |

    Use instead:
        | dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |
    """
    required = set(ctx.spec.required(ctx.is_inference(table)))
    cols = [c for c in ctx.columns(table) if c.name in required]
    for row in table.rows:
        for col in cols:
            cell = ctx.cell(row, col)
            if cell is not None and PLACEHOLDER.match(cell.value.strip()):
                yield Issue(
                    cell.line,
                    f"`{col.name}` has no value ({q(cell.value)}); the guide requires it",
                    table=table.index,
                    row_key=ctx.row_key(table, row),
                )


# --- value forms (SPEC §2.2): one rule per form, driven by columns.yaml -------------------------


def _form_issues(ctx: Context, table: Table, form_name: str) -> Iterator[Issue]:
    for col in ctx.columns(table):
        if col.column is None or col.column.form != form_name:
            continue
        yield from _check_column(ctx, table, col, form_name)


def _check_column(ctx: Context, table: Table, col: Resolved, form_name: str) -> Iterator[Issue]:
    form = FORMS[form_name]
    name = col.column.name  # type: ignore[union-attr]
    label = col.unit or name  # the header as the table writes it when it is a unit variant
    normalize = link_normalizer(name) if form_name == "link" else form.normalize
    for row in table.rows:
        cell = ctx.cell(row, col)
        if cell is None:
            continue
        v = cell.value.strip()
        if PLACEHOLDER.match(v) or form.match(v):
            continue
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
        if form_name == "graph_compile" and new is None:
            sec = compile_seconds(v)
            if sec is not None:
                extra = (
                    f" (≈ {compile_minutes(v)[0]:.1f} mins; to keep seconds, set "  # type: ignore[index]
                    "`allow: {compile_seconds: true}` in .perfbot.yml)"
                )
        fix = set_cell(cell, new, f"Write {new}") if new is not None and new != v else None
        suggestion = f"; perfbot suggests `{new}`" if fix else ""
        yield Issue(
            cell.line,
            f"`{label}` {q(cell.value)}: the guide wants {form.want}, e.g. `{form.example}`"
            f"{suggestion}{extra}",
            fix,
            table=table.index,
            row_key=ctx.row_key(table, row),
        )


def _form_rule(id: str, slug: str, form_name: str, doc: str, severity: str = "warning") -> None:
    def check(ctx: Context, table: Table) -> Iterator[Issue]:
        return _form_issues(ctx, table, form_name)

    check.__doc__ = doc
    check.__name__ = slug.replace("-", "_")
    rule(id, slug, severity=severity, scope="performance", fix="sometimes")(check)  # type: ignore[arg-type]


_form_rule(
    "PB410",
    "two-decimals",
    "decimal2",
    """\
s/step, img/s, s/img, s/video, psnr and ssim are numbers with exactly 2 decimals.

Example:
    | ... | 0.9 | 71.9123 |

Use instead:
    | ... | 0.90 | 71.91 |
""",
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

Seconds (`77s`) are accepted when `.perfbot.yml` sets `allow: {compile_seconds: true}`.

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
