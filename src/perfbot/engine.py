"""The engine: the one place that runs rules over a parsed document.

``check_source(source, config) -> FileResult``. Pure: no files are read or written here.
A rule that raises is a perfbot bug; it becomes an ``internal-error`` finding for that file
(with the rule's id) instead of stopping the run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from .config import Config
from .fix import Fix, apply_fixes
from .model import Document, Row, Table
from .parse import parse_document
from .registry import SEVERITIES, Finding, Issue, Rule, all_rules
from .source import Source
from .spec import Column, Resolved, Spec, builtin_spec


@dataclass(slots=True)
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # a per-file error (unreadable, bad config)
    source: Source | None = None
    # the parsed document has a Requirements or Performance table (pipe or HTML): the content
    # test for "is this a model README" when the config's paths/exclude do not decide
    has_model_tables: bool = False


def _has_model_tables(doc: Document) -> bool:
    return any(t.kind != "other" for t in doc.tables) or any(
        h.kind != "other" for h in doc.html_tables
    )


def spec_for(config: Config) -> Spec:
    extra = [Column(c.name, tuple(c.aliases), c.form) for c in config.columns]
    return builtin_spec().with_config(extra, config.aliases)


class Context:
    """What rules see: the source, its parsed document, the guide and the repository's config."""

    def __init__(self, source: Source, config: Config, spec: Spec | None = None):
        self.source = source
        self.config = config
        self.spec = spec or spec_for(config)
        self.doc: Document = parse_document(source, self.spec)
        self._cols: dict[int, list[Resolved]] = {}
        self._by_name: dict[int, dict[str, Resolved]] = {}
        self._table_keys: dict[int, str] = {}
        self.memo: dict[object, object] = {}  # what several rules derive from one table
        self._row_keys: dict[int, dict[int, str]] = {}

    @cached_property
    def matrix(self):  # -> perfbot.spec.matrix.Matrix
        from .spec.matrix import Matrix

        rows = [r.model_dump() for r in self.config.matrix]
        return Matrix.builtin().merged(rows) if rows else Matrix.builtin()

    # --- tables ---------------------------------------------------------------------------------
    def columns(self, table: Table) -> list[Resolved]:
        cols = self._cols.get(table.index)
        if cols is None:
            schema = (
                self.spec.requirements if table.kind == "requirements" else self.spec.performance
            )
            cols = schema.resolve_header([c.value for c in table.header.cells])
            self._cols[table.index] = cols
        return cols

    def column(self, table: Table, name: str) -> Resolved | None:
        """The first column of ``table`` that means ``name`` (a canonical column name)."""
        by_name = self._by_name.get(table.index)
        if by_name is None:
            by_name = {}
            for c in self.columns(table):
                if c.column is not None:
                    by_name.setdefault(c.column.name, c)
            self._by_name[table.index] = by_name
        return by_name.get(name)

    def is_inference(self, table: Table) -> bool:
        names = {c.name for c in self.columns(table)}
        if names & self.spec.inference_columns:
            return True
        return any(self.spec.inference_headings.search(h.text) for h in table.section)

    @staticmethod
    def cell(row: Row, col: Resolved | None):
        if col is None or col.index >= len(row.cells):
            return None
        return row.cells[col.index]

    def table_key(self, table: Table) -> str:
        """Identity of a table that survives edits elsewhere: its kind, section and ordinal."""
        if not self._table_keys:  # all at once: one pass over the tables, not one per table
            seen: dict[tuple[str, str], int] = {}
            for t in self.doc.tables:
                n = seen.get((t.kind, t.heading), 0)
                seen[(t.kind, t.heading)] = n + 1
                self._table_keys[t.index] = f"{t.kind}:{t.heading}#{n}"
        key = self._table_keys.get(table.index)
        if key is None:
            same = [
                t for t in self.doc.tables if t.kind == table.kind and t.heading == table.heading
            ]
            key = f"{table.kind}:{table.heading}#{same.index(table)}"
            self._table_keys[table.index] = key
        return key

    def _row_ident(self, table: Table, r: Row) -> str:
        skip = self.spec.measured | set(self.spec.order["last"])  # recipe, weight
        parts = []
        for c in self.columns(table):
            if c.name in skip:
                continue
            cell = self.cell(r, c)
            parts.append((cell.text if cell else "").lower())
        return "|".join(parts)

    def row_key(self, table: Table, row: Row) -> str:
        """Identity of a row: its configuration cells (not the measured ones), and its ordinal
        among the rows of the table with the same configuration. Computed once per table: rules
        ask for it row by row, and a table can have thousands of rows."""
        keys = self._row_keys.get(table.index)
        if keys is None:
            keys = {}
            seen: dict[str, int] = {}
            for r in table.rows:
                ident = self._row_ident(table, r)
                n = seen.get(ident, 0)
                seen[ident] = n + 1
                keys[r.line] = hashlib.sha1(f"{ident}#{n}".encode()).hexdigest()[:12]
            self._row_keys[table.index] = keys
        key = keys.get(row.line)
        if key is None:  # not one of the table's rows
            key = hashlib.sha1(f"{self._row_ident(table, row)}#0".encode()).hexdigest()[:12]
        return key


