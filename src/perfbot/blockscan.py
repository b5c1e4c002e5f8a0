"""Proofs read from compiled regexes, so mistune's block loop can try fewer of them (issue 11).

mistune finds the next block with one big alternation of its rules (``compile_sc``). Python's
``re`` tries every alternative at every character of a ``search``, and every alternative at each
``match``. What is proved here, from the parsed pattern itself (``re._parser``), lets
:class:`perfbot.parse.blocks._SpanParser` do less with the same result:

- :func:`line_anchored`: every alternative starts with ``^``, so a match can only start at a line
  start, and ``search`` is :func:`search_lines` (``match`` at each line start);
- :func:`first_chars`: the characters an alternative can consume first; :class:`RuleMatcher`
  then tries, at a line starting with ``c``, only the alternatives that can start with ``c``, in
  their order, under their names. An alternative that cannot start with ``c`` cannot match there,
  so the first alternative that matches, and its groups, are the same.

Every analysis is conservative: what it cannot read (an unknown opcode, a category, case
folding) counts as "could be anything", which only means more alternatives are tried.
``tests/test_parse_differential.py`` checks both against ``re`` and the whole parse against
stock mistune.
"""

from __future__ import annotations

import re
import re._constants as _c
from re._parser import parse as _sre_parse
from typing import Any


def _starts_at_line(items: Any) -> bool:
    """Whether every match of the parsed pattern ``items`` starts where ``^`` holds.

    Conservative: True only when the first thing the pattern does is ``^``/``\\A`` (possibly
    inside groups, every branch of an alternation, or a repeat taken at least once).
    """
    items = list(items)
    if not items:
        return False
    op, av = items[0]
    if op is _c.AT:
        return av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING)
    if op is _c.SUBPATTERN:
        return _starts_at_line(av[-1])
    if op is _c.ATOMIC_GROUP:
        return _starts_at_line(av)
    if op is _c.BRANCH:
        return all(_starts_at_line(b) for b in av[1])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        return av[0] >= 1 and _starts_at_line(av[2])
    return False


_ANCHORED: dict[re.Pattern[str], bool] = {}


def line_anchored(sc: re.Pattern[str]) -> bool:
    """Whether ``sc`` can only match at a line start (offset 0 or right after a ``\\n``), read
    from the compiled pattern itself: then ``sc.search(s, pos)`` is the first of ``sc.match(s,
    p)`` over the line starts ``p >= pos`` (``^`` never holds elsewhere, and ``search`` returns
    the leftmost match, with the same alternative ``match`` picks there)."""
    ok = _ANCHORED.get(sc)
    if ok is None:
        try:
            ok = _starts_at_line(_sre_parse(sc.pattern, sc.flags))
        except Exception:  # an unparsable pattern: keep mistune's own search
            ok = False
        _ANCHORED[sc] = ok
    return ok


def search_lines(sc: re.Pattern[str] | RuleMatcher, src: str, pos: int) -> re.Match[str] | None:
    """``sc.search(src, pos)`` for a :func:`line_anchored` ``sc``: ``sc.match`` at each line start
    from ``pos`` on (Python's ``search`` tries every alternative at every character)."""
    if pos and src[pos - 1] != "\n":
        pos = src.find("\n", pos) + 1
        if not pos:
            return None
    n = len(src)
    match = sc.match
    find = src.find
    while True:
        m = match(src, pos)
        if m is not None:
            return m
        pos = find("\n", pos) + 1
        if not pos or pos > n:
            return None


# --- the first character of a match -------------------------------------------------------------

# A set of characters: (negated, chars). (False, {a, b}) is {a, b}; (True, {a}) is "all but a".
CharSet = tuple[bool, frozenset[str]]
_NONE: CharSet = (False, frozenset())
_ALL: CharSet = (True, frozenset())
_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)
_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)


def _union(a: CharSet, b: CharSet) -> CharSet:
    (an, ac), (bn, bc) = a, b
    if an and bn:
        return True, ac & bc
    if an:
        return True, ac - bc
    if bn:
        return True, bc - ac
    return False, ac | bc


def _in_set(items: Any) -> CharSet:
    """The characters of a ``[...]`` class; a category (``\\s``, ``\\w``) or a wide range: all."""
    negated = False
    chars: set[str] = set()
    for op, av in items:
        if op is _c.NEGATE:
            negated = True
        elif op is _c.LITERAL:
            chars.add(chr(av))
        elif op is _c.RANGE and av[1] - av[0] <= 512:
            chars.update(map(chr, range(av[0], av[1] + 1)))
        else:
            return _ALL
    return negated, frozenset(chars)


