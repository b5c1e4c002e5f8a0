"""The engine: the one place that runs rules over a parsed document.

``check_source(source, config) -> FileResult``. Pure: no files are read or written here.
A rule that raises is a perfbot bug; it becomes an ``internal-error`` finding for that file
(with the rule's id) instead of stopping the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import rules as registry
from .config_light import DEFAULT
from .context import Context, spec_for
from .findings import SEVERITIES, FileResult, Finding
from .fix import Fix, apply_to_lines, select_fixes
from .model import Document
from .recognise import NUMBER_RULES
from .rules import RULES, Rule, all_rules, check_names, resolve
from .source import Source
from .suppress import UNUSED_DIRECTIVE, Directives, directives_of, suppress, unused

if TYPE_CHECKING:
    from .config import Config

_DEFAULT: Config = DEFAULT  # the settings when no config file applies

__all__ = ["Context", "FileResult", "check_source", "fix_result", "fix_source", "spec_for"]


def _has_model_tables(doc: Document) -> bool:
    return any(t.kind != "other" for t in doc.tables) or any(
        h.kind != "other" for h in doc.html_tables
    )


# (rule, its configured severity or None, whether its fixes are kept) for each rule that runs
_Plan = list[tuple[Rule, "str | None", bool]]
_DEFAULT_PLAN: list = []  # [(the registry's rules when it was made, the plan)]


def _plan(config: Config, rules: list[Rule] | None) -> _Plan:
    """The rules that run under ``config``, in id order, each with its configured severity
    (``config.setting``: None for the rule's own) and ``config.can_fix``; a rule name the config
    writes that is no rule is a :class:`~perfbot.config_read.ConfigError` naming its file.
    Worked out once for the default config (which nothing changes) while the registry holds the
    same rules, once per file for a repository's."""
    # only the registry's own rule list is remembered (a caller may replace ``all_rules``)
    default = rules is None and config is DEFAULT and all_rules is registry.all_rules
    if default and _DEFAULT_PLAN:
        registered, plan = _DEFAULT_PLAN[0]
        if registered == tuple(RULES.values()):  # the same rules (identity first: cheap)
            return plan
    check_names(config)  # the settings keep rule names as written: ConfigError names the file
    plan = []
    for r in rules or all_rules():
        setting = config.setting(r.id, r.slug)
        if setting == "off" or (not r.enabled and setting is None):
            continue
        plan.append((r, setting, config.can_fix(r.id, r.slug)))
    if default:
        _DEFAULT_PLAN[:] = [(tuple(RULES.values()), plan)]
    return plan


def run_rules(ctx: Context, rules: list[Rule] | None = None) -> list[Finding]:
    findings: list[Finding] = []
    doc_tables = ctx.doc.tables
    tables = {t.index: t for t in doc_tables}
    in_scope: dict[str, list] = {
        "requirements": [t for t in doc_tables if t.kind == "requirements"],
        "performance": [t for t in doc_tables if t.kind == "performance"],
        "tables": [t for t in doc_tables if t.kind in ("requirements", "performance")],
    }
    # tables read for their numbers only (not in the guide's format): the number rules run on
    # them too, in document order, nothing else does
    numbers_only: dict[str, list] = {}
    for table in doc_tables:
        rec = ctx.recognition.get(table.index)
        if rec is not None and rec.numbers_only:
            scope = "requirements" if rec.kind == "requirements" else "performance"
            # (a table read sideways, or one pair of its columns, as recognition reads it)
            for view in (rec, *rec.views):
                numbers_only.setdefault(scope, []).append(view.table or table)
    if numbers_only:
        number_scope = {
            k: sorted([*in_scope[k], *numbers_only.get(k, [])], key=lambda t: t.start_line)
            for k in ("requirements", "performance")
        }
    table_keys: dict[int | None, str | None] = {}
    path = ctx.source.path
    for r, setting, can_fix in _plan(ctx.config, rules):
        try:
            if r.scope == "document":
                issues = list(r.func(ctx))
            else:
                func = r.func
                scoped = in_scope[r.scope]
                if numbers_only and r.id in NUMBER_RULES and r.scope in number_scope:
                    scoped = number_scope[r.scope]
                issues = [i for t in scoped for i in func(ctx, t)]
        except Exception as e:  # a perfbot bug must not hide the other findings
            findings.append(
                Finding(path, 1, 1, r.id, r.slug, "error",
                        f"internal error in rule {r.id} ({type(e).__name__}: {e}); "
                        "please report this README to perfbot")
            )  # fmt: skip
            continue
        for i in issues:
            # the configured severity, else the issue's own (matrix warnings), else the rule's
            sev = setting if setting is not None else (i.severity or r.severity)
            t = i.table
            if t in table_keys:
                table_key = table_keys[t]
            else:
                table_key = table_keys[t] = ctx.table_key(tables[t]) if t in tables else None
            findings.append(
                Finding(
                    path=path,
                    line=i.line,
                    end_line=i.end_line or i.line,
                    rule=r.id,
                    slug=r.slug,
                    severity=sev,  # type: ignore[arg-type]
                    message=i.message,
                    fix=i.fix if can_fix else None,
                    table=t,
                    table_key=table_key,
                    row_key=i.row_key,
                )
            )
    findings.sort(key=lambda f: (f.line, f.rule))
    return findings


def check_source(
    source: Source,
    config: Config | None = None,
    *,
    require_model_tables: bool = False,
    previous: Source | None = None,
) -> FileResult:
    """Run the rules over ``source``. With ``require_model_tables``, a document without a
    Requirements or Performance table is not checked (no rules run; ``has_model_tables`` False).
    ``previous``: the text ``source`` was made from by fixes; when it is the one parsed last, only
    the edited part of ``source`` is tokenised again (:mod:`perfbot.reparse`; the same result)."""
    config = config or _DEFAULT
    if previous is None:
        ctx = Context(source, config)
    else:
        from .reparse import parse_after

        spec = spec_for(config)
        ctx = Context(source, config, spec, parse_after(previous, source, spec))
    has = _has_model_tables(ctx.doc)
    if require_model_tables and not has:
        return FileResult(source.path, [], source=source, has_model_tables=False)
    raw = run_rules(ctx)
    directives = directives_of(ctx, resolve)
    findings = suppress(raw, directives, ctx.doc)
    if directives.items:
        findings = _unused_directives(ctx, raw, directives, findings)
    return FileResult(source.path, findings, source=source, has_model_tables=has)


def _unused_directives(
    ctx: Context, raw: list[Finding], directives: Directives, findings: list[Finding]
) -> list[Finding]:
    """PB002 (ruff's RUF100): the directives that silence nothing, judged on every finding
    before suppression, once the rules have run."""
    plan = _plan(ctx.config, None)
    mine = next(((r, s) for r, s, _ in plan if r.id == UNUSED_DIRECTIVE), None)
    if mine is None:
        return findings
    ran = frozenset(r.id for r, _, _ in plan)
    every = all(r.id in ran for r in all_rules() if r.enabled)
    rule, setting = mine
    path = ctx.source.path
    extra = [
        Finding(path, line, line, rule.id, rule.slug, setting or rule.severity, msg)  # type: ignore[arg-type]
        for line, msg in unused(raw, directives, ctx.doc, ran, every)
    ]
    if not extra:
        return findings
    return sorted([*findings, *extra], key=lambda f: (f.line, f.rule))


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
    text, fixed, _ = fix_result(source, config, unsafe=unsafe)
    return text, fixed


def fix_result(
    source: Source,
    config: Config | None = None,
    first: FileResult | None = None,
    *,
    unsafe: bool = True,
) -> tuple[str, list[Finding], FileResult]:
    """:func:`fix_source`, also returning the check of the new text (the last pass's, so the
    caller need not parse it again). ``first``, the caller's check of ``source`` with ``config``,
    is reused as the first pass instead of parsing ``source`` again."""
    config = config or _DEFAULT
    text = source.text
    fixed: list[Finding] = []
    cur = source
    prev: Source | None = None  # the text ``cur`` was made from, in the loop
    for n in range(MAX_FIX_PASSES):
        reuse = n == 0 and first is not None
        result = first if reuse and first is not None else check_source(cur, config, previous=prev)
        todo = [f for f in result.findings if applicable(f, unsafe)]
        fixes: list[Fix] = [f.fix for f in todo if f.fix is not None]
        if not fixes:
            return text, fixed, result
        edits = select_fixes(fixes)
        new = apply_to_lines(cur.lines, cur.eols, edits, cur.newline)  # apply_fixes(cur, fixes)
        if new == text:
            return text, fixed, result
        # only the findings whose whole fix went in this pass: one skipped for overlapping
        # another is counted in the pass that applies it (check and fix count alike)
        taken = set(edits)
        fixed.extend(f for f in todo if f.fix is not None and all(e in taken for e in f.fix.edits))
        text = new
        prev = cur
        cur = Source.from_text(text, path=source.path, bom=source.bom, encoding=source.encoding)
    raise RuntimeError(
        f"{source.path}: fixes did not settle after {MAX_FIX_PASSES} passes (a perfbot bug)"
    )
