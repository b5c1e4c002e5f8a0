"""Inline suppression, markdownlint style, in HTML comments a README renders invisibly.

```markdown
<!-- perfbot-disable-file -->                  every rule, in the whole file
<!-- perfbot-disable-file PB202 -->            these rules, in the whole file
<!-- perfbot-disable PB301 header-case -->     these rules (ids or slugs) from here on ...
<!-- perfbot-enable -->                        ... to here (no names: every rule again)
<!-- perfbot-disable-next-table PB306 PB414 --> these rules on the next table (its rows, its
                                               sentence and its table-wide findings)
```

No names means every rule. Names are separated by blanks or commas. A name that is no rule is
reported by PB001 (``unknown-directive-rule``) and otherwise ignored. Directives inside fenced
code blocks are text, not directives (a README may document perfbot itself).

A suppressed finding is dropped by the engine, so ``perfbot fix`` never applies its fix.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from .findings import Finding
    from .model import Document

    #: a rule's name (id or slug, as written) -> its id, or None for no rule
    Resolve = Callable[[str], str | None]

_DIRECTIVE = re.compile(r"perfbot-(disable-next-table|disable-file|disable|enable)\b")
MAX_DIRECTIVES = 1000  # per file: more is not a README someone wrote by hand
MAX_UNKNOWN = 100  # unknown names reported per file
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MEMO_KEY = "perfbot.suppress.directives"


@dataclass(frozen=True, slots=True)
class Directive:
    line: int  # 1-based
    kind: str  # "disable-next-table" | "disable-file" | "disable" | "enable"
    names: tuple[str, ...]  # as written
    rules: frozenset[str] | None  # rule ids; None = every rule


@dataclass(slots=True)
class Directives:
    items: list[Directive] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)  # (line, name as written)


def parse_directives(lines: list[str], resolve: Resolve) -> Directives:
    """Every directive of a document, with its names resolved to rule ids by ``resolve``
    (:func:`perfbot.rules.resolve`)."""
    out = Directives()
    fence = ""
    for n, line in enumerate(lines, 1):
        m = _FENCE.match(line)
        if fence:
            if m and m[1][0] == fence[0] and len(m[1]) >= len(fence) and not line.strip(" `~"):
                fence = ""
            continue
        if m:
            fence = m[1]
            continue
        if "perfbot-" not in line:
            continue
        for kind, body in _comments(line):
            if len(out.items) >= MAX_DIRECTIVES:
                return out
            names = tuple(x for x in re.split(r"[\s,]+", body) if x)[:100]
            rules: set[str] | None = None
            if names:
                rules = set()
                for name in names:
                    rid = resolve(name)
                    if rid is None:
                        if len(out.unknown) < MAX_UNKNOWN:
                            out.unknown.append((n, name))
                    else:
                        rules.add(rid)
            out.items.append(Directive(n, kind, names, None if rules is None else frozenset(rules)))
    return out


def _comments(line: str):
    """(kind, the text after it) of each ``<!-- perfbot-... -->`` comment of a line, in one pass
    (no regular expression spans a comment: a long line cannot make the scan quadratic)."""
    pos = 0
    while True:
        start = line.find("<!--", pos)
        if start < 0:
            return
        end = line.find("-->", start + 4)
        if end < 0:
            return
        body = line[start + 4 : end].lstrip()
        m = _DIRECTIVE.match(body)
        if m is not None:
            yield m[1], body[m.end() :]
        pos = end + 3


def directives_of(ctx, resolve: Resolve) -> Directives:  # ctx: perfbot.context.Context
    """:func:`parse_directives` of the document, memoised per document."""
    got = ctx.memo.get(_MEMO_KEY)
    if got is None:
        text = ctx.source
        got = parse_directives(text.lines, resolve) if "perfbot-" in text.text else Directives()
        ctx.memo[_MEMO_KEY] = got
    return got


class _State:
    """Rules off at a point: every rule except ``ids`` (``all``), or just ``ids``."""

    __slots__ = ("all", "ids")

    def __init__(self, all_: bool = False, ids: frozenset[str] = frozenset()):
        self.all = all_
        self.ids = ids

    def off(self, rule: str) -> bool:
        return (rule not in self.ids) if self.all else (rule in self.ids)

    def disable(self, rules: frozenset[str] | None) -> _State:
        if rules is None:
            return _State(True)
        if self.all:
            return _State(True, self.ids - rules)
        return _State(False, self.ids | rules)

    def enable(self, rules: frozenset[str] | None) -> _State:
        if rules is None:
            return _State()
        if self.all:
            return _State(True, self.ids | rules)
        return _State(False, self.ids - rules)


def suppress(findings: list[Finding], directives: Directives, doc: Document) -> list[Finding]:
    """``findings`` without those the directives turn off."""
    if not directives.items or not findings:
        return findings
    file_state = _State()
    starts: list[int] = []  # lines where the range state changes
    states: list[_State] = []
    cur = _State()
    # (first line, last line, table index, rules) of each disable-next-table
    tables: list[tuple[int, int, int, frozenset[str] | None]] = []
    ordered = sorted(doc.tables, key=lambda t: t.start_line)
    table_starts = [t.start_line for t in ordered]
    for d in directives.items:
        if d.kind == "disable-file":
            file_state = file_state.disable(d.rules)
        elif d.kind == "disable":
            cur = cur.disable(d.rules)
            starts.append(d.line)
            states.append(cur)
        elif d.kind == "enable":
            cur = cur.enable(d.rules)
            starts.append(d.line)
            states.append(cur)
        else:
            i = bisect.bisect_right(table_starts, d.line)
            if i < len(ordered):
                t = ordered[i]
                tables.append((t.start_line, t.end_line, t.index, d.rules))

    def off(f: Finding) -> bool:
        if file_state.off(f.rule):
            return True
        i = bisect.bisect_right(starts, f.line) - 1
        if i >= 0 and states[i].off(f.rule):
            return True
        for first, last, index, rules in tables:
            if (f.table == index or first <= f.line <= last) and (rules is None or f.rule in rules):
                return True
        return False

    return [f for f in findings if not off(f)]


UNUSED_DIRECTIVE = "PB002"  # the rule that reports them (rules/directives.py)

# PB002: a directive that silences nothing. Attributing each silenced finding to the directives
# that silence it costs (directives x findings): past this, the check is skipped (no finding).
MAX_UNUSED_WORK = 2_000_000


def unused(
    findings: list[Finding],
    directives: Directives,
    doc: Document,
    ran: frozenset[str],
    every_rule_ran: bool,
) -> list[tuple[int, str]]:
    """(line, message) for each directive that silences nothing among ``findings`` (the findings
    before suppression). Only rules that ran are judged (a rule turned off by the config or by
    `--select` finds nothing to silence); a directive naming no rule only when every rule ran."""
    items = [d for d in directives.items if d.kind != "enable"]
    if not items or len(directives.items) * max(1, len(findings)) > MAX_UNUSED_WORK:
        return []
    ordered = sorted(doc.tables, key=lambda t: t.start_line)
    table_starts = [t.start_line for t in ordered]
    target: dict[int, tuple[int, int, int] | None] = {}  # directive line -> its table
    for d in items:
        if d.kind == "disable-next-table":
            i = bisect.bisect_right(table_starts, d.line)
            nxt = ordered[i] if i < len(ordered) else None
            target[d.line] = None if nxt is None else (nxt.start_line, nxt.end_line, nxt.index)
    ranges = [d for d in directives.items if d.kind in ("disable", "enable")]
    used: set[tuple[int, str]] = set()  # (directive line, rule id)

    def covers(d: Directive, rule: str) -> bool:
        return d.rules is None or rule in d.rules

    for f in findings:
        for d in items:
            if not covers(d, f.rule):
                continue
            if d.kind == "disable-file":
                used.add((d.line, f.rule))
            elif d.kind == "disable-next-table":
                span = target.get(d.line)
                if span is not None and (f.table == span[2] or span[0] <= f.line <= span[1]):
                    used.add((d.line, f.rule))
        last: Directive | None = None  # the range directive that turned the rule off last
        for d in ranges:
            if d.line > f.line:
                break
            if covers(d, f.rule):
                last = d if d.kind == "disable" else None
        if last is not None:
            used.add((last.line, f.rule))
    out: list[tuple[int, str]] = []
    for d in items:
        what = f"`perfbot-{d.kind}`"
        if d.kind == "disable-next-table" and target.get(d.line) is None:
            out.append((d.line, f"{what} has no table after it: it silences nothing; remove it"))
            continue
        if d.rules is None:
            if every_rule_ran and not any(line == d.line for line, _ in used):
                out.append((d.line, f"{what} silences nothing: no finding here; remove it"))
            continue
        idle = sorted(r for r in d.rules if r in ran and (d.line, r) not in used)
        if idle:
            names = ", ".join(idle)
            s = "s" if len(idle) > 1 else ""
            out.append(
                (d.line, f"{what} names {names}, which find{'' if s else 's'} nothing here to "
                 f"silence; remove {'them' if s else 'it'} from the comment")
            )  # fmt: skip
    return out
