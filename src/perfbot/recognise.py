"""Recognition: what each table is, and what each of its columns means, decided once.

Between parsing and the rules. The parser finds tables and guesses, from header cells alone,
which might be the guide's tables (its ``Table.kind``: a candidate). Recognition looks at each
candidate's own evidence (its nearest heading, its columns, its values) and decides:

- the table's kind: ``requirements``, ``training`` or ``inference`` performance, or ``other``
  (not a guide table: a product's version mapping, another machine's environment, a
  hyper-parameter table with a frame rate ...);
- each column's meaning: a canonical column of the guide (as :class:`~perfbot.spec.Resolved`),
  the guide's tail column in another unit (``tokens/s`` stands where img/s goes: ``slot``), or
  unknown (a metric called `precision`, a `step` count in a training table ...);
- whether the table may be reordered (every timing column understood);
- which Requirements rows name other hardware than Ascend 910 (not checked against the matrix);

and records why, for ``perfbot check --explain-tables``. Rules read these decisions; they never
re-derive them, and no rule runs on a table recognition calls ``other``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from .model import Cell, Document, Heading, HtmlTable, Row, Table, TableKind
from .spec import Resolved, Spec, header_key
from .spec.forms import PLACEHOLDER
from .spec.versions import mindspore_versions

Kind = Literal["requirements", "training", "inference", "other"]


@dataclass(frozen=True, slots=True)
class Recognition:
    """What recognition decided about one table, and why."""

    index: int
    line: int
    kind: Kind
    reasons: tuple[str, ...]
    columns: tuple[Resolved, ...]
    reorder: bool = True  # every timing column is understood: a reorder may be proposed
    reorder_reason: str = ""
    skipped_rows: tuple[int, ...] = ()  # lines of rows for other hardware (not checked)
    floors: tuple[str, ...] = ()  # a Requirements table's minimum versions (`>=2.6.0`)
    # a performance table measured on other hardware than Ascend 910 (`310P`, `GPU`): checked
    # for form, never against the 910 guide's sentence, Requirements table or matrix
    hardware: str = ""
    html: bool = False  # an HTML <table>: recognised for PB602's info, never checked
    # the guide's tail columns that a timing column perfbot does not understand may be
    # (`step time (min)` may be s/step): not called missing
    maybe_tail: tuple[str, ...] = ()
    table: Table | None = None  # the table as parsed (all its rows)
    # a table that does not follow the guide's format but whose numbers perfbot can read (cards,
    # batch size, a step time and a throughput): only the rules in NUMBER_RULES run on it, so a
    # wrong img/s is found there too, and no format finding is made
    numbers_only: bool = False
    # a Requirements table with its versions written as columns: ``table`` is it read sideways
    sideways: bool = False
    # a table read for its numbers with several (step time, throughput) pairs: one decision for
    # each further pair, on a view of the table (its own index; rules see it as another table)
    views: tuple[Recognition, ...] = ()

    @property
    def table_kind(self) -> TableKind:
        if self.numbers_only or self.kind == "other":
            return "other"
        return "requirements" if self.kind == "requirements" else "performance"


# The rules that check numbers (not form): they also run on the tables recognition reads only
# for their numbers (``Recognition.numbers_only``).
NUMBER_RULES = frozenset({"PB401", "PB501"})


# --- evidence ------------------------------------------------------------------------------------


def _own_headings(table: Table, doc: Document) -> list[Heading]:
    """The table's heading path, nearest first, without the document's title (its first
    level-1 heading): a word in the title says nothing about one table."""
    title = next((h for h in doc.headings if h.level == 1), None)
    return [h for h in reversed(table.section) if h is not title]


def _values(table: Table, col: Resolved) -> list[str]:
    out = []
    for r in table.rows:
        if col.index < len(r.cells):
            v = r.cells[col.index].value.strip()
            if v and not PLACEHOLDER.match(v):
                out.append(v)
    return out


_PERCENT_OR_NUMBER = re.compile(r"^\**[-+]?\d+(?:[.,]\d+)?\s*%?\**$")
_DTYPE = re.compile(
    r"(?i)\b(?:fp|bf|float|bfloat|int)\s*(?:8|16|32|64)\b|\bmixed\b|\bamp\b|\bO[0-3]\b"
)
_NAMES_910 = re.compile(r"(?i)910|atlas\s*800|\ba2\b")
# a heading that names Ascend without another chip ("Ascend 310P" names the 310P)
_NAMES_ASCEND = re.compile(r"(?i)ascend(?!\s*310)|昇腾")
# a minimum version, not a tested one: `>=2.6.0`, `≥ 8.1.RC1`, `2.6.0+`, `2.6 及以上`, `or later`
FLOOR = re.compile(
    r"^[\s*`]{0,4}(?:>=|≥|=>|>|at least\b)[\s*`]{0,4}v?[0-9]"
    r"|[0-9](?:\.[0-9a-z]{1,12}){0,4}[ \t]{0,2}(?:\+|及以上|以上|or (?:later|above|newer|higher))",
    re.I,
)
_FRAME_RATES = {"8", "10", "12", "15", "16", "24", "25", "30", "48", "50", "60"}


def _is_metric_precision(table: Table, col: Resolved, cols: list[Resolved], spec: Spec) -> str:
    """Why a `precision` column is a metric (recall / precision / f-score), or ""."""
    vals = _values(table, col)
    dtype = sum(1 for v in vals if _DTYPE.search(v))
    numeric = sum(1 for v in vals if _PERCENT_OR_NUMBER.match(v))
    if vals and dtype * 2 >= len(vals):
        return ""  # fp16 / bf16: the guide's precision
    if vals and numeric * 2 > len(vals):
        return "its values are scores (percentages or numbers), not fp16/bf16"
    near = {header_key(c.text) for c in cols if c.index != col.index}
    if near & spec.metric_neighbours:
        return "it sits beside " + ", ".join(sorted(near & spec.metric_neighbours))
    return ""


def _rate_slot(text: str, spec: Spec) -> str | None:
    key = header_key(text)
    for slot, pat in spec.rate_units:
        if pat.search(key):
            return slot
    return None


def _names_device(table: Table, first: Resolved, spec: Spec) -> bool:
    """A Requirements table's first column names the machine (`device`, `NPU type`, or every
    cell a machine: `Atlas 800T A2`, `Ascend 910*`), not another product's versions."""
    if spec.device_header.search(first.name_text):
        return True
    vals = _values(table, first)
    return bool(vals) and all(spec.device_value.search(v[:80]) for v in vals)


