"""Measured numbers -> a core :class:`~perfbot.fix.Fix` for their README row.

:func:`refresh` finds each result's row (the benchmark's ``row``: a mapping of column -> value, or
a 1-based index among all performance-table data rows of the README) and rewrites only the
measured cells, as the core's fixes do: each edit replaces the number inside one cell and keeps
every other byte of the line (emphasis, a unit written in the cell, padding; in an aligned table
the closing pipe stays where it was).

* **s/step** in the table's unit (`ms/step` columns and `ms`/`s` written in the cell are kept),
  two decimals;
* **graph compile** in the table's style: seconds with the old number of decimals (`77s`,
  `137.35s`), or whole minutes rounded up (`5 mins`); a minute range (`3~5 mins`) that still
  holds the new value is left alone; a PyNative run (a PyNative table, or a result that says so)
  compiles no graph, so its cell keeps the table's own notation (`N/A`, `-`);
* **img/s** = cards x batch size / s/step (for inference / (steps x s/step)), from the unrounded
  s/step, so that the checker's img/s rule agrees with the rounded cells;
* **s/img**, **s/video** in inference tables = steps x s/step / (cards x batch size).

A row whose cards, batch size or sampling steps differ from what the benchmark ran gets no fix
(the numbers would belong to another row), nor does a failed run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from perfbot.config import Config
from perfbot.engine import Context
from perfbot.fix import Edit, Fix, apply_fixes, replacement
from perfbot.model import Cell, Row, Table
from perfbot.rerun.rows import CellChange, RowRefresh, TableProposal, is_pynative
from perfbot.rerun.versions_table import move_target, propose_tables, same_mode, table_covers
from perfbot.runner.bench import BenchResult
from perfbot.source import Source
from perfbot.spec import header_key
from perfbot.spec.forms import (
    PLACEHOLDER,
    compile_minutes,
    compile_seconds,
    parse_number,
    parse_time,
    round2,
)
from perfbot.spec.versions import normalize_mindspore

__all__ = [
    "CellChange",
    "RowError",
    "RowRefresh",
    "apply_refreshes",
    "find_row",
    "proposals",
    "refresh",
]

# a number as README cells write it: 1,176.04 / 0.89 / 47,34 (decimal comma)
_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:[.,][0-9]+)?")


class RowError(ValueError):
    """The benchmark's row cannot be found (the message is for a contributor)."""


# --- finding the row ----------------------------------------------------------------------------


def _norm(text: str) -> str:
    t = text.strip()
    for mark in ("**", "__", "`", "*", "_"):
        if len(t) > 2 * len(mark) and t.startswith(mark) and t.endswith(mark):
            t = t[len(mark) : -len(mark)].strip()
    return re.sub(r"\s+", " ", t).lower()


def _same(cell: str, want: str) -> bool:
    a, b = _norm(cell), _norm(want)
    if a == b:
        return True
    x, y = parse_number(a), parse_number(b)
    return x is not None and y is not None and x == y


def _column_index(ctx: Context, table: Table, key: str) -> int | None:
    """The header cell a ``row:`` key names: by the guide's column (any alias) or by its text."""
    name = ctx.spec.performance.resolve(0, key).name
    for c in ctx.columns(table):
        if (name is not None and c.name == name) or header_key(c.text) == header_key(key):
            return c.index
    return None


