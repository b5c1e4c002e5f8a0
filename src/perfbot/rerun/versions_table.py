"""A row measured on another MindSpore version than its table's: a new table, not an overwrite.

The guide keeps one performance table per MindSpore version, each under its own sentence
(``Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.``), and one
Requirements row per version. When the runner's MindSpore is not a version of the table whose
row a benchmark measures, the old version's numbers stay as they are, and
:func:`propose_tables` proposes instead:

* the refreshed rows in a table for the runner's version: appended to the version's existing
  table with the same header (in the same section, else the only one in the README), or else a
  new table under the section's existing ones, with the source table's header and its own
  sentence (the source sentence's device, and ``pynative`` mode for PyNative runs);
* a Requirements row for that version, unless the Requirements table has one: the runner's
  measured driver, firmware and CANN (in the matrix's spelling where they agree with it), the
  matrix's values where the runner detected none, and every disagreement with the matrix said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from perfbot.engine import Context
from perfbot.fix import Edit, Fix
from perfbot.model import Row, Table
from perfbot.parse import canonical_sentence
from perfbot.rerun.rows import RowRefresh, TableProposal, is_pynative
from perfbot.rules.derived import not_measured_note, notes_below
from perfbot.source import Source
from perfbot.spec.versions import (
    Version,
    mindspore_versions,
    normalize_mindspore,
    parse_version,
    same_cann,
    same_driver,
    same_firmware,
)

if TYPE_CHECKING:
    from perfbot.runner.envinfo import EnvInfo

__all__ = ["TableProposal", "move_target", "propose_tables", "same_mode", "sentence_for"]


def _covers(written: str, ran: Version) -> bool:
    """Whether a sentence's version (``2.3.1``, ``2.5``, ``2.3.0/2.3.1``) names ``ran``."""
    for v in mindspore_versions(written):
        if v == ran or (v.partial and v.key[:2] == ran.key[:2]):
            return True
    return False


def runner_version(rr: RowRefresh) -> Version | None:
    v = normalize_mindspore(rr.result.environment.mindspore)
    return v if v is not None and v.kind == "mindspore" and not v.partial else None


def table_covers(table: Table, ran: Version) -> bool | None:
    """Whether ``table`` is for MindSpore ``ran``; None when its sentence names no version."""
    if table.sentence is None or not table.sentence.versions:
        return None
    return any(_covers(v, ran) for v in table.sentence.versions)


def run_mode(rr: RowRefresh) -> str | None:
    """``graph`` or ``pynative`` when the result says how it ran, else None."""
    mode = getattr(rr.result, "run_mode", None)
    return mode if mode in ("graph", "pynative") else None


def table_mode(table: Table) -> str | None:
    """The mode the table's sentence names (``graph``, ``pynative``), else None."""
    return table.sentence.mode if table.sentence is not None else None


def same_mode(table: Table, mode: str | None) -> bool:
    """Whether ``table`` can hold a result of ``mode``: the table or the result says no mode,
    or both say the same one."""
    have = table_mode(table)
    return mode is None or have is None or have == mode


def move_target(table: Table, rr: RowRefresh) -> tuple[Version, str | None] | None:
    """Where ``rr``'s numbers go when not into ``table``: (the runner's MindSpore, the run's
    mode) when ``table`` is for another version, or for the same version in another mode
    (a PyNative result never lands in a graph-mode table, nor the reverse); None when the row
    is refreshed in place. A result whose MindSpore is unknown, for a row in a table that names
    a version, gets ``rr.problem`` instead: its numbers go into no version's table on a guess."""
    if rr.problem or not rr.result.ok:
        return None
    ran = runner_version(rr)
    mode = run_mode(rr)
    if ran is None:
        if table.sentence is not None and table.sentence.versions:
            env = rr.result.environment
            why = getattr(env, "mindspore_source", None)
            rr.fix = None
            rr.problem = (
                "the MindSpore version the benchmark ran is unknown"
                + (f" ({why})" if why else "")
                + ": its numbers are put in no version's table (this one is for "
                + "/".join(table.sentence.versions)
                + "). Name the benchmark's interpreter with `python:` in .perfbot.yml"
            )
        return None
    covers = table_covers(table, ran)
    if covers is False or (covers and not same_mode(table, mode)):
        return ran, mode
    return None


def sentence_for(table: Table, version: str, pynative: bool) -> str:
    device = (table.sentence.device if table.sentence else None) or "910*"
    return canonical_sentence(device, version, "pynative" if pynative else "graph")


def _section_key(t: Table) -> tuple[int, ...]:
    return tuple(h.line for h in t.section)