def _cards_in(text: str, spec: Spec) -> int | None:
    """The card count a header gives (`Graph train 1P`, `8 cards`, `单卡`), or None."""
    m = spec.cards_in_header.search(text)
    if m:
        n = int(m.group(1))
        # a card count is small or a power of two (`720p` is a video's height, not 720 cards)
        return n if n <= 64 or n & (n - 1) == 0 else None
    low = text.lower()
    return next((n for word, n in spec.card_words if word in low), None)


def _embedded(c: Resolved, spec: Spec) -> Resolved:
    """A guide column named by its unit at the end of a longer header (`Graph train 1P
    (ms/step)`, `(image to 3D) s/step`, `(FPS)`, `speed (step/s)`), or ``c`` unchanged."""
    key = header_key(c.text)
    if not key or len(key) > 80 or spec.not_embedded.search(key):
        return c
    for e in spec.embedded:
        m = e.pattern.search(key)
        if m is None:
            continue
        column = spec.performance.columns.get(e.column)
        if column is None or (e.column == "img/s" and spec.not_images_rate.search(key)):
            return c
        prefix = key[: m.start()].strip()
        note = f"the guide's {e.column} named inside a longer header, in {e.unit}"
        if e.inverse:
            note += " (steps per second: s/step = 1/x)"
        cards = _cards_in(prefix, spec)
        if cards is not None:
            note += f"; the header gives {cards} card(s)"
        unit = e.unit if e.unit != e.column else None
        return replace(
            c, column=column, how="embedded", scale=e.scale, unit=unit, note=note,
            cards=cards, inverse=e.inverse,
        )  # fmt: skip
    return c


def _frame_rate_only(table: Table, col: Resolved, cols: list[Resolved]) -> bool:
    """An `fps` column that holds a video's frame rate (8, 24, 30 ...), not a throughput."""
    if any(c.name == "frames" for c in cols):
        return True
    vals = _values(table, col)
    return bool(vals) and all(v.strip("*") in _FRAME_RATES for v in vals)