def find_row(
    ctx: Context,
    selector: Mapping[str, str] | int,
    mindspore: str | None = None,
    mode: str | None = None,
) -> tuple[Table, Row]:
    """The performance-table row ``selector`` names; :class:`RowError` when none or several.
    When several match and only one is in a table for MindSpore ``mindspore`` (the runner's)
    and, among several, for the run's ``mode``, that one is taken: the README keeps one table
    per version and mode."""
    tables = [t for t in ctx.doc.tables if t.kind == "performance"]
    if not tables:
        html = [h for h in ctx.doc.html_tables if h.kind == "performance"]
        if html:
            raise RowError(
                f"the performance table (line {html[0].line}) is an HTML <table>; perfbot "
                "refreshes Markdown pipe tables only"
            )
        raise RowError("the README has no performance table")
    if isinstance(selector, int):
        rows = [(t, r) for t in tables for r in t.rows]
        if not 1 <= selector <= len(rows):
            raise RowError(
                f"row {selector}: the README's performance tables have {len(rows)} data rows"
            )
        return rows[selector - 1]
    found: list[tuple[Table, Row]] = []
    for t in tables:
        idx = {k: _column_index(ctx, t, k) for k in selector}
        if any(i is None for i in idx.values()):
            continue
        for r in t.rows:
            if all(
                i is not None and i < len(r.cells) and _same(r.cells[i].value, selector[k])
                for k, i in idx.items()
            ):
                found.append((t, r))
    want = ", ".join(f"{k} = {v}" for k, v in selector.items())
    if not found:
        raise RowError(f"no performance-table row has {want}")
    if len(found) > 1 and mindspore:
        ran = normalize_mindspore(mindspore)
        if ran is not None and not ran.partial:
            mine = [(t, r) for t, r in found if table_covers(t, ran)]
            if len(mine) > 1 and mode:
                mine = [(t, r) for t, r in mine if same_mode(t, mode)]
            if len(mine) == 1:
                return mine[0]
    if len(found) > 1:
        lines = ", ".join(str(r.line) for _, r in found)
        raise RowError(
            f"{len(found)} rows have {want} (lines {lines}); name one more column in `row:`"
        )
    return found[0]


# --- new cell texts -----------------------------------------------------------------------------


def _number_span(text: str) -> tuple[int, int] | None:
    m = _NUMBER.search(text)
    return (m.start(), m.end()) if m else None


