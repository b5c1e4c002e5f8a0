"""The rules' names (id -> slug) as data, so that the config can check a rule name without
importing the rules (the config sits below them: issue 19).

``rule_names.json`` is generated from the registry (``python scripts/gen_rule_names.py``);
``tests/test_rule_names.py`` fails, with that command, when it is not what the rules say.
"""

from __future__ import annotations

import json
from functools import lru_cache

from .data import _read

FILE = "rule_names.json"
REGENERATE = "python scripts/gen_rule_names.py"


@lru_cache(maxsize=1)
def slugs() -> dict[str, str]:
    """Every rule's slug by its id, in id order."""
    data = json.loads(_read(FILE))
    return {str(k): str(v) for k, v in sorted(data.items())}


@lru_cache(maxsize=1)
def _by_name() -> dict[str, str]:
    by_id = slugs()
    return {**{slug: rid for rid, slug in by_id.items()}, **{rid: rid for rid in by_id}}


def rule_id(name: str) -> str | None:
    """The id of the rule ``name`` names: an id (``PB401``, any case) or a slug
    (``img-s-mismatch``, any case), as :func:`perfbot.rules.get_rule` reads it; else None."""
    by_name = _by_name()
    return by_name.get(name.upper()) or by_name.get(name.lower())


def ids() -> list[str]:
    return list(slugs())
