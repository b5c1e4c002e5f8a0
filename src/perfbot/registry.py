"""Where the rule registry and the finding types used to live; kept so that older imports work.

The types are in :mod:`perfbot.findings`, the rule table in :mod:`perfbot.rules.registry` and the
lookups in :mod:`perfbot.rules` (which registers every rule first). New code imports those; nothing
inside ``perfbot.rules`` may import this module.
"""

from __future__ import annotations

from .findings import SEVERITIES, Finding, Issue, Severity
from .rules import all_rules, get_rule
from .rules.registry import (
    _BY_SLUG,
    FAMILIES,
    RULES,
    FixAvailability,
    FixSafety,
    Rule,
    Scope,
    rule,
)

__all__ = [
    "FAMILIES",
    "RULES",
    "SEVERITIES",
    "_BY_SLUG",
    "Finding",
    "FixAvailability",
    "FixSafety",
    "Issue",
    "Rule",
    "Scope",
    "Severity",
    "all_rules",
    "get_rule",
    "rule",
]
