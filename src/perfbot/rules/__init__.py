"""The rules, one family per module. Importing this package registers them all, so whoever asks
it for a rule (:func:`get_rule`, :func:`all_rules`) is answered from the whole table."""

from . import columns, derived, directives, matrix, requirements, sentence, structure, values  # noqa: F401
from .registry import FAMILIES, RULES, Rule, lookup, resolve, rule

__all__ = ["FAMILIES", "RULES", "Rule", "all_rules", "get_rule", "resolve", "rule"]


def get_rule(name: str) -> Rule | None:
    """A rule by id (``PB401``, any case) or slug (``img-s-mismatch``)."""
    return lookup(name)


def all_rules() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.id)