def _header_key(t: Table) -> tuple[str, ...]:
    return tuple(" ".join(c.value.lower().split()) for c in t.header.cells)


def _last_line(t: Table) -> int:
    return t.rows[-1].line if t.rows else t.delimiter.line


def _version_key(v: str) -> tuple[int, ...]:
    parsed = normalize_mindspore(v)
    return parsed.key if parsed is not None else ()


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+~-]{0,39}")


def _plain(kind: str, value: object) -> str | None:
    """``value`` if it is a plain version of ``kind`` (letters, digits, ``._+~-``), else None:
    the results and a pull request's ``matrix:`` rows are untrusted, and these values end up in a
    README line and in the review's notes."""
    if not isinstance(value, str):
        return None
    v = value.strip()
    if not _PLAIN.fullmatch(v) or parse_version(kind, v) is None:
        return None
    return v


def requirement_values(
    ctx: Context, version: str, env: EnvInfo
) -> tuple[dict[str, str], list[str]]:
    """The Requirements cells for ``version`` measured in ``env``, and what to say about them."""
    matrix = ctx.matrix
    row = matrix.lookup(version)
    expected = row.values() if row is not None else {}
    notes: list[str] = []
    out = {"mindspore": version}
    for key, column, raw, same, label in (
        ("driver", "ascend driver", env.driver, same_driver, "driver"),
        ("firmware", "firmware", env.firmware, same_firmware, "firmware"),
        ("cann", "cann toolkit/kernel", env.cann, same_cann, "CANN"),
    ):
        exp = _plain(key, expected.get(key))
        measured = _plain(key, raw)
        if raw and measured is None:
            notes.append(f"the runner's {label} is not a {label} version; it is left out")
        if measured:
            out[column] = exp if exp and same(measured, exp) else measured
        elif exp:
            out[column] = exp
            notes.append(
                f"the runner reported no {label}: the Requirements row has the matrix's `{exp}` "
                f"for MindSpore {version}; check it"
            )
        else:
            out[column] = "-"
            notes.append(
                f"neither the runner nor the matrix gives the {label} of MindSpore {version}: "
                "fill it in"
            )
    if row is None:
        notes.append(
            f"MindSpore {version} is not in perfbot's compatibility matrix: the Requirements row "
            "has the runner's versions (add a `matrix:` row to `.perfbot.yml` if they are right)"
        )
    else:
        for issue in matrix.check_row(
            version, out["ascend driver"], out["firmware"], out["cann toolkit/kernel"]
        ):
            notes.append(f"the runner's {issue.message}")
    return out, notes


def _pipes(raw: str) -> list[int]:
    return [i for i, ch in enumerate(raw) if ch == "|" and (i == 0 or raw[i - 1] != "\\")]


def _like_row(table: Table, cells: Sequence[str]) -> str:
    """A line of ``table`` holding ``cells``: in an aligned table (its last row's pipes where the
    header's are) padded like that row, each cell starting where the row's does within its
    pipes and filled to the same width; else a plain ``| a | b |`` line."""
    plain = "| " + " | ".join(cells) + " |"
    model: Row | None = table.rows[-1] if table.rows else None
    if (
        model is None
        or len(model.cells) != len(cells)
        or not model.raw.lstrip().startswith("|")
        or _pipes(model.raw) != _pipes(table.header.raw)
    ):
        return plain
    raw = model.raw
    out = [raw[: raw.index("|")]]
    for cell, text in zip(model.cells, cells, strict=True):
        left = raw.rfind("|", 0, cell.start)
        right = raw.find("|", max(cell.end, left + 1))
        if left < 0 or right < 0:
            return plain
        lead = max(1, cell.start - left - 1) if cell.end > cell.start else 1
        width = right - left - 1
        seg = " " * lead + text
        out.append("|" + (seg.ljust(width) if len(seg) < width else f" {text} "))
    return "".join(out) + "|"