# --- tables --------------------------------------------------------------------------------------


def _requirements(table: Table, doc: Document, spec: Spec) -> Recognition:
    cols = spec.requirements.resolve_header([c.value for c in table.header.cells])
    known = {c.name for c in cols if c.column is not None}
    unknown = [c for c in cols if c.column is None and c.text.strip()]
    headings = _own_headings(table, doc)
    near = headings[0].text if headings else ""
    reasons: list[str] = []

    def other(why: str) -> Recognition:
        return Recognition(
            table.index, table.start_line, "other", (*reasons, why), tuple(cols), table=table
        )

    first = cols[0] if cols else None
    mapping = ""
    if first is not None and first.column is None and _names_device(table, first, spec):
        reasons.append(f"its first column {first.name_text!r} names the machine of each row")
    elif (
        first is not None
        and first.column is None
        and {"mindspore", "cann toolkit/kernel"} <= known
        and not spec.other_hardware.search(first.name_text)
    ):
        # `| mindone | mindspore | ... | cann |`: another product's version mapping, whose
        # MindSpore and CANN still have to belong together (a wrong CANN is never let pass)
        mapping = first.name_text or " "  # (an unnamed first column: an index)
        unknown = [c for c in unknown if c.index != first.index]
    elif first is not None and first.column is None:
        return other(
            f"its first column is {first.name_text!r}, not mindspore: a version mapping of "
            f"{first.name_text!r} (or an index), not the guide's Requirements table"
        )
    hw = spec.other_hardware.search(near) if near and not _NAMES_910.search(near) else None
    if hw:
        return other(f"its heading {near!r} names other hardware than Ascend 910 ({hw.group(0)!r})")
    hw_cols = [c for c in cols if spec.other_hardware.search(c.text)]
    if hw_cols:
        return other(f"its column {hw_cols[0].name_text!r} is for other hardware than Ascend 910")
    req_heading = next((h for h in headings if spec.requirements_headings.search(h.text)), None)
    if len(known) >= 3:
        reasons.append(f"it has {len(known)} of the 4 Requirements columns")
    elif req_heading is not None and not unknown:
        reasons.append(
            f"it has {len(known)} Requirements columns under the heading {req_heading.text!r}"
        )
    elif mapping:
        return other(
            f"its first column is {mapping!r}, not mindspore: a version mapping of {mapping!r} "
            f"(or an index), not the guide's Requirements table, with only {len(known)} of its "
            "4 columns"
        )
    else:
        why = f"it has only {len(known)} of the 4 Requirements columns"
        extra = ", ".join(repr(c.name_text) for c in unknown)
        why += (
            f" and columns the guide's table does not have ({extra})"
            if unknown
            else " and no Requirements-like heading"
        )
        return other(why)
    skipped = []
    for r in table.rows:
        text = " ".join(c.value for c in r.cells)
        if spec.other_hardware.search(text) and not _NAMES_910.search(text):
            skipped.append(r.line)
    if skipped:
        reasons.append(
            f"{len(skipped)} row(s) for other hardware or unreleased versions are not checked "
            "against the 910 matrix"
        )
    # the mindone template `| mindspore | ascend driver | cann |` with `>=2.6.0`: minimum
    # versions, not tested ones; one finding for the table (PB103), none per column or row
    ms = next((c for c in cols if c.name == "mindspore"), None)
    floors: list[str] = []
    if ms is not None:
        for r in table.rows:
            if r.line in skipped or ms.index >= len(r.cells):
                continue
            v = r.cells[ms.index].value
            if FLOOR.search(v[:80]):
                floors.append(v.strip())
    if floors:
        reasons.append(
            f"its mindspore column gives minimum versions ({floors[0]!r}), not tested ones: "
            "checked as a whole (PB103), not column by column or against the matrix"
        )
    if mapping:
        if floors:
            return other(f"a version mapping of {mapping!r} with minimum versions")
        reasons.append(
            f"its first column is {mapping!r}: a version mapping of {mapping!r}, not the guide's "
            "table; its MindSpore and CANN are checked against the matrix only"
        )
        return Recognition(
            table.index, table.start_line, "requirements", tuple(reasons), tuple(cols),
            skipped_rows=tuple(skipped), numbers_only=True,
            table=replace(table, kind="requirements"),
        )  # fmt: skip
    return Recognition(
        table.index,
        table.start_line,
        "requirements",
        tuple(reasons),
        tuple(cols),
        skipped_rows=tuple(skipped),
        floors=tuple(floors),
        table=table,
    )


