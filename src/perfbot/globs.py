"""Limits on gitignore-style globs (``paths``/``exclude`` in ``.perfbot.yml``, ``.gitignore``).

pathspec turns a glob into a regular expression, and Python's regular expressions backtrack: a
pattern with many wildcards (``a/**/x/**/x/**/x/**/x/**/x/y``, ``*a*a*a*a*b``) takes time
exponential in their number on a long path (measured: eight ``**`` on a 40-folder path, 8 s; four
``*`` on a 250-character name, 1 s). Those files come from pull requests, so a pattern is used only
with at most :data:`MAX_WILDCARDS` runs of ``*`` (``**`` counts once) and at most
:data:`MAX_LENGTH` characters: about 1 ms per path at worst. Consecutive ``**/`` are one (git
treats them alike). Real patterns (``configs/**/README.md``, ``**/*_CN.md``,
``**/configs/*/README*.md``) stay well inside.
"""

from __future__ import annotations

import re

MAX_WILDCARDS = 3
MAX_LENGTH = 1024
MAX_PATTERNS = 10_000  # lines of one .gitignore

_STARS = re.compile(r"\*+")
_REPEATED = re.compile(r"(?:\*\*/){2,}")


def normalise(pattern: str) -> str:
    """``./x`` -> ``x``; ``**/**/x`` -> ``**/x``."""
    return _REPEATED.sub("**/", pattern.removeprefix("./"))


def too_complex(pattern: str) -> str | None:
    """Why ``pattern`` is refused, or None."""
    if len(pattern) > MAX_LENGTH:
        return f"a glob longer than {MAX_LENGTH} characters"
    n = len(_STARS.findall(normalise(pattern)))
    if n > MAX_WILDCARDS:
        return f"a glob with {n} wildcards (at most {MAX_WILDCARDS}: `**` and each `*` count)"
    return None
