"""PB401–PB406: the derived numbers: img/s and s/img against cards × batch size / s/step, the step
time, missing values (the numbers a row shows, with the precision they were rounded to)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from ..context import Context
from ..model import Cell, Row, Table
from ..spec.forms import (
    PLACEHOLDER,
    frames_last,
    parse_number,
    parse_time,
    round2,
)
from ._util import not_applicable, q, set_cell
from .registry import Issue, rule

# --- numbers as shown, with the precision they were rounded to ---------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """A number as a README shows it: the value and the half-width of its rounding interval.

    A derived number may also be cut rather than rounded (245.337 shown as 245.33): ``cut``
    widens the interval upwards to the next value in the last digit shown."""

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

    @property
    def cut_hi(self) -> float:
        """The top of the interval when the last digit may have been cut, not rounded."""
        return self.value + 2 * self.half


def _int(cell: Cell | None) -> int | None:
    x = parse_number(cell.value) if cell else None
    return int(x) if x is not None and x == int(x) and x > 0 else None


# `8 shards`, `4`, `sp=4`: how many cards share one sample; ON: some, unknown
_SP_COUNT = re.compile(r"(?i)^\D{0,8}?([1-9][0-9]{0,3})\b")
_SP_ON = re.compile(r"(?i)^\W*(?:on|yes|true|enabled?|✓|✔|√)\W*$")


def _sequence_parallel(cell: Cell | None) -> int | None:
    """Cards per sample in a sequence-parallel row: n >= 2, 0 when ON without a number, None
    when the row is not sequence parallel (no column, OFF, 1, a placeholder)."""
    if cell is None:
        return None
    v = cell.value.strip()[:40]
    m = _SP_COUNT.match(v)
    if m:
        n = int(m.group(1))
        return n if n >= 2 else None
    return 0 if _SP_ON.match(v) else None


@dataclass(frozen=True, slots=True)
class RowNumbers:
    cards: int
    batch: int
    steps: int  # sampling steps for inference tables, 1 for training
    step: Shown  # s/step as shown (in the column's unit)
    scale: float  # step.value * scale = seconds
    step_cell: Cell
    frames: int = 1  # a `frames` column: img/s may count frames
    sp: int | None = None  # cards per sample (sequence parallel); 0: some, unknown
    inverse: bool = False  # the cell is steps per second (`step/s`): ``step`` is its reciprocal

    @property
    def per_batch(self) -> float:
        """Seconds one batch takes, from the shown s/step."""
        return self.steps * self.step.value * self.scale

    def batch_time_range(self) -> tuple[float, float]:
        """Seconds one batch takes (steps × s/step), for every s/step that rounds as shown."""
        k = self.steps * self.scale
        return k * self.step.lo, k * self.step.hi

    def throughput_range(self, per_sample: float = 1) -> tuple[float, float]:
        """img/s for every true step time that rounds to the shown s/step."""
        n = self.cards * self.batch * per_sample
        lo_t, hi_t = self.batch_time_range()
        return n / hi_t, n / lo_t

    def parallel_shares(self) -> list[float]:
        """The fractions of cards × batch size that are distinct samples: 1, or 1 / sp for a
        sequence-parallel row (every divisor of cards when the sp degree is not written)."""
        if self.sp is None:
            return [1.0]
        if self.sp >= 2:
            return [1.0 / self.sp]
        return [1.0 / d for d in range(1, self.cards + 1) if self.cards % d == 0][:64]


def _number_columns(ctx: Context, table: Table) -> tuple:
    """The columns :func:`_numbers` reads, looked up once per table (it runs once per row):
    s/step, cards, batch size, steps (None unless an inference table has it), frames,
    sequence parallel."""
    key = ("number-columns", table.index)
    found = ctx.memo.get(key)
    if found is None:
        col = ctx.column
        steps = col(table, "steps") if ctx.is_inference(table) else None
        found = (
            col(table, "s/step"),
            col(table, "cards"),
            col(table, "batch size"),
            steps,
            col(table, "frames"),
            col(table, "sequence parallel"),
        )
        ctx.memo[key] = found
    return found  # type: ignore[return-value]


def _numbers(ctx: Context, table: Table, row: Row) -> RowNumbers | None:
    step_col, cards_col, batch_col, steps_col, frames_col, sp_col = _number_columns(ctx, table)
    cell = ctx.cell
    if (cards_col is None or cards_col.how == "embedded") and step_col is not None:
        # no cards column: the card count its timing header gives (`Graph train 1P (ms/step)`),
        # else the machine a `Context` cell names (`D910x8-G`)
        rate_col = ctx.column(table, "img/s")
        cards = step_col.cards or (rate_col.cards if rate_col is not None else None)
        machine = cell(row, cards_col)
        if cards is None and machine is not None:
            m = ctx.spec.cards_in_machine.search(machine.value[:80])
            cards = int(m.group(1)) if m else None
    else:
        cards = _int(cell(row, cards_col))
    batch = _int(cell(row, batch_col))
    step_cell = cell(row, step_col)
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
    inverse = step_col.inverse
    if inverse:
        # steps per second: the step times whose rate rounds to the shown one, 1/hi .. 1/lo
        lo, hi = 1 / step.hi, 1 / step.lo
        step, scale = Shown((lo + hi) / 2, (hi - lo) / 2), 1.0
    steps = 1
    if steps_col is not None:  # an inference table with a steps column
        s = _int(cell(row, steps_col))
        if s is None:
            return None
        steps = s
    frames = _int(cell(row, frames_col))
    sp = _sequence_parallel(cell(row, sp_col))
    return RowNumbers(cards, batch, steps, step, scale, step_cell, frames or 1, sp, inverse)


def _fmt(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x}"


def _step_text(nums: RowNumbers) -> str:
    v = nums.step_cell.value
    if nums.inverse:
        return f"(1 / {v} step/s)"
    return f"{v} ms" if nums.scale != 1 and not v.endswith("ms") else v


def _overlaps(a_lo: float, a_hi: float, b_lo: float, b_hi: float) -> bool:
    eps = 1e-9 * max(1.0, abs(a_hi), abs(b_hi))
    return a_lo <= b_hi + eps and b_lo <= a_hi + eps


def _agrees(nums: RowNumbers, shown: Shown, per_sample: float = 1) -> bool:
    """The shown img/s follows from the row for some step time that rounds to the shown s/step,
    the shown img/s rounded or cut in its last digit."""
    return any(
        _overlaps(*nums.throughput_range(per_sample * share), shown.lo, shown.cut_hi)
        for share in nums.parallel_shares()
    )


# --- what the table says img/s counts ----------------------------------------------------------

# "Stage 1: Image to 6 Views", "img/s counts the 16 frames of a video"
_COUNT_WORD = re.compile(r"(?i)\b([1-9][0-9]{0,3})[ -]?(?:views?|frames?|images?|imgs?)\b")
_VIDEO_WORD = re.compile(r"(?i)\b(?:videos?|frames?|views?|multi-view|3d)\b")
_NOTE_LINES = 12  # how far below a table a note about it may sit
_NOTE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Counting:
    """What the table, its heading and the notes below it say one sample of img/s holds."""

    counts: frozenset[int]  # sample sizes written somewhere (`6 Views`, `16 frames`)
    frames_formula: bool  # a note says img/s multiplies by the number of frames
    video: bool  # a video or multi-view table (weak evidence: several images per sample)


def notes_below(ctx: Context, table: Table) -> list[str]:
    """The lines right under a table, up to the next heading, table or a few lines."""
    out: list[str] = []
    starts = ctx.memo.get("block-starts")
    if not isinstance(starts, list):  # once per document: a README can hold thousands of tables
        starts = sorted([h.line for h in ctx.doc.headings] + [t.start_line for t in ctx.doc.tables])
        ctx.memo["block-starts"] = starts
    i = bisect_right(starts, table.end_line)
    stop = min([table.end_line + 1 + _NOTE_LINES, *starts[i : i + 1]])
    size = 0
    for n in range(table.end_line + 1, min(stop, len(ctx.source.lines) + 1)):
        line = ctx.source.line(n)[:_NOTE_CHARS]
        size += len(line)
        if size > _NOTE_CHARS:
            break
        out.append(line)
    return out


def _counting(ctx: Context, table: Table) -> Counting:
    key = ("counting", table.index)
    found = ctx.memo.get(key)
    if isinstance(found, Counting):
        return found
    notes = notes_below(ctx, table)
    # the table's own headings, not the document's title (`# Open-Sora: video generation` says
    # nothing about one table)
    title = next((h for h in ctx.doc.headings if h.level == 1), None)
    texts = [h.text for h in table.section[-2:] if h is not title] + notes
    if table.sentence is not None:
        texts.append(table.sentence.text)
    counts: set[int] = set()
    video = False
    for t in texts:
        counts.update(int(m.group(1)) for m in _COUNT_WORD.finditer(t[:_NOTE_CHARS]))
        video = video or _VIDEO_WORD.search(t[:_NOTE_CHARS]) is not None
    formula = False
    for line in notes:
        low = line.lower()
        if "frame" in low and "=" in low and ("img" in low or "image" in low or "fps" in low):
            formula = True
    names = {c.name for c in ctx.columns(table)}
    video = video or bool(names & {"frames", "s/video"})
    res = ctx.column(table, "resolution")
    if res is not None:
        for row in table.rows[:8]:
            cell = ctx.cell(row, res)
            if cell is not None and cell.value.lower().count("x") == 2:
                video = True
    found = Counting(frozenset(counts), formula, video)
    ctx.memo[key] = found
    return found


def _frames_of(ctx: Context, table: Table, row: Row, nums: RowNumbers) -> set[int]:
    """Sample sizes the row itself gives: its `frames` cell, the F of an `FxHxW` resolution."""
    out = {nums.frames} if nums.frames > 1 else set()
    cell = ctx.cell(row, ctx.column(table, "resolution"))
    if cell is not None:
        parts = re.split(r"\s*[xX×*]\s*", cell.value.strip()[:40])
        if len(parts) == 3 and parts[0].isdigit() and 1 < int(parts[0]) <= 4096:
            out.add(int(parts[0]))
        last = frames_last(cell.value)
        if last is not None:  # `256x256x32`: the frames written last
            out.add(last)
    return out


def _multiple(nums: RowNumbers, shown: Shown) -> int | None:
    """k >= 2 when the shown img/s is k x the guide's value, else None."""
    base = nums.cards * nums.batch / nums.per_batch
    if base <= 0:
        return None
    k = round(shown.value / base)
    return k if 2 <= k <= 4096 and _agrees(nums, shown, k) else None