def _performance(table: Table, doc: Document, spec: Spec) -> Recognition:
    cols = spec.performance.resolve_header([c.value for c in table.header.cells])
    reasons: list[str] = []

    def other(why: str) -> Recognition:
        return Recognition(
            table.index, table.start_line, "other", (*reasons, why), tuple(cols), table=table
        )

    # what each column means, from the table's own values and neighbours
    out: list[Resolved] = []
    named = {c.name for c in cols if c.column is not None}
    tokens = any(spec.not_images.search(c.name_text) for c in cols)
    for c in cols:
        if c.column is None:
            e = _embedded(c, spec)
            if e.name == "img/s" and tokens:
                # `throughput` beside `seq len`: tokens, perhaps, not images
                e = replace(c, note="not img/s: beside a sequence length it may count tokens")
            if e.name not in named:  # (beside the table's own s/step, `steps/s` is another rate)
                c = e
            if c.column is None and spec.not_timing.search(c.name_text):
                c = replace(c, note="not a timing column (a metric at several scales, batches/s)")
        if c.column is None:
            slot = _rate_slot(c.text, spec)
            if slot:
                c = replace(
                    c, slot=slot, note=f"the guide's `{slot}` in another unit (not checked)"
                )
        elif c.name == "precision":
            why = _is_metric_precision(table, c, cols, spec)
            if why:
                c = replace(c, column=None, how="unknown", note=f"a metric, not fp16/bf16: {why}")
        out.append(c)
    cols = out

    sig = [c for c in cols if c.name in spec.signature]
    if not sig:
        return other("none of its columns is one of the guide's measurements")
    if all(_fps_only(c, spec) for c in sig):
        c = sig[0]
        if _frame_rate_only(table, c, cols):
            return other(
                f"its only measurement column is {c.name_text!r}, which holds a video's frame "
                "rate here, not a throughput"
            )
    reasons.append("measurement columns: " + ", ".join(f"{c.name_text!r} = {c.name}" for c in sig))

    # training or inference: the table's own columns, then its own nearest heading
    headings = _own_headings(table, doc)
    heading_kind: tuple[Kind, Heading] | None = None
    for h in headings:
        if spec.training_headings.search(h.text):
            heading_kind = ("training", h)
            break
        if spec.inference_headings.search(h.text):
            heading_kind = ("inference", h)
            break
    scheduler = next((c for c in cols if c.name == "scheduler"), None)
    steps = [c for c in cols if c.name == "steps"]
    kind: Kind
    if scheduler is not None:
        kind = "inference"
        reasons.append(f"inference: it has a {scheduler.name_text!r} column")
    elif heading_kind is not None and heading_kind[0] == "training":
        kind = "training"
        reasons.append(f"training: its heading {heading_kind[1].text!r} says so")
    elif steps and any(header_key(c.text) != "step" for c in steps):
        kind = "inference"
        reasons.append(f"inference: it has a {steps[0].name_text!r} (sampling steps) column")
    elif heading_kind is not None:
        kind = "inference"
        reasons.append(f"inference: its heading {heading_kind[1].text!r} says so")
    else:
        kind = "training"
        reasons.append("training: no scheduler/steps column and no inference heading")
    if kind == "training":
        cols = [
            replace(c, column=None, how="unknown", note="a count of steps in a training table, "
                    "not sampling steps")
            if c.name == "steps"
            else c
            for c in cols
        ]  # fmt: skip

    hardware = _measured_on_other_hardware(table, headings, spec)
    if hardware:
        reasons.append(hardware[1])

    timing = tuple(
        c.name_text
        for c in cols
        if c.column is None
        and c.slot is None
        and spec.timing_words.search(c.name_text)
        and not spec.not_timing.search(c.name_text)
    )
    reorder, why = True, ""
    if timing:
        reorder, why = False, f"the timing column {timing[0]!r} is not understood"
    return Recognition(
        table.index, table.start_line, kind, tuple(reasons), tuple(cols), reorder, why,
        hardware=hardware[0] if hardware else "",
        maybe_tail=tuple(
            slot for slot, pat in spec.maybe_tail if any(pat.search(t) for t in timing)
        ),
        table=table,
    )  # fmt: skip


