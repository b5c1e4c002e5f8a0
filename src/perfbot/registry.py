"""The rule registry: ``@rule`` turns a small generator into a documented, configurable rule.

A rule yields :class:`Issue` objects (a line, a message, maybe a fix); the engine turns them into
:class:`Finding` objects with the rule's id, slug and configured severity. Rules never edit text.
The first line of a rule's docstring is its one-line doc; ``Example:`` and ``Use instead:``
blocks in the docstring become its documentation (see :mod:`perfbot.docs`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from .fix import Fix

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")
Scope = Literal["document", "requirements", "performance", "tables"]
FixAvailability = Literal["always", "sometimes", "never"]
# safe: presentation only; unsafe: changes a measured or declared value; mixed: some of each
FixSafety = Literal["safe", "unsafe", "mixed"]


# a value, never changed once made; not ``frozen`` (whose __init__ sets each field through
# object.__setattr__, 3x the cost: a run makes thousands), with a frozen one's equality and hash
@dataclass(slots=True, unsafe_hash=True)
class Issue:
    """What a rule reports; the engine adds the rule's identity and severity."""

    line: int
    message: str
    fix: Fix | None = None
    end_line: int | None = None
    severity: Severity | None = None  # overrides the rule's default (e.g. matrix warnings)
    table: int | None = None
    row_key: str | None = None


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


def _load() -> None:
    """Register perfbot's rules (importing :mod:`perfbot.rules` does it, once).

    Every reader of the registry calls this first, so nothing depends on what an earlier import
    happened to register: ``perfbot post`` in a fresh process knows every rule too."""
    from . import rules  # noqa: F401 - registers the rules


def get_rule(name: str) -> Rule | None:
    """A rule by id (``PB401``, any case) or slug (``img-s-mismatch``)."""
    _load()
    return RULES.get(name.upper()) or _BY_SLUG.get(name.lower())


def all_rules() -> list[Rule]:
    _load()
    return sorted(RULES.values(), key=lambda r: r.id)


# a value, never changed once made; not ``frozen`` (whose __init__ sets each field through
# object.__setattr__, 3x the cost: a run makes thousands), with a frozen one's equality and hash
@dataclass(slots=True, unsafe_hash=True)
class Finding:
    path: str
    line: int
    end_line: int
    rule: str
    slug: str
    severity: Severity
    message: str
    fix: Fix | None = None
    table: int | None = None
    table_key: str | None = None
    row_key: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    @property
    def safe_fix(self) -> bool:
        """The finding has a fix that `perfbot fix` applies without `--unsafe-fixes`."""
        return self.fix is not None and self.fix.safe

    @property
    def unsafe_fix(self) -> bool:
        return self.fix is not None and not self.fix.safe

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity} {self.rule} {self.message}"