def _first(items: Any, icase: bool) -> tuple[CharSet, bool]:
    """(the characters a match of ``items`` can start with, whether it can match empty)."""
    acc = _NONE
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue  # ``^``, ``$``, lookarounds: they only take matches away
        if op is _c.LITERAL:
            return _union(acc, _ALL if icase else (False, frozenset(chr(av)))), False
        if op is _c.NOT_LITERAL:
            return _union(acc, _ALL if icase else (True, frozenset(chr(av)))), False
        if op is _c.IN:
            return _union(acc, _ALL if icase else _in_set(av)), False
        if op is _c.SUBPATTERN:
            _, add, drop, sub = av
            f, empty = _first(sub, (icase or bool(add & re.I)) and not drop & re.I)
        elif op is _c.ATOMIC_GROUP:
            f, empty = _first(av, icase)
        elif op is _c.BRANCH:
            f, empty = _NONE, False
            for branch in av[1]:
                fb, eb = _first(branch, icase)
                f, empty = _union(f, fb), empty or eb
        elif op in _REPEATS:
            f, empty = _first(av[2], icase)
            empty = empty or av[0] == 0
        else:  # ``.``, a back reference, a conditional ...: anything, and maybe nothing
            return _ALL, True
        acc = _union(acc, f)
        if not empty:
            return acc, False
    return acc, True


_RULE_INFO: dict[tuple[str, int], tuple[bool, tuple[CharSet, bool]]] = {}


def rule_info(pattern: str, flags: int = 0) -> tuple[bool, tuple[CharSet, bool]]:
    """(whether ``pattern`` starts with ``^``, :func:`first_chars`), from one parse, kept per
    pattern (mistune's rules are a handful of fixed strings). Unparsable: (False, (all, True))."""
    key = (pattern, flags)
    info = _RULE_INFO.get(key)
    if info is None:
        try:
            parsed = _sre_parse(pattern, flags)
        except Exception:
            info = (False, (_ALL, True))
        else:
            info = (_starts_at_line(parsed), _first(parsed, bool(parsed.state.flags & re.I)))
        _RULE_INFO[key] = info
    return info


def first_chars(pattern: str, flags: int = 0) -> tuple[CharSet, bool]:
    """What a match of ``pattern`` can start with: (characters, whether it can match empty).
    Unparsable: (all, True)."""
    return rule_info(pattern, flags)[1]


def _may_start(first: tuple[CharSet, bool], c: str) -> bool:
    (negated, chars), empty = first
    return empty or (c not in chars if negated else c in chars)


class RuleMatcher:
    """``sc.match`` for mistune's combined rule pattern ``sc`` (``compile_sc(rules)``), trying at
    a position only the rules whose first character can be the one there.

    A rule that cannot start with that character cannot match there, so the same rule matches
    first, with the same span and the same named groups holding text (the groups' numbers
    differ, and the groups of rules not tried are absent rather than None: mistune's rule
    methods read the groups of their own rule, by name, and ``group(0)``). Patterns are built
    per character on first use and shared by characters with the same rules; past
    ``MAX_CHARS`` distinct characters, a new one's rules are worked out at each use.
    """

    MAX_CHARS = 4096

    def __init__(self, sc: re.Pattern[str], rules: list[str], specification: dict[str, str]):
        self.sc = sc
        self.rules = list(rules)
        self.spec = {name: specification[name] for name in self.rules}
        infos = [rule_info(self.spec[name], sc.flags) for name in self.rules]
        self.firsts = [first for _, first in infos]
        # ``sc`` is ``(?P<rule>...)|...``: it starts with ``^`` where every rule does (what
        # line_anchored(sc) reads from the whole pattern, from the rules' parses kept here)
        self.anchored = bool(infos) and all(anchored for anchored, _ in infos)
        self.by_rules: dict[tuple[str, ...], re.Pattern[str] | None] = {tuple(self.rules): sc}
        self.by_char: dict[str, re.Pattern[str] | None] = {}
        self.pattern, self.flags = sc.pattern, sc.flags

    def for_char(self, c: str) -> re.Pattern[str] | None:
        """The pattern of the rules that may start with ``c`` (None: no rule can)."""
        got = self.by_char.get(c, False)
        if got is not False:
            return got  # type: ignore[return-value]
        rules = tuple(r for r, f in zip(self.rules, self.firsts, strict=True) if _may_start(f, c))
        if rules not in self.by_rules:
            self.by_rules[rules] = (
                re.compile("|".join(f"(?P<{r}>{self.spec[r]})" for r in rules), self.flags)
                if rules
                else None
            )
        got = self.by_rules[rules]
        if len(self.by_char) < self.MAX_CHARS:
            self.by_char[c] = got
        return got

    def match(self, src: str, pos: int) -> re.Match[str] | None:
        if pos >= len(src):
            return self.sc.match(src, pos)
        try:
            p = self.by_char[src[pos]]
        except KeyError:
            p = self.for_char(src[pos])
        return p.match(src, pos) if p is not None else None