def _measured_on_other_hardware(
    table: Table, headings: list[Heading], spec: Spec
) -> tuple[str, str] | None:
    """(the hardware, why) when a performance table was measured on other hardware than
    Ascend 910: its own sentence names it (and no 910), or, without a sentence, its nearest
    heading does. Such a table is still checked for form (its columns, order and numbers do not
    depend on the machine), never against the 910 guide's sentence, Requirements or matrix."""
    s = table.sentence
    if s is not None:
        hw = spec.other_hardware.search(s.text) if s.device is None else None
        if hw and not _NAMES_910.search(s.text):
            return hw.group(0), (
                f"measured on {hw.group(0)!r} (its sentence says so), not Ascend 910: checked for "
                "form only, not against the 910 sentence, Requirements table or matrix"
            )
        return None
    if headings:
        near = headings[0].text
        hw = spec.other_hardware.search(near)
        if hw and not _NAMES_910.search(near) and not _NAMES_ASCEND.search(near):
            return hw.group(0), (
                f"measured on {hw.group(0)!r} (its heading {near!r} says so), not Ascend 910: "
                "checked for form only, not against the 910 sentence, Requirements table or matrix"
            )
    return None


def _fps_only(c: Resolved, spec: Spec) -> bool:
    """An `fps` column (an alias, or `(FPS)` inside a longer header): a throughput or a video's
    frame rate."""
    key = header_key(c.text)
    if c.how == "alias":
        return key in spec.ambiguous
    return c.how == "embedded" and "fps" in key


def _numbers_only(table: Table, doc: Document, spec: Spec) -> Recognition:
    """A table that does not follow the guide's format (its header names no guide measurement
    as the guide or an alias spells it) but whose numbers perfbot can read: cards (a column, or
    the timing header's `1P` / `单卡`), batch size, a step time and a throughput, one of each
    or each throughput right after its step time. Checked for its numbers only."""
    cols = spec.performance.resolve_header([c.value for c in table.header.cells])
    other = Recognition(
        table.index, table.start_line, "other",
        ("its header names neither the Requirements columns nor a measurement",), tuple(cols),
        table=table,
    )  # fmt: skip
    if not any(c.column is None and _embedded(c, spec).column is not None for c in cols):
        return other  # (a table of other columns: nothing to read)
    rec = _performance(table, doc, spec)
    if rec.kind == "other":
        return other
    cols = list(rec.columns)
    steps = [c for c in cols if c.name == "s/step"]
    rates = [c for c in cols if c.name == "img/s"]
    batch = [c for c in cols if c.name == "batch size"]
    cards = [c for c in cols if c.name == "cards"]
    unknown_cards = [s for s, r in zip(steps, rates, strict=False) if not (s.cards or r.cards)]
    if not cards and unknown_cards:
        # a `Context` column naming each row's machine (`D910x8-G`): its cards
        for i, c in enumerate(cols):
            if c.column is None and spec.machine_column.search(c.name_text):
                vals = _values(table, c)
                if vals and all(spec.cards_in_machine.search(v[:80]) for v in vals):
                    cols[i] = replace(
                        c, column=spec.performance.columns["cards"], how="embedded",
                        note="the cards of each row, from the machine it names (`D910x8` is 8)",
                    )  # fmt: skip
                    cards = [cols[i]]
                break
    why = ""
    if not steps or not rates:
        why = "it names a step time or a throughput, not both"
    elif len(batch) != 1:
        why = "it has no single batch size column"
    elif not cards and steps[0].cards is None and rates[0].cards is None:
        why = "neither a column nor its timing header gives the number of cards"
    elif len(cards) > 1:
        why = "it has several cards columns"
    elif len(steps) != len(rates) or not (
        len(steps) == 1 or all(r.index == s.index + 1 for s, r in zip(steps, rates, strict=True))
    ):
        # (`Graph (ms/step) | (FPS) | PyNative (ms/step) | (FPS)` pairs up; two step times
        # before one throughput do not)
        why = "its step times and throughputs do not pair up"
    if why:
        return replace(
            other,
            reasons=(*rec.reasons, f"not checked: {why}"),
            columns=rec.columns,
        )
    views: list[Recognition] = []
    for i, (step, rate) in enumerate(zip(steps[:_MAX_PAIRS], rates, strict=False)):
        if _fps_only(rate, spec) and _frame_rate_only(table, rate, cols):
            continue  # a video's frame rate, not a throughput
        keep = {step.index, rate.index}
        pair = [
            replace(c, column=None, how="unknown", note="another measurement (checked apart)")
            if c.name in ("s/step", "img/s") and c.index not in keep
            else c
            for c in cols
        ]
        why = (
            "numbers only: its header does not follow the guide's format (no format finding is "
            f"made), but its img/s {rate.name_text!r} is checked against cards, batch size and "
            f"step time {step.name_text!r}"
        )
        # each further pair is checked as a view of the table of its own (index)
        view = table if not views else replace(table, index=_view_index(table, i))
        views.append(
            replace(
                rec, index=view.index, reasons=(*rec.reasons, why), columns=tuple(pair),
                numbers_only=True, table=view,
            )
        )  # fmt: skip
    if not views:
        why = f"its {rates[0].name_text!r} column holds a video's frame rate, not a throughput"
        return replace(other, reasons=(*rec.reasons, f"not checked: {why}"), columns=rec.columns)
    first = views[0]
    return replace(first, table=table, views=tuple(views[1:]))