def _explained(ctx: Context, table: Table, row: Row, nums: RowNumbers, shown: Shown) -> bool:
    """The shown img/s counts several images per sample, and the README says how many (a
    `frames` column, an `FxHxW` resolution, `6 views` in its heading or a note, or a note under
    the table saying img/s multiplies by the frames)."""
    k = _multiple(nums, shown)
    if k is None:
        return False
    how = _counting(ctx, table)
    return how.frames_formula or k in how.counts or k in _frames_of(ctx, table, row, nums)


def _inverted(nums: RowNumbers, shown: Shown) -> bool:
    """The `s/step` cell holds steps per second: img/s = cards × batch size × value / steps."""
    if nums.scale != 1 or nums.inverse or nums.step.value <= 0:
        return False
    n = nums.cards * nums.batch / nums.steps
    return _overlaps(n * nums.step.lo, n * nums.step.hi, shown.lo, shown.cut_hi)


def _derived_rows(
    ctx: Context, table: Table, name: str = "img/s"
) -> list[tuple[Row, RowNumbers, Cell, Shown]]:
    """Rows whose ``name`` cell (img/s, s/img ...) can be compared with cards, batch size and
    s/step: (row, its numbers, the cell, the number it shows). Worked out once per table (PB401,
    PB402, PB406 and PB403 read them)."""
    key = ("derived-rows", table.index, name)
    found = ctx.memo.get(key)
    if found is None:
        found = []
        col = ctx.column(table, name)
        if col is not None:
            for row in table.rows:
                nums = _numbers(ctx, table, row)
                cell = ctx.cell(row, col)
                shown = Shown.of(cell)
                if nums is not None and shown is not None and cell is not None:
                    found.append((row, nums, cell, shown))
        ctx.memo[key] = found
    return found  # type: ignore[return-value]


