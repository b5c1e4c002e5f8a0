"""The rules, one family per module. Importing this package registers them all, so whoever asks
it for a rule (:func:`get_rule`, :func:`all_rules`) is answered from the whole table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..config_read import ConfigError
from . import columns, derived, directives, matrix, requirements, sentence, structure, values  # noqa: F401
from .registry import FAMILIES, RULES, Rule, lookup, resolve, rule

if TYPE_CHECKING:
    from ..config_light import Settings

__all__ = [
    "FAMILIES",
    "RULES",
    "Rule",
    "all_rules",
    "check_names",
    "get_rule",
    "resolve",
    "rule",
]


def get_rule(name: str) -> Rule | None:
    """A rule by id (``PB401``, any case) or slug (``img-s-mismatch``)."""
    return lookup(name)


def all_rules() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.id)


# --- the rule names a repository's settings write --------------------------------------------------

_CHECKED: dict[int, Settings] = {}  # settings whose rule names were found good (by identity)


def check_names(config: Settings) -> None:
    """Raise :class:`~perfbot.config_read.ConfigError`, naming the file that wrote it, for a name
    in ``rules:``, ``fixable:`` or ``unfixable:`` that is no rule (``fixable`` also takes ``ALL``
    and id prefixes such as ``PB3``). The settings keep the names as written; the engine's rule
    plan reads them against the registry, and :func:`perfbot.targets.target` asks first, so that
    the error is the config's, where a config error is reported."""
    if _CHECKED.get(id(config)) is config:
        return
    # (the file that wrote it, the problem), a file's rules first, then fixable, unfixable
    problems: list[tuple[Path | None, str]] = []
    unknown: dict[Path | None, list[str]] = {}
    for name in config.rules:
        if lookup(name) is None:
            unknown.setdefault(config.origin(f"rules.{name}"), []).append(name)
    for where, names in unknown.items():
        listed = ", ".join(map(repr, names))
        problems.append(
            (where, f"rules: unknown rule {listed}{_meant(names[0])} (see `perfbot rules`)")
        )
    ids = list(RULES)
    for key in ("fixable", "unfixable"):
        for name in getattr(config, key) or ():
            up = name.upper()
            prefix = up.startswith("PB") and any(i.startswith(up) for i in ids)
            if lookup(name) is None and up != "ALL" and not prefix:
                what = f"unknown rule {name!r}{_meant(name)} (see `perfbot rules`)"
                problems.append((config.origin(key), f"{key}: {what}"))
                break
    if problems:
        # the nearest file's problems (as when each file was read alone, nearest first)
        nearest = list(config._files)
        where = min(
            (w for w, _ in problems),
            key=lambda w: nearest.index(w) if w in nearest else len(nearest),
        )
        text = "; ".join(p for w, p in problems if w == where)
        raise ConfigError(f"{where}: {text}" if where is not None else text)
    if len(_CHECKED) > 4096:
        _CHECKED.clear()
    _CHECKED[id(config)] = config


def _meant(name: str) -> str:
    """ "; did you mean 'img-s-mismatch'?" for a misspelt rule id or slug."""
    import difflib

    rules = all_rules()
    spellings = {r.slug: r.slug for r in rules} | {r.id.lower(): r.id for r in rules}
    guess = difflib.get_close_matches(str(name).lower(), list(spellings), 1)
    return f"; did you mean '{spellings[guess[0]]}'?" if guess else ""