# a table holds at most this many (step time, throughput) pairs read for their numbers; each
# after the first is checked as a view of the table with an index of its own, above every parsed
# table's and HTML table's
_MAX_PAIRS = 8
_VIEW_BASE = 1 << 20


def _view_index(table: Table, i: int) -> int:
    return _VIEW_BASE + table.index * _MAX_PAIRS + i


def _transposed(table: Table, doc: Document, spec: Spec) -> Recognition | None:
    """A Requirements table with its versions written as columns: the first column names
    mindspore, driver, firmware, CANN (`| mindspore | 2.3.1 | 2.4.0 |`, or `| software | version
    |` above such rows), each other column one verified combination. Recognised as the guide's
    table read sideways (its cells where they are), and checked against the matrix only."""
    lines = (table.header, *table.rows)
    if len(lines) < 3 or len(lines) > 8 or len(table.header.cells) < 2:
        return None
    known: list[tuple[Row, Resolved]] = []
    for r in lines:
        if not r.cells:
            return None
        c = spec.requirements.resolve(len(known), r.cells[0].value)
        if c.column is not None:
            known.append((r, c))
    names = [c.name for _, c in known]
    if "mindspore" not in names or len(set(names)) < 3 or len(set(names)) != len(names):
        return None
    width = len(table.header.cells)
    rows = []
    for j in range(1, width):
        if any(j >= len(r.cells) for r, _ in known):
            continue
        cells = tuple(r.cells[j] for r, _ in known)
        if not mindspore_versions(cells[names.index("mindspore")].value[:80]):
            continue  # a column of notes or links, not a version
        rows.append(Row(table.header.line, "", cells))
    if not rows:
        return None
    view = Table(
        index=table.index,
        header=Row(table.header.line, "", tuple(r.cells[0] for r, _ in known)),
        delimiter=table.delimiter,
        rows=tuple(rows),
        aligns=(),
        kind="requirements",
        section=table.section,
        sentence=None,
        in_html=table.in_html,
    )
    rec = _requirements(view, doc, spec)
    if rec.kind != "requirements" or rec.floors:
        return None
    why = (
        "its versions are written as columns (the first column names "
        + ", ".join(n or "" for n in names)
        + "): each column is checked against the matrix as a row of the guide's table; no "
        "format finding is made"
    )
    return replace(rec, reasons=(*rec.reasons, why), numbers_only=True, sideways=True, table=view)


def recognise_table(table: Table, doc: Document, spec: Spec) -> Recognition:
    if table.oversize:  # PB604 says so when its header names the guide's columns
        why = f"too large to be a model table: {table.oversize} (not checked)"
        return Recognition(table.index, table.start_line, "other", (why,), (), table=table)
    if table.kind == "requirements":
        rec = _requirements(table, doc, spec)
    elif table.kind == "performance":
        rec = _performance(table, doc, spec)
    else:
        rec = _transposed(table, doc, spec) or _numbers_only(table, doc, spec)
    return rec  # each Recognition above is made with ``table=table``