def _unexplained(ctx: Context, table: Table) -> list[tuple[Row, RowNumbers, Cell, Shown]]:
    """The img/s rows that do not agree with cards × batch size / s/step and are not explained
    by what the table says one sample counts (PB401's and PB406's rows), worked out once."""
    key = ("unexplained", table.index)
    found = ctx.memo.get(key)
    if found is None:
        found = [
            d
            for d in _derived_rows(ctx, table)
            if not (_agrees(d[1], d[3]) or _explained(ctx, table, d[0], d[1], d[3]))
        ]
        ctx.memo[key] = found
    return found  # type: ignore[return-value]


def _time_per_image(nums: RowNumbers, shown: Shown) -> bool:
    """The shown img/s is steps × s/step: the time per image (PB402's), in an inference table."""
    return nums.steps > 1 and _overlaps(*nums.batch_time_range(), shown.lo, shown.hi)


def _formula(nums: RowNumbers) -> str:
    formula = f"{nums.cards} × {nums.batch}"
    if nums.steps > 1:
        return formula + f" / ({nums.steps} × {_step_text(nums)})"
    return formula + f" / {_step_text(nums)}"


@rule("PB401", "img-s-mismatch", severity="error", scope="performance", fix="sometimes",
      safety="unsafe")  # fmt: skip
