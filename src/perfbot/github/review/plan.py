"""The plan of a review (pure: no network): a checked file's findings and its fixed text cut into
:class:`Item` s, one per future comment, and the filter that says which are in scope and where
GitHub takes them inline. Steps 2 and 3 of the flow in :mod:`perfbot.github.review`."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ...config import Config
from ...engine import MAX_FIX_PASSES, Context, FileResult, check_source
from ...findings import SEVERITIES, Finding
from ...fix import Edit, apply_to_lines, select_fixes
from ...hunks import FilterMode, Hunk, can_suggest, commentable_lines, in_scope
from ...source import FileError, Source, split_lines
from ..suggest import fingerprint

ITEM_VERSION = "perfbot-item-v1"
# error 0, warning 1, info 2
_SEVERITY_ORDER: dict[str, int] = {s: i for i, s in enumerate(reversed(SEVERITIES))}


# --------------------------------------------------------------------------------------------
# What is reported


@dataclass
class Report:
    """One finding as the review shows it (a :class:`~perfbot.registry.Finding` without its
    ``Fix``, plus where its table is and its fingerprint)."""

    path: str
    line: int
    end_line: int
    rule: str
    slug: str
    severity: str
    message: str
    fixable: bool
    table_key: str | None = None
    row_key: str | None = None
    table_lines: tuple[int, int] | None = None
    in_scope: bool = False
    unsafe: bool = False  # its fix changes a measured or declared value

    @property
    def fp(self) -> str:
        return fingerprint(self.path, self.table_key, self.row_key, self.rule)


# what a Report has in common with a Finding and with a record of the findings file
REPORT_FIELDS = (
    "path",
    "line",
    "end_line",
    "rule",
    "slug",
    "severity",
    "message",
    "fixable",
    "table_key",
    "row_key",
)


def report_fields(obj: Any) -> dict[str, Any]:
    """The :data:`REPORT_FIELDS` of a :class:`Report`, a ``Finding`` or a ``FindingRecord``."""
    return {name: getattr(obj, name) for name in REPORT_FIELDS}


ItemKind = Literal["row", "table", "lines"]
Where = Literal["", "inline", "review", "summary"]


@dataclass
class Item:
    """One comment's worth: lines ``start_line..end_line`` of ``path``, the findings there and
    the text that replaces those lines (None: no suggestion, a comment only)."""

    path: str
    start_line: int
    end_line: int
    reports: list[Report]
    suggestion: str | None
    kind: ItemKind = "lines"
    in_scope: bool = False
    anchor: tuple[int, int] | None = None  # the lines an inline comment takes (None: body)
    where: Where = ""

    @property
    def fps(self) -> list[str]:
        return sorted({r.fp for r in self.reports})

    @property
    def key(self) -> str:
        """Identity of the comment: fingerprints and suggested text, no line numbers."""
        parts = [ITEM_VERSION, self.path, ",".join(self.fps)]
        parts.append("\x00" if self.suggestion is None else self.suggestion)
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]

    @property
    def severity(self) -> str:
        sevs = [r.severity for r in self.reports] or ["info"]
        return min(sevs, key=lambda s: _SEVERITY_ORDER.get(s, 9))


@dataclass
class FilePlan:
    path: str
    reports: list[Report]
    items: list[Item]


# --------------------------------------------------------------------------------------------
# Plan: findings and the fixed text -> items


@dataclass
class _Unit:
    lo: int  # 0-based, inclusive
    hi: int  # 0-based, exclusive
    findings: list[Finding] = field(default_factory=list)

    def absorb(self, other: _Unit) -> None:
        self.lo = min(self.lo, other.lo)
        self.hi = max(self.hi, other.hi)
        self.findings.extend(other.findings)


def _merge(units: list[_Unit]) -> list[_Unit]:
    """Merge units that share a line (adjacent units stay apart)."""
    merged: list[_Unit] = []
    for u in sorted(units, key=lambda u: (u.lo, u.hi)):
        if merged and u.lo < merged[-1].hi:
            merged[-1].absorb(u)
        else:
            merged.append(u)
    return merged


def _line_counts(src: Source, edits: list[Edit]) -> list[int]:
    """How many lines each line of ``src`` becomes once ``edits`` are applied (an edit replaces
    columns of one line; a newline in its text splits that line, and nothing joins lines)."""
    by_line: dict[int, list[Edit]] = {}
    for e in edits:
        by_line.setdefault(e.line, []).append(e)
    counts = [1] * len(src.lines)
    for line, es in by_line.items():
        i = line - 1
        if not 0 <= i < len(src.lines):
            continue
        shifted = [replace(e, line=1) for e in es]
        text = apply_to_lines([src.lines[i]], [src.eols[i]], shifted, src.newline)
        counts[i] = max(1, len(split_lines(text)[0]))
    return counts


def fix_with_map(src: Source, config: Config) -> tuple[str, list[tuple[int, int]]]:
    """The fixed text, as :func:`perfbot.engine.fix_source` makes it (fix, re-check, until
    stable), and where each original line went: ``spans[i]`` is the 0-based half-open range of
    fixed lines that line ``i + 1`` became."""
    spans = [(i, i + 1) for i in range(len(src.lines))]
    cur, text = src, src.text
    for _ in range(MAX_FIX_PASSES):
        fixes = [f.fix for f in check_source(cur, config).findings if f.fix is not None]
        if not fixes:
            break
        edits = select_fixes(fixes)
        new = apply_to_lines(cur.lines, cur.eols, edits, cur.newline)
        if new == text:
            break
        starts, pos = [], 0
        for n in _line_counts(cur, edits):
            starts.append((pos, pos + n))
            pos += n
        spans = [(starts[a][0], starts[b - 1][1]) for a, b in spans]
        text = new
        cur = Source.from_text(text, path=src.path, bom=src.bom, encoding=src.encoding)
    return text, spans


def _report(f: Finding, tables: dict[int, tuple[int, int]]) -> Report:
    fields = report_fields(f)
    fields["end_line"] = max(f.end_line, f.line)
    table_lines = tables.get(f.table) if f.table is not None else None
    return Report(**fields, table_lines=table_lines, unsafe=f.unsafe_fix)


def plan_file(result: FileResult, config: Config | None = None) -> FilePlan:
    """Cut a checked file's fixes into :class:`Item` s (pure: no network).

    Every change between the file and its fully fixed text lands in exactly one item, and items
    never overlap, so applying every suggestion the way GitHub does (replace the commented lines
    with the block's lines) gives the fixed text. Fixes that do not settle (a perfbot bug) raise
    nothing here: the text of the last pass is used.
    """
    config = config or Config()
    src = result.source
    if src is None:
        return FilePlan(result.path, [], [])
    findings = list(result.findings)
    doc = Context(src, config).doc
    table_lines = {t.index: (t.start_line, t.end_line) for t in doc.tables}
    reports = {id(f): _report(f, table_lines) for f in findings}
    n = len(src.lines)

    def clip(a: int, b: int) -> tuple[int, int]:
        a = min(max(a, 1), n)
        return a, min(max(b, a), n)

    def table_at(a: int, b: int):
        return next((t for t in doc.tables if t.start_line <= a and b <= t.end_line), None)

    def key_of(f: Finding, a: int, b: int) -> tuple:
        t = table_at(a, b)
        if t is not None and f.row_key is not None and a == b and a > t.delimiter.line:
            return ("row", t.index, a)
        if t is not None:
            return ("table", t.index)
        return ("lines", a, b)

    # 1. fixable findings, grouped per row / per table / per lines, on the lines their fix edits
    groups: dict[tuple, _Unit] = {}
    no_fix: list[Finding] = []
    for f in findings:
        if f.fix is None or not f.fix.edits:
            no_fix.append(f)
            continue
        a, b = clip(f.fix.start_line, f.fix.end_line)
        k = key_of(f, a, b)
        if k in groups:
            groups[k].absorb(_Unit(a - 1, b, [f]))
        else:
            groups[k] = _Unit(a - 1, b, [f])

    # 2. every original line maps to the fixed lines it became; a changed line that no group
    # holds (a fix that only showed after others were applied) becomes a unit of its own
    fixed, spans = fix_with_map(src, config)
    new_lines = split_lines(fixed)[0]
    units = _merge(list(groups.values()))

    def changed(i: int) -> bool:
        a, b = spans[i]
        return new_lines[a:b] != [src.lines[i]]

    held = {i for u in units for i in range(u.lo, u.hi)}
    units = _merge(units + [_Unit(i, i + 1) for i in range(n) if changed(i) and i not in held])

    def new_text(u: _Unit) -> list[str]:
        return new_lines[spans[u.lo][0] : spans[u.hi - 1][1]]

    def kind_of(a: int, b: int) -> ItemKind:
        t = table_at(a, b)
        if t is None:
            return "lines"
        return "row" if a == b and a > t.delimiter.line else "table"

    items: list[Item] = []
    for u in units:
        text = new_text(u)
        old = src.lines[u.lo : u.hi]
        suggestion = "\n".join(text) if text != old else None
        a, b = u.lo + 1, u.hi
        items.append(
            Item(result.path, a, b, [reports[id(f)] for f in u.findings], suggestion, kind_of(a, b))
        )

    # 3. findings without a fix: join the item on their line, else a comment of their own
    plain: dict[tuple, Item] = {}
    for f in no_fix:
        a, b = clip(f.line, f.end_line)
        host = next((it for it in items if it.start_line <= a <= it.end_line), None)
        if host is not None:
            host.reports.append(reports[id(f)])
            continue
        k = key_of(f, a, b)
        if k in plain:
            it = plain[k]
            it.start_line, it.end_line = min(it.start_line, a), max(it.end_line, b)
            it.reports.append(reports[id(f)])
        else:
            plain[k] = Item(result.path, a, b, [reports[id(f)]], None, kind_of(a, b))
    items.extend(plain.values())
    for it in items:
        it.reports.sort(key=lambda r: (r.line, r.rule))
    items.sort(key=lambda it: (it.start_line, it.end_line))
    return FilePlan(result.path, [reports[id(f)] for f in findings], items)


# --------------------------------------------------------------------------------------------
# Filter: scope and diff lines


def decide(
    plan: FilePlan,
    hunks: list[Hunk],
    mode: FilterMode,
    *,
    file_in_diff: bool = True,
    lenient: bool = False,
) -> None:
    """Set each report's and item's ``in_scope`` and each item's ``anchor`` (the lines its
    inline comment takes, or None when GitHub would not take one there).

    ``lenient``: the file changed but GitHub gave no patch (too large): judge it as ``file``.
    In ``diff_context`` a finding in a table is in scope when the PR touched any line of the
    table; in ``added`` only its own lines count.
    """
    if lenient and mode in (FilterMode.ADDED, FilterMode.DIFF_CONTEXT):
        mode = FilterMode.FILE
    for r in plan.reports:
        ranges = [(r.line, r.end_line)]
        if mode is FilterMode.DIFF_CONTEXT and r.table_lines is not None:
            ranges.append(r.table_lines)
        r.in_scope = any(in_scope(mode, hunks, a, b, file_in_diff) for a, b in ranges)
    lines = commentable_lines(hunks)
    for it in plan.items:
        if it.reports:
            it.in_scope = any(r.in_scope for r in it.reports)
        else:
            it.in_scope = in_scope(mode, hunks, it.start_line, it.end_line, file_in_diff)
        a, b = it.start_line, it.end_line
        if a == b:
            it.anchor = (a, a) if a in lines else None
        elif can_suggest(hunks, a, b):
            it.anchor = (a, b)
        elif it.suggestion is None and a in lines:
            it.anchor = (a, a)  # a comment without a suggestion may sit on its first line
        else:
            it.anchor = None


# --------------------------------------------------------------------------------------------
# The plan of a whole PR


@dataclass
class Plan:
    repo: str
    number: int
    head_sha: str
    files: list[FilePlan] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    results: list[FileResult] = field(default_factory=list)  # for annotations and SARIF
    mode: FilterMode = FilterMode.DIFF_CONTEXT

    @property
    def items(self) -> list[Item]:
        return [it for fp in self.files for it in fp.items]

    @property
    def reports(self) -> list[Report]:
        return [r for fp in self.files for r in fp.reports]

    @property
    def in_scope(self) -> list[Report]:
        return [r for r in self.reports if r.in_scope]

    @property
    def paths(self) -> list[str]:
        return [fp.path for fp in self.files]

    def counts(self) -> dict[str, int]:
        rs = self.in_scope
        return {
            "findings": len(rs),
            "errors": sum(r.severity == "error" for r in rs),
            "warnings": sum(r.severity == "warning" for r in rs),
            "info": sum(r.severity == "info" for r in rs),
            "fixable": sum(r.fixable for r in rs),
        }


@dataclass
class Outcome:
    """What a run did, for the job summary and the messages."""

    posted_inline: int = 0
    posted_body: int = 0
    skipped: int = 0  # already posted
    resolved: int = 0
    outdated: int = 0
    summary: str = ""  # "created" / "updated" / "unchanged" / ""
    read_only: str = ""  # why nothing could be written
    failures: list[str] = field(default_factory=list)
    review_url: str = ""
    summary_url: str = ""