def _severity(rule: Rule, issue: Issue, config: Config) -> str | None:
    setting = config.setting(rule.id, rule.slug)
    if setting == "off":
        return None
    if setting is not None:
        return setting
    if not rule.enabled:
        return None
    return issue.severity or rule.severity


def run_rules(ctx: Context, rules: list[Rule] | None = None) -> list[Finding]:
    findings: list[Finding] = []
    tables = {t.index: t for t in ctx.doc.tables}
    for r in rules or all_rules():
        if ctx.config.setting(r.id, r.slug) == "off" or (
            not r.enabled and ctx.config.setting(r.id, r.slug) is None
        ):
            continue
        try:
            if r.scope == "document":
                issues = list(r.func(ctx))
            else:
                kinds = ("requirements", "performance") if r.scope == "tables" else (r.scope,)
                issues = [i for t in ctx.doc.tables if t.kind in kinds for i in r.func(ctx, t)]
        except Exception as e:  # a perfbot bug must not hide the other findings
            findings.append(
                Finding(ctx.source.path, 1, 1, r.id, r.slug, "error",
                        f"internal error in rule {r.id} ({type(e).__name__}: {e}); "
                        "please report this README to perfbot")
            )  # fmt: skip
            continue
        for i in issues:
            sev = _severity(r, i, ctx.config)
            if sev is None:
                continue
            findings.append(
                Finding(
                    path=ctx.source.path,
                    line=i.line,
                    end_line=i.end_line or i.line,
                    rule=r.id,
                    slug=r.slug,
                    severity=sev,  # type: ignore[arg-type]
                    message=i.message,
                    fix=i.fix,
                    table=i.table,
                    table_key=ctx.table_key(tables[i.table]) if i.table in tables else None,
                    row_key=i.row_key,
                )
            )
    findings.sort(key=lambda f: (f.line, f.rule))
    return findings


def check_source(
    source: Source, config: Config | None = None, *, require_model_tables: bool = False
) -> FileResult:
    """Run the rules over ``source``. With ``require_model_tables``, a document without a
    Requirements or Performance table is not checked (no rules run; ``has_model_tables`` False)."""
    config = config or Config()
    ctx = Context(source, config)
    has = _has_model_tables(ctx.doc)
    if require_model_tables and not has:
        return FileResult(source.path, [], source=source, has_model_tables=False)
    return FileResult(source.path, run_rules(ctx), source=source, has_model_tables=has)


def at_or_above(sev: str, threshold: str) -> bool:
    return SEVERITIES.index(sev) >= SEVERITIES.index(threshold)  # type: ignore[arg-type]


MAX_FIX_PASSES = 10


def applicable(f: Finding, unsafe: bool) -> bool:
    """``f`` has a fix to apply: a safe one, or any with ``unsafe`` (`--unsafe-fixes`)."""
    return f.fix is not None and (unsafe or f.fix.safe)


def fix_source(
    source: Source, config: Config | None = None, *, unsafe: bool = True
) -> tuple[str, list[Finding]]:
    """Apply the fixes, re-checking until nothing changes. Returns (new text, findings fixed).

    With ``unsafe`` False only safe fixes are applied (`perfbot fix` without `--unsafe-fixes`);
    the review, which offers every fix as a suggestion for a person to accept, applies all."""
    config = config or Config()
    text = source.text
    fixed: list[Finding] = []
    cur = source
    for _ in range(MAX_FIX_PASSES):
        result = check_source(cur, config)
        todo = [f for f in result.findings if applicable(f, unsafe)]
        fixes: list[Fix] = [f.fix for f in todo if f.fix is not None]
        if not fixes:
            return text, fixed
        new = apply_fixes(cur, fixes)
        if new == text:
            return text, fixed
        fixed.extend(todo)
        text = new
        cur = Source.from_text(text, path=source.path, bom=source.bom, encoding=source.encoding)
    raise RuntimeError(
        f"{source.path}: fixes did not settle after {MAX_FIX_PASSES} passes (a perfbot bug)"
    )