def img_s_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """img/s does not equal cards × batch size / s/step (÷ steps in inference tables).

    s/step is itself rounded, so a shown img/s agrees when some step time that rounds to the
    shown s/step gives it: 4 × 64 / 1.03 = 248.54 shown as 248.52 agrees (1.0301 s); an img/s
    cut in its last digit (245.337 shown as 245.33) agrees too. A row that counts several images
    per sample agrees when the README says how many (a `frames` column, an `FxHxW` resolution,
    `6 views` in the heading, a note under the table such as
    `img/s = cards * batch_size * num_frames / step_time`); a sequence-parallel row (several
    cards on one sample) does not multiply by every card.

    In an inference table, an img/s computed per sampling step (cards × batch size / s/step,
    the factor between the two readings being the `steps` cell) is a warning that gives both
    numbers, not an error: the guide's formula read literally gives it.

    The fix writes the value computed from the shown cells. It is unsafe: the message says which
    s/step would make the shown img/s right, and either cell may be the wrong one. An img/s that
    is a whole multiple of the computed one (8 ×: is `cards` wrong?), an img/s of one card
    (batch size / s/step in a several-card row: or is the batch size the global one?) and a
    `s/step` column that holds steps per second get no fix.

    Example:
        | dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |

    Use instead:
        | dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |
    """
    for row, nums, img_cell, shown in _unexplained(ctx, table):
        if _time_per_image(nums, shown):
            continue  # reported by PB402: the value is the time per image
        if nums.steps > 1 and _agrees(nums, shown, nums.steps):
            yield _per_step_issue(ctx, table, row, nums, img_cell)
            continue
        k = _multiple(nums, shown)
        if k and _counting(ctx, table).video:
            continue  # reported by PB406: a video table that does not say what img/s counts
        want = round2(nums.cards * nums.batch / nums.per_batch)
        where = {"table": table.index, "row_key": ctx.row_key(table, row)}
        if _inverted(nums, shown):
            yield Issue(
                img_cell.line,
                f"the `s/step` cell {q(nums.step_cell.value)} looks like steps per second: img/s "
                f"{q(img_cell.value)} is cards × batch size × the cell "
                f"({nums.cards} × {nums.batch} × {nums.step_cell.value}"
                + (f" / {nums.steps} steps" if nums.steps > 1 else "")
                + f" = {round2(nums.cards * nums.batch * nums.step.value / nums.steps)})"
                + f"; write seconds per step ({round2(1 / nums.step.value)} s/step), or check "
                f"img/s (with {nums.step_cell.value} s/step it would be {want})",
                **where,  # type: ignore[arg-type]
            )
            continue
        if k:
            yield Issue(
                img_cell.line,
                f"img/s {q(img_cell.value)} is {k} × cards × batch size / s/step "
                f"({_formula(nums)} = {want}): is `cards` or `batch size` wrong, or does each "
                f"sample count {k} images? (then say so in a note under the table, e.g. "
                "`img/s = cards * batch_size * num_frames / step_time`)",
                **where,  # type: ignore[arg-type]
            )
            continue
        if nums.cards >= 2 and nums.sp is None and _agrees(nums, shown, 1 / nums.cards):
            # 16 / 284.93 ms = 56.15 with 4 cards: one card's throughput, or a global batch
            # size; either cell may be the one to change, so no fix
            one = round2(nums.batch / nums.per_batch)
            per_card = ""
            if nums.batch % nums.cards == 0:
                per_card = (
                    f"; or, if `batch size` ({nums.batch}) is the global batch, write the batch "
                    f"size per card ({nums.batch // nums.cards})"
                )
            yield Issue(
                img_cell.line,
                f"img/s {q(img_cell.value)} is one card's throughput, batch size / s/step "
                f"({_formula(nums).split(' × ', 1)[1]} = {one}): with {nums.cards} cards the "
                f"guide's img/s is {_formula(nums)} = {want}{per_card}",
                **where,  # type: ignore[arg-type]
            )
            continue
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
            f"{_formula(nums)} = {want}{hint}",
            set_cell(img_cell, want, f"Set img/s to {want}", "unsafe"),
            **where,  # type: ignore[arg-type]
        )


