"""The rule table: ``@rule`` turns a small generator into a documented, configurable rule.

A rule yields :class:`Issue` objects (a line, a message, maybe a fix); the engine turns them into
:class:`Finding` objects with the rule's id, slug and configured severity. Rules never edit text.
The first line of a rule's docstring is its one-line doc; ``Example:`` and ``Use instead:``
blocks in the docstring become its documentation (see :mod:`perfbot.docs`).

The table fills as the rule modules are imported; :mod:`perfbot.rules` imports them all and then
answers :func:`~perfbot.rules.get_rule` and :func:`~perfbot.rules.all_rules`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from ..findings import SEVERITIES, Issue, Severity

__all__ = ["FAMILIES", "RULES", "SEVERITIES", "Issue", "Rule", "Severity", "rule"]

Scope = Literal["document", "requirements", "performance", "tables"]
FixAvailability = Literal["always", "sometimes", "never"]
# safe: presentation only; unsafe: changes a measured or declared value; mixed: some of each
FixSafety = Literal["safe", "unsafe", "mixed"]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    slug: str
    severity: Severity
    scope: Scope
    fix: FixAvailability
    func: Callable[..., Iterator[Issue]]
    family: str
    config_keys: tuple[str, ...] = ()
    enabled: bool = True
    safety: FixSafety = "safe"

    @property
    def fix_safety(self) -> str:
        """How safe the rule's fixes are (`safe`, `unsafe`, `mixed`), or `-` when it has none."""
        return "-" if self.fix == "never" else self.safety

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.func) or ""

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else self.slug

    def section(self, name: str) -> str:
        """A docstring block such as ``Example:`` (the indented text below that line)."""
        lines = self.doc.splitlines()
        out: list[str] = []
        inside = False
        for ln in lines:
            if ln.strip() == f"{name}:":
                inside = True
                continue
            if inside:
                if ln and not ln.startswith("    ") and ln.strip().endswith(":"):
                    break
                out.append(ln[4:] if ln.startswith("    ") else ln)
        return "\n".join(out).strip("\n")


RULES: dict[str, Rule] = {}
_BY_SLUG: dict[str, Rule] = {}
FAMILIES: dict[str, str] = {
    "PB0": "directives",
    "PB1": "requirements",
    "PB2": "sentence",
    "PB3": "columns",
    "PB4": "values",
    "PB5": "matrix",
    "PB6": "structure",
}


def rule(
    id: str,
    slug: str,
    *,
    severity: Severity,
    scope: Scope,
    fix: FixAvailability = "never",
    config_keys: tuple[str, ...] = (),
    enabled: bool = True,
    safety: FixSafety = "safe",
) -> Callable[[Callable[..., Iterator[Issue]]], Callable[..., Iterator[Issue]]]:
    def deco(func: Callable[..., Iterator[Issue]]) -> Callable[..., Iterator[Issue]]:
        if id in RULES or slug in _BY_SLUG:
            raise ValueError(f"duplicate rule {id} / {slug}")
        r = Rule(
            id, slug, severity, scope, fix, func, FAMILIES[id[:3]], config_keys, enabled, safety
        )
        RULES[id] = r
        _BY_SLUG[slug] = r
        return func

    return deco


def lookup(name: str) -> Rule | None:
    """A registered rule by id (``PB401``, any case) or slug (``img-s-mismatch``). Ask
    :func:`perfbot.rules.get_rule`, which has every rule registered; this table holds the rules
    imported so far."""
    return RULES.get(name.upper()) or _BY_SLUG.get(name.lower())


def resolve(name: str) -> str | None:
    """The id of the rule a directive names, or None (:func:`perfbot.suppress.parse_directives`)."""
    r = lookup(name)
    return None if r is None else r.id