def _with_number(old: str, x: float, decimals: int = 2) -> str:
    """``old`` with its number replaced by ``x`` written the same way (decimal comma, thousands
    separators); a cell without a number (a placeholder) becomes just the number."""
    span = _number_span(old)
    if span is None or PLACEHOLDER.match(old.strip()):
        return round2(x) if decimals == 2 else f"{x:.{decimals}f}"
    num = old[span[0] : span[1]]
    new = round2(x) if decimals == 2 else f"{x:.{decimals}f}"
    if re.fullmatch(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", num):
        new = f"{float(new):,.{decimals}f}"
    elif "," in num:
        new = new.replace(".", ",")
    return old[: span[0]] + new + old[span[1] :]


def _compile_text(old: str, seconds: float) -> str:
    """The graph compile cell for ``seconds``, in the style of ``old`` (unchanged when the old
    minutes range still holds it)."""
    v = old.strip()
    if compile_seconds(v) is not None:
        span = _number_span(v)
        assert span is not None
        num = v[span[0] : span[1]]
        decimals = len(num.split(".", 1)[1]) if "." in num else 0
        return v[: span[0]] + f"{seconds:.{decimals}f}" + v[span[1] :]
    minutes = max(1, math.ceil(round(seconds, 6) / 60))
    rng = compile_minutes(v)
    if rng is not None:
        lo, hi = rng
        if lo <= minutes <= hi or lo <= seconds / 60 <= hi:
            return old
    return f"{minutes} mins"


# --- one row ------------------------------------------------------------------------------------


def _cell_edit(row: Row, cell: Cell, new: str) -> Edit:
    """Replace ``cell``'s text with ``new``; in an aligned table (extra padding before the next
    pipe) take or give back padding so that the pipe does not move."""
    raw = row.raw
    end = cell.end
    delta = len(new) - (cell.end - cell.start)
    j = cell.end
    while j < len(raw) and raw[j] == " ":
        j += 1
    trailing = j - cell.end
    at_pipe = j < len(raw) and raw[j] == "|"
    if at_pipe and delta > 0 and trailing - delta >= 1:
        end = cell.end + delta
    elif at_pipe and delta < 0 and trailing >= 2:
        new = new + " " * (-delta)
    return Edit(cell.line, cell.start, end, new)


def _int_cell(ctx: Context, table: Table, row: Row, name: str) -> int | None:
    cell = ctx.cell(row, ctx.column(table, name))
    x = parse_number(cell.value) if cell else None
    return int(x) if x is not None and x == int(x) else None


def _mismatch(ctx: Context, table: Table, row: Row, r: BenchResult) -> str | None:
    """Why this row cannot hold ``r``'s numbers, or None."""
    for name, ran in (("cards", r.cards), ("batch size", r.batch_size)):
        shown = _int_cell(ctx, table, row, name)
        if shown is not None and shown != ran:
            return f"the row says {name} {shown} but the benchmark ran with {ran}"
    steps_col = ctx.column(table, "steps")
    inference_row = ctx.is_inference(table) and steps_col is not None
    if r.inference:
        if not inference_row:
            return (
                "the benchmark is an inference benchmark, but its row is not in an inference "
                "table with a `steps` column"
            )
        shown = _int_cell(ctx, table, row, "steps")
        if shown is not None and shown != r.sampling_steps:
            return f"the row says steps {shown} but the benchmark sampled {r.sampling_steps} steps"
    elif inference_row:
        return (
            "the row is in an inference table, but the benchmark is not declared "
            "`inference: true` with `sampling_steps`"
        )
    return None


def _step_scale(ctx: Context, table: Table, cell: Cell | None) -> float:
    """Seconds per unit of the s/step cell: the cell's own unit, else the column's."""
    col = ctx.column(table, "s/step")
    scale = col.scale if col is not None else 1.0
    t = parse_time(cell.value) if cell is not None else None
    if t is not None and t[1] == "s":
        return 1.0
    if t is not None and t[1] == "ms":
        return 0.001
    return scale


def unrounded_s_per_step(r: BenchResult, images_per_step: float) -> float:
    """``r``'s s/step as bench measured it, before its 6-decimal rounding. bench writes img/s from
    the unrounded s/step, and img/s (tens to thousands) keeps far more significant digits, so
    ``images_per_step / img/s`` gives the step time back when the two agree to within the rounding
    of s/step; otherwise (a result without img/s, or cards and batch size other than bench used)
    the stored s/step is used."""
    s = r.s_per_step
    assert s is not None and s > 0
    ips = r.img_per_s
    if ips is None or not math.isfinite(ips) or ips <= 0:
        return s
    precise = images_per_step / ips
    if abs(precise - s) <= 5.1e-7 + 1e-9 * s:
        return precise
    return s


def refresh_row(ctx: Context, table: Table, row: Row, r: BenchResult, readme: str) -> RowRefresh:
    """The cells ``r`` changes in ``row``, as one :class:`Fix` (or why there is none)."""
    out = RowRefresh(r, readme, line=row.line)
    step_cell = ctx.cell(row, ctx.column(table, "s/step"))
    scale = _step_scale(ctx, table, step_cell)
    out.unit = "ms/step" if scale == 0.001 else "s/step"
    if step_cell is not None:
        t = parse_time(step_cell.value)
        if t is not None and t[0] > 0:
            out.old_s_per_step = t[0] * scale
    if not r.ok or r.s_per_step is None or r.s_per_step <= 0:
        out.problem = r.message or f"the benchmark ended with status {r.status}"
        return out
    problem = _mismatch(ctx, table, row, r)
    if problem:
        out.problem = problem
        return out
    cards, batch = r.cards, r.batch_size
    steps = r.sampling_steps if r.inference and r.sampling_steps else 1
    s = unrounded_s_per_step(r, cards * batch / steps)
    new: dict[str, str] = {}

    if step_cell is None:
        out.problem = "the table has no s/step column"
        return out
    step_col = ctx.column(table, "s/step")
    if step_col is not None and step_col.inverse:  # `step/s`: not a time to write seconds into
        out.problem = "the table gives steps per second (`step/s`), not s/step"
        return out
    new["s/step"] = _with_number(step_cell.text, s / scale)

    compile_cell = ctx.cell(row, ctx.column(table, "graph compile"))
    if compile_cell is not None:
        g = r.graph_compile_s
        if is_pynative(r, table):
            if not PLACEHOLDER.match(compile_cell.text.strip()):
                out.notes.append(
                    "graph compile not updated: a PyNative run compiles no graph "
                    "(the cell is left as it is)"
                )
        elif g is None:
            out.notes.append(
                "graph compile was not measured from this log (the benchmark's notes say why); "
                "the cell is left as it is"
            )
        elif g <= 0:
            out.notes.append("graph compile not updated: the first step was not slower")
        else:
            new["graph compile"] = _compile_text(compile_cell.text, g)

    per_batch = steps * s
    if ctx.column(table, "img/s") is not None:
        new["img/s"] = round2(cards * batch / per_batch)
    if steps > 1:
        for name in ("s/img", "s/video"):
            if ctx.column(table, name) is not None:
                new[name] = round2(per_batch / (cards * batch))

    edits: list[Edit] = []
    for name, text in new.items():
        cell = ctx.cell(row, ctx.column(table, name))
        if cell is None:
            out.notes.append(f"the row has no `{name}` cell")
            continue
        if name in ("img/s", "s/img", "s/video"):
            text = _with_number(cell.text, float(text))
        out.cells.append(CellChange(name, cell.text, text, cell.line))
        if text != cell.text:
            edits.append(_cell_edit(row, cell, text))
    if edits:
        parts = [f"{c.column} {c.new}" for c in out.cells if c.changed]
        out.fix = Fix(f"Set {', '.join(parts)} (measured by {r.name})", tuple(edits))
    return out


# An unknown column whose header names a result rather than a setting (accuracy and other
# metrics): in a row moved to another MindSpore version its old value would be a claim nobody
# measured on the new version.
_RESULT_HEADER = re.compile(
    r"(?i)acc|top-?\s*[1-5]\b|\bm?ap\d*\b|@|recall|f-?score|\bf1\b|h-?mean|\bm?iou\b|\bfid\b|"
    r"\bfvd\b|\bclip\b|bleu|rouge|psnr|ssim|lpips|\bwer\b|\bcer\b|score|loss|\bppl\b|"
    r"perplexity|%|metric|eval|精度|准确|指标"
)
# it runs on a header cell's first MAX_HEADER characters only (a header is a few words): linear,
# but with a large constant on long text, so tests/test_linear_time.py checks the bound instead
MAX_HEADER = 200
LENGTH_BOUNDED_PATTERNS = frozenset({"_RESULT_HEADER"})


def _placeholder(table: Table) -> str:
    """The table's own "no value" notation (its most used placeholder cell), else ``-``."""
    counts: dict[str, int] = {}
    for r in table.rows:
        for c in r.cells:
            t = c.text.strip()
            if t and PLACEHOLDER.match(t):
                counts[t] = counts.get(t, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else "-"


def _is_result_column(ctx: Context, col) -> bool:
    """Whether a column holds something a run measures (not a setting of the run)."""
    if col.name is not None:
        return col.name in ctx.spec.measured
    if col.slot is not None:
        return True
    header = " ".join(col.text[: 4 * MAX_HEADER].split())[:MAX_HEADER]
    return bool(
        _RESULT_HEADER.search(header)
        or ctx.spec.timing_words.search(header)
        or header.lower() in ctx.spec.metric_neighbours
    )


def moved_row(ctx: Context, source: Source, table: Table, row: Row, rr: RowRefresh) -> str:
    """``row`` as a row of the runner's version's table: the settings as they are, the cells
    the benchmark measured with their new values, and every other result cell (graph compile
    not measured, accuracy, any metric) the table's placeholder, with a note: a value of the
    old version is not a measurement of the new one."""
    measured = {c.column: c.new for c in rr.cells}
    filler = _placeholder(table)
    edits: list[Edit] = []
    blanked: list[str] = []
    for col in ctx.columns(table):
        cell = ctx.cell(row, col)
        if cell is None:
            continue
        if col.name is not None and col.name in measured:
            new = measured[col.name]
        elif _is_result_column(ctx, col):
            new = filler
            rr.unmeasured = filler
            if cell.text.strip() != filler:
                blanked.append(col.text.strip() or f"column {col.index + 1}")
        else:
            continue
        if new != cell.text:
            edits.append(_cell_edit(row, cell, new))
    if blanked:
        version = rr.new_version or "the runner's version"
        rr.notes.append(
            "not measured by the benchmark, so `"
            + filler
            + "` in the new table (the old version's value is not a measurement on "
            + f"MindSpore {version}): "
            + ", ".join(f"`{b}`" for b in blanked)
        )
    if not edits:
        return row.raw
    _, _, text = replacement(source, Fix("moved row", tuple(edits)))
    return text.splitlines()[0] if text.splitlines() else row.raw


def refresh(
    source: Source,
    results: Iterable[BenchResult],
    config: Config | None = None,
    blocked: Mapping[int, str] | None = None,
) -> list[RowRefresh]:
    """One :class:`RowRefresh` per result (all for rows of ``source``), in the results' order.
    ``blocked`` maps ``id()`` of results that must not change the README to the reason."""
    blocked = blocked or {}
    ctx = Context(source, config or Config())
    out: list[RowRefresh] = []
    for r in results:
        try:
            table, row = find_row(ctx, r.row, r.environment.mindspore, r.run_mode)
        except RowError as e:
            out.append(RowRefresh(r, source.path, problem=str(e)))
            continue
        rr = refresh_row(ctx, table, row, r, source.path)
        rr.table = table
        if id(r) in blocked and r.ok:
            rr.fix, rr.problem = None, blocked[id(r)]
        target = move_target(table, rr)
        if target is not None:
            rr.new_version = target[0].canonical
            rr.new_row = moved_row(ctx, source, table, row, rr)
            rr.fix = None
            # the old table's cells stay; what is said of them is not said of the new row
            rr.notes = [n for n in rr.notes if "left as it is" not in n]
        out.append(rr)
    taken: dict[int, str] = {}
    for rr in out:
        if rr.line is None or rr.fix is None:
            continue
        if rr.line in taken:
            rr.problem = f"benchmark {taken[rr.line]} also measures this row"
            rr.fix = None
        else:
            taken[rr.line] = rr.name
    moved: dict[tuple[int, str], str] = {}
    for rr in out:
        if rr.line is None or rr.new_version is None:
            continue
        key = (rr.line, rr.new_version)
        if key in moved:
            rr.problem = f"benchmark {moved[key]} also measures this row"
            rr.new_version = rr.new_row = None
        else:
            moved[key] = rr.name
    propose_tables(ctx, source, out)
    return out


def proposals(refreshes: Iterable[RowRefresh]) -> list[TableProposal]:
    """The distinct table proposals of ``refreshes`` (in order)."""
    seen: dict[int, TableProposal] = {}
    for rr in refreshes:
        if rr.proposal is not None:
            seen.setdefault(id(rr.proposal), rr.proposal)
    return list(seen.values())


def apply_refreshes(source: Source, refreshes: Iterable[RowRefresh]) -> str:
    """``source``'s text with every refresh's fix applied, and the new tables proposed."""
    refreshes = list(refreshes)
    fixes = [r.fix for r in refreshes if r.fix is not None]
    fixes += [f for p in proposals(refreshes) for f in p.fixes]
    return apply_fixes(source, fixes)