def _html_as_table(h: HtmlTable, index: int) -> Table:
    """An HTML <table> as a pipe table would be parsed (its first row the header), so that
    recognition decides its kind from the same evidence: columns, values, nearest heading."""

    def row(texts: tuple[str, ...]) -> Row:
        return Row(h.line, "", tuple(Cell(t, h.line, 0, 0) for t in texts))

    header = row(h.rows[0]) if h.rows else row(())
    return Table(
        index=index,
        header=header,
        delimiter=row(()),
        rows=tuple(row(r) for r in h.rows[1:]),
        aligns=(),
        kind=h.kind,
        section=h.section,
        sentence=None,
    )


def recognise(doc: Document, spec: Spec) -> tuple[Document, dict[int, Recognition]]:
    """The document with each table's kind as recognised (rows for other hardware left out of
    the tables the rules see), and the decision for each table, by table index."""
    decisions: dict[int, Recognition] = {}
    tables: list[Table] = []
    for t in doc.tables:
        rec = recognise_table(t, doc, spec)
        decisions[t.index] = rec
        kind = rec.table_kind
        if kind != t.kind or rec.skipped_rows:
            skip = set(rec.skipped_rows)
            t = replace(
                t,
                kind=kind,
                rows=tuple(r for r in t.rows if r.line not in skip),
                sentence=t.sentence if kind == "performance" else None,
            )
        tables.append(t)
    # HTML <table>s (PB602 says a guide-like one is not checked): the same decision, from the
    # same evidence, not the parser's guess from header words alone
    html_tables = []
    for i, h in enumerate(doc.html_tables):
        rec = recognise_table(_html_as_table(h, -1 - i), doc, spec)
        if rec.numbers_only:  # (its cells have no place in the file: never checked)
            rec = replace(rec, kind="other", numbers_only=False, sideways=False, views=())
        rec = replace(rec, html=True)
        decisions[-1 - i] = rec
        html_tables.append(replace(h, kind=rec.table_kind))
    out = Document(
        path=doc.path,
        tables=tables,
        headings=doc.headings,
        sentences=doc.sentences,
        html_tables=html_tables,
        unread_tables=doc.unread_tables,
        unread_line=doc.unread_line,
    )
    return out, decisions


def explain(decisions: dict[int, Recognition]) -> list[str]:
    """``--explain-tables``: one block per table (line, kind, reasons, column mapping)."""
    lines: list[str] = []
    for rec in sorted(decisions.values(), key=lambda r: r.line):
        html = ""
        if rec.html:
            html = " (an HTML <table>: not checked" + (")" if rec.kind == "other" else "; PB602)")
        only = " (numbers only)" if rec.numbers_only else ""
        lines.append(f"line {rec.line}: {rec.kind}{only}{html}")
        for r in rec.reasons:
            lines.append(f"  because {r}")
        if rec.kind != "other":
            if not rec.reorder:
                lines.append(f"  not reordered: {rec.reorder_reason}")
            if rec.maybe_tail:
                maybe = ", ".join(rec.maybe_tail)
                lines.append(f"  not called missing: {maybe} (a column not understood may be it)")
            for v in rec.views:
                pair = [c.name_text for c in v.columns if c.name in ("s/step", "img/s")]
                lines.append("  and checked apart: " + " with ".join(repr(p) for p in pair))
            for c in rec.columns:
                if c.column is not None:
                    how = "" if c.how == "exact" else f" ({c.how})"
                    if c.unit:
                        how = f" (in {c.unit})"
                    if c.how == "embedded":
                        how = f": {c.note}"
                    meaning = f"{c.column.name}{how}"
                elif c.slot is not None:
                    meaning = f"~{c.slot}: {c.note}"
                else:
                    meaning = "unknown" + (f": {c.note}" if c.note else " (an optional column)")
                lines.append(f"  column {c.index + 1} {c.text!r}: {meaning}")
            for ln in rec.skipped_rows:
                lines.append(f"  row at line {ln}: other hardware, not checked")
    return lines