def propose_tables(ctx: Context, source: Source, rows: Sequence[RowRefresh]) -> None:
    """Give every row of ``rows`` that moves to another version (``new_version``) one shared
    :class:`TableProposal` for its README (``rr.proposal``)."""
    moved = [rr for rr in rows if rr.new_version and rr.table is not None]
    if not moved:
        return
    perf = ctx.doc.of_kind("performance")
    versions = sorted({rr.new_version for rr in moved if rr.new_version}, key=_version_key)
    proposal = TableProposal(versions)
    groups: dict[tuple[int, str, str], list[RowRefresh]] = {}
    for rr in moved:
        assert rr.table is not None and rr.new_version is not None
        groups.setdefault((rr.table.index, rr.new_version, run_mode(rr) or ""), []).append(rr)
    inserts: dict[int, list[str]] = {}
    titles: dict[int, list[str]] = {}
    for (index, version, mode), members in sorted(
        groups.items(), key=lambda kv: (_version_key(kv[0][1]), kv[0][2], kv[0][0])
    ):
        src_table = next(t for t in perf if t.index == index)
        members.sort(key=lambda rr: rr.line or 0)
        new_rows = [rr.new_row for rr in members if rr.new_row is not None]
        section = [t for t in perf if _section_key(t) == _section_key(src_table)]
        ran = normalize_mindspore(version)
        assert ran is not None
        # the version's own table (same header): in this section, else anywhere in the README
        mine = [
            t
            for t in perf
            if table_covers(t, ran)
            and same_mode(t, mode or table_mode(src_table))
            and _header_key(t) == _header_key(src_table)
        ]
        here = [t for t in mine if any(t is s for s in section)]
        existing = here[0] if here else (mine[0] if len(mine) == 1 else None)
        fillers = sorted({rr.unmeasured for rr in members if rr.unmeasured})
        notes = [not_measured_note(f, version) for f in fillers]
        if existing is not None:
            anchor, lines = _last_line(existing), list(new_rows)
            said = notes_below(ctx, existing)
            notes = [n for n in notes if n not in said]
            if notes:  # under the rows added, apart from the text that follows the table
                lines += ["", *notes]
                if anchor < len(source.lines) and source.lines[anchor].strip():
                    lines.append("")
            titles.setdefault(anchor, []).append(
                f"add {len(new_rows)} row(s) to the MindSpore {version} table"
            )
        else:
            anchor = max(_last_line(t) for t in section)
            pynative = mode == "pynative" or (
                not mode and all(is_pynative(rr.result, src_table) for rr in members)
            )
            lines = [
                "",
                sentence_for(src_table, version, pynative),
                "",
                src_table.header.raw,
                src_table.delimiter.raw,
                *new_rows,
            ]
            if notes:  # what the placeholders of cells nobody measured mean
                lines += ["", *notes]
            if anchor < len(source.lines) and source.lines[anchor].strip():
                lines.append("")  # text right under the table stays apart from the new one
            what = f"MindSpore {version}" + (f" {mode} mode" if mode else "")
            titles.setdefault(anchor, []).append(f"add a {what} table")
            device = src_table.sentence.device if src_table.sentence else None
            proposal.notes.append(
                f"the new table's sentence names the device of the table it comes from "
                f"(`{device or '910*'}`): perfbot does not detect the chip"
                + (
                    " (and this runner reported no Ascend driver or CANN)"
                    if not any(
                        (rr.result.environment.driver, rr.result.environment.cann) for rr in members
                    )
                    else ""
                )
                + "; correct it if the benchmark ran on another one"
            )
        inserts.setdefault(anchor, []).extend(lines)
    for anchor, lines in sorted(inserts.items()):
        proposal.fixes.append(
            Fix(
                "; ".join(titles[anchor]) + " (measured by perfbot rerun)",
                (Edit.insert_after(anchor, source.lines[anchor - 1], lines),),
            )
        )

    req = next(iter(ctx.doc.of_kind("requirements")), None)
    if req is None:
        proposal.notes.append(
            "the README has no Requirements table: add one with a row for MindSpore "
            + ", ".join(versions)
            + " (`perfbot fix` writes it from the matrix)"
        )
    else:
        ms_col = ctx.column(req, "mindspore")
        have: list[Version] = []
        for row in req.rows:
            cell = ctx.cell(row, ms_col)
            if cell is not None:
                have.extend(mindspore_versions(cell.value))
        columns = [c.column.name if c.column is not None else None for c in ctx.columns(req)]
        new_lines = []
        for version in versions:
            ran = normalize_mindspore(version)
            if ran is None or any(v == ran for v in have):
                continue
            env = next(rr.result.environment for rr in moved if rr.new_version == version)
            values, notes = requirement_values(ctx, version, env)
            proposal.notes.extend(notes)
            cells = [values.get(name or "", "") for name in columns]
            new_lines.append(_like_row(req, cells))
        if new_lines:
            anchor = _last_line(req)
            proposal.requirements = new_lines
            proposal.fixes.append(
                Fix(
                    "add the Requirements row for MindSpore "
                    + ", ".join(x.split(" | ")[0].strip("| ") for x in new_lines),
                    (Edit.insert_after(anchor, source.lines[anchor - 1], new_lines),),
                )
            )
    for rr in moved:
        rr.proposal = proposal