def _per_step_issue(ctx: Context, table: Table, row: Row, nums: RowNumbers, cell: Cell) -> Issue:
    """img/s computed per sampling step in an inference table (the guide's formula read
    literally, s/step being one sampling step): a warning with both readings, not an error."""
    per_step = round2(nums.cards * nums.batch / (nums.step.value * nums.scale))
    per_image = round2(nums.cards * nums.batch / nums.per_batch)
    return Issue(
        cell.line,
        f"img/s {q(cell.value)} counts sampling steps: cards × batch size / s/step = "
        f"{nums.cards} × {nums.batch} / {_step_text(nums)} = {per_step} (the guide's formula "
        f"with s/step as one sampling step); an image takes {nums.steps} steps, so per image "
        f"it is {_formula(nums)} = {per_image}. The guide's img/s counts images: write "
        f"{per_image}, or say in a note under the table that img/s counts sampling steps",
        severity="warning",
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
    """In a video or multi-view table, img/s is a whole multiple of cards × batch size / s/step,
    and nothing says how many images one sample counts.

    A model that makes several images per sample (video frames, the views of a multi-view model)
    may count each of them; say how many (a `frames` column, an `FxHxW` resolution, a note under
    the table: `img/s = cards * batch_size * num_frames / step_time`). Outside such tables a
    whole multiple is an error (PB401: is `cards` or `batch size` wrong?).

    Example:
        ## Multi-view generation

        | mvd | 1 | 1 | 512x512 | O0 | euler | 50 | 1.60 | 0.075 |

    Use instead:
        ## Multi-view generation

        | mvd | 1 | 1 | 512x512 | O0 | euler | 50 | 1.60 | 0.075 |

        img/s counts the 6 views of each sample: img/s = cards * batch_size * 6 / (steps * s/step)
    """
    for row, nums, img_cell, shown in _unexplained(ctx, table):
        if _time_per_image(nums, shown) or not _counting(ctx, table).video:
            continue  # PB402's, or PB401's
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


@rule("PB403", "s-img-mismatch", severity="error", scope="performance")
def s_img_mismatch(ctx: Context, table: Table) -> Iterator[Issue]:
    """s/img (or s/video) is less than steps × s/step / (cards × batch size): impossible.

    In an inference table one batch takes at least steps × s/step seconds. An end-to-end time
    per image or video also holds the text encoder and the decoder, so a value *above* that is
    no contradiction (dynamicrafter: 50 × 1.42 = 71 s of sampling, 80 s end to end); only a value
    below it is. A measured time is never overwritten: there is no fix.

    Example:
        | ... | ddim | 50 | O1 | 5 mins | 1.42 | 0.01 | 60.00 |

    Use instead:
        | ... | ddim | 50 | O1 | 5 mins | 1.42 | 0.01 | 71.00 |
    """
    if not ctx.is_inference(table) or ctx.column(table, "steps") is None:
        return
    for name in ("s/img", "s/video"):
        for row, nums, cell, shown in _derived_rows(ctx, table, name):
            n = nums.cards * nums.batch
            lo, _hi = nums.batch_time_range()
            if shown.cut_hi >= lo / n - 1e-9 * max(1.0, lo / n):
                continue
            least = round2(nums.per_batch / n)
            yield Issue(
                cell.line,
                f"{name} {q(cell.value)} is less than the sampling alone takes: steps × s/step / "
                f"(cards × batch size) = {nums.steps} × {_step_text(nums)} / "
                f"({nums.cards} × {nums.batch}) = {least}; one of these cells is wrong",
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


# "there is no such value" (not "to be filled in", as an empty cell, `xx.xx` or `TBD` say)
_NOT_APPLICABLE = re.compile(r"^(?:-+|—|–|/|n[/.]?a\.?)$", re.I)


# A note under a table that says what a placeholder means there: "`-`: not measured on
# MindSpore 2.7.1." (what `perfbot report` writes under a table of rows it moved to the version
# it ran), "`N/A` = 未测试". The placeholder is quoted as code, so prose that happens to hold a
# dash is not such a note.
_NOT_MEASURED = re.compile(r"(?i)\bnot\s+(?:been\s+|yet\s+)?(?:measured|tested)\b|未测")
_CODE_SPAN = re.compile(r"`([^`\n]{1,8})`")


def not_measured_note(placeholder: str, version: str) -> str:
    """The note under a table whose ``placeholder`` cells were not measured on ``version``."""
    return f"`{placeholder}`: not measured on MindSpore {version}."


def _declared_unmeasured(ctx: Context, table: Table) -> frozenset[str]:
    """The placeholders a note under ``table`` declares as "not measured"."""
    key = ("not-measured", table.index)
    found = ctx.memo.get(key)
    if isinstance(found, frozenset):
        return found
    out: set[str] = set()
    for line in notes_below(ctx, table):
        if _NOT_MEASURED.search(line):
            spans = (m.group(1).strip() for m in _CODE_SPAN.finditer(line))
            out.update(t for t in spans if PLACEHOLDER.match(t))
    result = frozenset(out)
    ctx.memo[key] = result
    return result


@rule("PB405", "missing-value", severity="warning", scope="performance")
def missing_value(ctx: Context, table: Table) -> Iterator[Issue]:
    """A required column has an empty or placeholder cell (`-`, `N/A`, `N.A.`, `xx.xx`).

    Not missing: a value that cannot exist for the row, written `N/A`, `N.A.`, `-` or `/`:
    jit level and graph compile in a row measured in PyNative mode (its `mode` cell, or the
    sentence's mode), jit level on MindSpore older than 2.3, the resolution of a model that
    takes no images (text, audio), steps and scheduler in a stage that does not sample. perfbot
    never asks for a value to be invented. Not missing either: a placeholder that a note under
    the table declares as not measured, quoted as code (`` `-`: not measured on MindSpore
    2.7.1. ``, which `perfbot report` writes under the rows it measured on a new version).

    Example:
        | dit | 1 | 64 | 256x256 | O2 | - | 0.89 | 71.91 |

    Use instead:
        | dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |
    """
    required = set(ctx.spec.required(ctx.is_inference(table)))
    cols = [c for c in ctx.columns(table) if c.name in required]
    placeholder = PLACEHOLDER.match
    for row in table.rows:
        cells = row.cells
        for col in cols:
            if col.index >= len(cells):  # ctx.cell's None
                continue
            cell = cells[col.index]
            if placeholder(cell.value.strip()):
                if col.name in not_applicable(ctx, table, row):
                    continue  # PyNative, before MindSpore 2.3, a stage that does not sample
                if col.name == "resolution" and _NOT_APPLICABLE.match(cell.value.strip()):
                    continue  # a model that takes no images: `N/A` says so
                if cell.value.strip() in _declared_unmeasured(ctx, table):
                    continue  # the table says this placeholder is a cell nobody measured
                yield Issue(
                    cell.line,
                    f"`{col.name}` has no value ({q(cell.value)}); the guide requires it",
                    table=table.index,
                    row_key=ctx.row_key(table, row),
                )
