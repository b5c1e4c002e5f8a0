"""The guide as data: ``columns.yaml`` loaded once into typed, read-only objects.

Rules never spell a column name in their logic; they ask the :class:`Spec` what a header cell
means (:meth:`Schema.resolve`), which columns are required, and in which order they go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Literal

from . import data as _data

How = Literal["exact", "case", "alias", "translation", "unit", "embedded", "unknown"]


_EMPHASIS = ("**", "__", "*", "_", "`")
_HTML_EMPHASIS = re.compile(r"(?is)^(<(b|strong|em|i)>)(.+)(</\2>)$")
# a footnote marker after a header's name: `precision*`, `s/step¹`, `img/s†`, `name<sup>1</sup>`,
# `img/s[^2]` (see _footnote_start)
_FOOTNOTE_MARKS = "†‡¹²³⁴⁵⁶⁷⁸⁹"
# emphasis nested deeper than this is not a header's name (and peeling it costs a copy each)
_MAX_EMPHASIS = 8
# a header that is a link: `[Recipe](https://...)` names the column by its text
_LINK_HEADER = re.compile(r"^(\[)([^\[\]]{1,80})(\]\([^()\s]{0,500}\))$")


def _footnote_token_end(t: str, i: int, bare_star: bool) -> int | None:
    """The end of the footnote mark starting at ``t[i]`` (``\\*``, ``†``, ``¹``, ``<sup>x</sup>``,
    ``[^x]`` with 1-8 characters inside, and with ``bare_star`` also ``*``), or None."""
    c = t[i]
    if c in _FOOTNOTE_MARKS or (c == "*" and bare_star):
        return i + 1
    if c == "\\" and t.startswith("*", i + 1):
        return i + 2
    if t.startswith("<sup>", i):
        k = t.find("<", i + 5, i + 14)
        inner = t[i + 5 : k]
        if k > i + 5 and t.startswith("</sup>", k) and ">" not in inner:
            return k + 6
    if t.startswith("[^", i):
        k = t.find("]", i + 2, i + 11)
        if k > i + 2:
            return k + 1
    return None


def _footnote_start(t: str, *, bare_star: bool = True) -> int | None:
    """Where the footnote marks ending ``t`` begin, or None: the leftmost position from which
    the rest of ``t`` is all marks, what a ``search`` for "one or more marks, then the end"
    found (it tried a run of stars from every star: quadratic). One pass from the end; a mark
    is at most 19 characters long, so the pass stops 19 characters before the leftmost
    position found."""
    n = len(t)
    ok = {n, n - 1} if t.endswith("\n") else {n}  # `$` also matches before a final newline
    lowest = min(ok)
    best = None
    i = n - 1
    while i >= 0 and i >= lowest - 19:
        j = _footnote_token_end(t, i, bare_star)
        if j is not None and j in ok:
            ok.add(i)
            lowest = best = i
        i -= 1
    return best


# Header texts repeat (every table of a repository writes `model name`, and recognition and the
# rules ask about one header many times): the pure functions of a header's text below are
# memoised per text. Only texts up to this length are kept, in caches of bounded size, so a
# README of huge or countless distinct headers cannot make them hold much.
_MEMO_MAX_LEN = 256
_MEMO_SIZE = 4096


def header_parts(text: str) -> tuple[str, str, str]:
    """A header cell as (opening marks, name, closing marks): emphasis (`**x**`, `__x__`,
    `*x*`, `` `x` ``), a link around it (`[recipe](url)`) and a footnote marker (`precision*`,
    `model name<sup>1</sup>`, `img/s[^2]`) are not part of the column's name."""
    if len(text) <= _MEMO_MAX_LEN:
        return _header_parts_memo(text)
    return _header_parts(text)


def _header_parts(text: str) -> tuple[str, str, str]:
    t = text.strip()
    pre = post = ""
    at = _footnote_start(t, bare_star=False)
    if at is not None and t[:at].endswith(("**", "__", "`", ">")):  # `**precision**\*`
        t, post = t[:at], t[at:]
    changed = True
    for _ in range(_MAX_EMPHASIS):
        if not changed:
            break
        changed = False
        m = _LINK_HEADER.match(t)
        if m:
            pre, post, t = pre + m.group(1), m.group(3) + post, m.group(2)
            changed = True
            continue
        m = _HTML_EMPHASIS.match(t)
        if m:
            pre, post, t = pre + m.group(1), m.group(4) + post, m.group(3)
            changed = True
            continue
        for mark in _EMPHASIS:
            if t.startswith(mark) and t.endswith(mark) and len(t) > 2 * len(mark):
                inner = t[len(mark) : -len(mark)]
                if mark in ("*", "_") and (inner.startswith(mark) or inner.endswith(mark)):
                    continue  # `***x**`: not balanced single marks
                pre, post, t = pre + mark, mark + post, inner
                changed = True
                break
    at = _footnote_start(t)
    if at and not t[:at].endswith(("*", " ")):
        post = t[at:] + post
        t = t[:at]
    return pre, t, post


_header_parts_memo = lru_cache(maxsize=_MEMO_SIZE)(_header_parts)
_SPACES = re.compile(r"\s+")


def header_key(text: str) -> str:
    """How header cells are compared: case-, emphasis-, footnote- and space-insensitive."""
    if len(text) <= _MEMO_MAX_LEN:
        return _header_key_memo(text)
    return _header_key(text)


def _header_key(text: str) -> str:
    return _SPACES.sub(" ", header_parts(text)[1]).strip().lower()


_header_key_memo = lru_cache(maxsize=_MEMO_SIZE)(_header_key)


# a name with none of the marks header_parts peels (emphasis, links, HTML, footnotes), nor `_` at
# either end: its header_key is its text with spaces squeezed, lowercased
_MARKS = r"*`<>\[\]\\" + _FOOTNOTE_MARKS
_PLAIN_NAME = re.compile(rf"[^{_MARKS}_](?:[^{_MARKS}]*[^{_MARKS}_])?")


def _guide_key(name: str) -> str:
    """:func:`header_key` of a name in the guide, without peeling what plain names do not have
    (the ~200 names of columns.yaml were ~5 ms of every cold start)."""
    t = name.strip()
    if _PLAIN_NAME.fullmatch(t):
        return _SPACES.sub(" ", t).strip().lower()
    return header_key(name)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    aliases: tuple[str, ...] = ()
    form: str = "any"
    required: str | None = None  # "all" | "inference" | None
    unit_variants: tuple[tuple[str, float], ...] = ()
    translations: tuple[str, ...] = ()  # the name in another language (README_CN.md)
    modes: tuple[str, ...] = ()  # the modes a run has it in (none: every mode)
    since: tuple[int, ...] = ()  # the MindSpore version it exists from (none: every version)


@dataclass(frozen=True, slots=True)
class Resolved:
    """What one header cell means: a known column (how it was written) or an unknown one."""

    index: int
    text: str
    column: Column | None
    how: How
    scale: float = 1.0  # value * scale = value in the canonical unit (ms/step -> s/step: 0.001)
    unit: str | None = None  # the unit variant's header, e.g. "ms/step"
    # set by recognition: the guide's tail column an unknown column stands for in another unit
    # (`tokens/s` -> img/s), and why a column means what it means
    slot: str | None = None
    note: str = ""
    # set by recognition for a column named inside a longer header (`Graph train 1P (ms/step)`):
    # the card count the header gives, and values that are the reciprocal of the unit (`step/s`)
    cards: int | None = None
    inverse: bool = False
    # the column's canonical name (None: unknown); set from ``column``, read on every rule's
    # hot path (an attribute, not a property)
    name: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.column.name if self.column else None)

    @property
    def name_text(self) -> str:
        """The header's name without emphasis and footnote marks (what the table writes)."""
        return header_parts(self.text)[1]


@dataclass(slots=True)
class Schema:
    kind: str
    columns: dict[str, Column]
    _lookup: dict[str, tuple[Column, How, float, str | None]] = field(default_factory=dict)
    _keys: dict[str, str] = field(default_factory=dict)  # header text -> header_key, memoised
    _headers: dict[tuple[str, ...], list[Resolved]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lookup = {}
        self._keys = {}
        self._headers = {}
        for c in self.columns.values():
            self._add(c)

    def _add(self, c: Column) -> None:
        # Unit variants and aliases never shadow a canonical name.
        for unit, scale in c.unit_variants:
            self._lookup.setdefault(_guide_key(unit), (c, "unit", scale, unit))
        for a in c.aliases:
            self._lookup.setdefault(_guide_key(a), (c, "alias", 1.0, None))
        for a in c.translations:
            self._lookup.setdefault(_guide_key(a), (c, "translation", 1.0, None))
        self._lookup[_guide_key(c.name)] = (c, "exact", 1.0, None)

    def resolve(self, index: int, text: str) -> Resolved:
        key = self._keys.get(text)
        if key is None:
            if len(self._keys) >= _MEMO_SIZE:  # a Schema lives for the run: bounded
                self._keys.clear()
            key = self._keys[text] = header_key(text)
        hit = self._lookup.get(key)
        if hit is None:
            return Resolved(index, text, None, "unknown")
        col, how, scale, unit = hit
        if how == "exact" and header_parts(text)[1].strip() != col.name:
            how = "case"
        return Resolved(index, text, col, how, scale, unit)

    def resolve_header(self, texts: list[str]) -> list[Resolved]:
        """What each header cell means (memoised: tables repeat their headers)."""
        key = tuple(texts)
        found = self._headers.get(key)
        if found is None:
            if len(self._headers) >= _MEMO_SIZE:  # a Schema lives for the run: bounded
                self._headers.clear()
            found = self._headers[key] = [self.resolve(i, t) for i, t in enumerate(texts)]
        return list(found)

    def with_columns(self, extra: list[Column], aliases: dict[str, list[str]]) -> Schema:
        cols = dict(self.columns)
        for c in extra:
            cols[c.name] = c
        for name, al in aliases.items():
            base = cols.get(name) or Column(name)
            cols[name] = replace(base, aliases=base.aliases + tuple(al))
        return Schema(self.kind, cols)


@dataclass(frozen=True, slots=True)
class Embedded:
    """A guide column named by a unit at the end of a longer header (columns.yaml `embedded`)."""

    column: str
    unit: str
    scale: float
    inverse: bool
    pattern: re.Pattern[str]


@dataclass(slots=True)
class Spec:
    requirements: Schema
    performance: Schema
    order: dict[str, tuple[str, ...]]
    signature: frozenset[str]
    measured: frozenset[str]
    inference_columns: frozenset[str]
    inference_headings: re.Pattern[str]
    mode_headers: frozenset[str] = frozenset()  # a column naming each row's mode
    training_headings: re.Pattern[str] = re.compile(r"(?!)")
    requirements_headings: re.Pattern[str] = re.compile(r"(?!)")
    ambiguous: frozenset[str] = frozenset()  # aliases that alone do not make a performance table
    rate_units: tuple[tuple[str, re.Pattern[str]], ...] = ()  # (tail slot, header pattern)
    timing_words: re.Pattern[str] = re.compile(r"(?!)")
    # (tail slot, header pattern): an unknown timing column that may be that slot
    maybe_tail: tuple[tuple[str, re.Pattern[str]], ...] = ()
    metric_neighbours: frozenset[str] = frozenset()
    # a guide column inside a longer header: (column, unit, scale, inverse, pattern)
    embedded: tuple[Embedded, ...] = ()
    not_embedded: re.Pattern[str] = re.compile(r"(?!)")
    not_images_rate: re.Pattern[str] = re.compile(r"(?!)")
    cards_in_header: re.Pattern[str] = re.compile(r"(?!)")
    card_words: tuple[tuple[str, int], ...] = ()  # (`单卡`, 1): a card count in words
    machine_column: re.Pattern[str] = re.compile(r"(?!)")
    cards_in_machine: re.Pattern[str] = re.compile(r"(?!)")
    not_timing: re.Pattern[str] = re.compile(r"(?!)")
    not_images: re.Pattern[str] = re.compile(r"(?!)")
    # a Requirements table's first column naming the machine: its header, or each of its cells
    device_header: re.Pattern[str] = re.compile(r"(?!)")
    device_value: re.Pattern[str] = re.compile(r"(?!)")
    other_hardware: re.Pattern[str] = re.compile(r"(?!)")
    # what the methods below derive from the fields, memoised (rules ask per table); not a
    # field a copy (``with_config``) shares, and bounded (column orders come from READMEs)
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def requirements_order(self) -> tuple[str, ...]:
        found = self._memo.get("requirements_order")
        if found is None:
            found = self._memo["requirements_order"] = tuple(self.requirements.columns)
        return found

    def required(self, inference: bool) -> list[str]:
        key = ("required", inference)
        found = self._memo.get(key)
        if found is None:
            want = {"all", "inference"} if inference else {"all"}
            found = tuple(c.name for c in self.performance.columns.values() if c.required in want)
            self._memo[key] = found
        return list(found)

    def expected_order(self, names: list[str | None], inference: bool) -> list[int]:
        """Indices of ``names`` (canonical names, None = unknown) in the guide's order.

        Head columns first, then the optional ones (unknown included) in their present order,
        then the training or inference tail, then recipe and weight.
        """
        key = ("expected_order", tuple(names), inference)
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) > 4096:
                self._memo.clear()
            found = self._memo[key] = tuple(self._expected_order(names, inference))
        return list(found)

    def _expected_order(self, names: list[str | None], inference: bool) -> list[int]:
        head = self.order["head"]
        tail = self.order["inference_tail" if inference else "training_tail"]
        last = self.order["last"]

        # A first column perfbot does not understand, in a table without `model name`, names
        # the rows (`Model Name<sup>1</sup>`, `Method`): it stays first, never moved among the
        # optional columns.
        anchor = bool(names) and names[0] is None and "model name" not in names

        def key(i: int) -> tuple[int, int]:
            n = names[i]
            if i == 0 and anchor:
                return 0, -1
            if n in head:
                return 0, head.index(n)
            if n in tail:
                return 2, tail.index(n)
            if n in last:
                return 3, last.index(n)
            return 1, i

        return sorted(range(len(names)), key=key)

    def with_config(self, extra: list[Column], aliases: dict[str, list[str]]) -> Spec:
        if not extra and not aliases:
            return self
        req_aliases = {k: v for k, v in aliases.items() if k in self.requirements.columns}
        perf_aliases = {k: v for k, v in aliases.items() if k not in self.requirements.columns}
        return replace(
            self,
            requirements=self.requirements.with_columns([], req_aliases),
            performance=self.performance.with_columns(extra, perf_aliases),
        )


def _columns(items: list[dict]) -> dict[str, Column]:
    out: dict[str, Column] = {}
    for it in items:
        out[it["name"]] = Column(
            name=it["name"],
            aliases=tuple(it.get("aliases", ())),
            form=it.get("form", "any"),
            required=it.get("required"),
            unit_variants=tuple((it.get("unit_variants") or {}).items()),
            translations=tuple(it.get("translations", ())),
            modes=tuple(it.get("modes", ())),
            since=tuple(int(x) for x in str(it.get("since", "")).split(".") if x),
        )
    return out


def load_yaml(name: str) -> object:
    """The guide's data file ``name`` parsed from its YAML (what :func:`data.load` falls back to;
    the check path reads the JSON twin, see :mod:`perfbot.spec.data`)."""
    return _data.parse_yaml(_data._read(name))


class _LazyPattern:
    """One of the guide's regular expressions, compiled on first use: a README needs few of
    them (the median one of the corpus only ``other_hardware``; the nine cost ~2 ms to
    compile). Answers as the compiled ``re.Pattern`` does."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def _re(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled

    def search(self, string: str, *pos: int) -> re.Match[str] | None:
        return self._re().search(string, *pos)

    def match(self, string: str, *pos: int) -> re.Match[str] | None:
        return self._re().match(string, *pos)

    def fullmatch(self, string: str, *pos: int) -> re.Match[str] | None:
        return self._re().fullmatch(string, *pos)

    def __getattr__(self, name: str) -> object:
        return getattr(self._re(), name)

    def __repr__(self) -> str:
        return repr(self._re())


def _lazy(pattern: str) -> re.Pattern[str]:
    return _LazyPattern(pattern)  # type: ignore[return-value]


def _embedded(e: dict) -> Embedded:
    scale, inverse = float(e.get("scale", 1)), bool(e.get("inverse"))
    return Embedded(e["column"], e["unit"], scale, inverse, _lazy(e["pattern"]))


@cache
def builtin_spec() -> Spec:
    data = _data.load("columns.yaml")
    assert isinstance(data, dict)
    perf = data["performance"]
    return Spec(
        requirements=Schema("requirements", _columns(data["requirements"]["columns"])),
        performance=Schema("performance", _columns(perf["columns"])),
        order={k: tuple(v) for k, v in perf["order"].items()},
        signature=frozenset(perf["signature"]),
        measured=frozenset(perf["measured"]),
        inference_columns=frozenset(perf["inference_columns"]),
        inference_headings=_lazy(perf["inference_headings"]),
        mode_headers=frozenset(perf.get("mode_headers", ())),
        training_headings=_lazy(perf["training_headings"]),
        requirements_headings=_lazy(perf["requirements_headings"]),
        ambiguous=frozenset(header_key(a) for a in perf.get("ambiguous", ())),
        rate_units=tuple((k, _lazy(v)) for k, v in perf.get("rate_units", {}).items()),
        timing_words=_lazy(perf["timing_words"]),
        maybe_tail=tuple((k, _lazy(v)) for k, v in perf.get("maybe_tail", {}).items()),
        metric_neighbours=frozenset(perf.get("metric_neighbours", ())),
        embedded=tuple(_embedded(e) for e in perf.get("embedded", ())),
        not_embedded=_lazy(perf.get("not_embedded", "(?!)")),
        not_images_rate=_lazy(perf.get("not_images_rate", "(?!)")),
        cards_in_header=_lazy(perf.get("cards_in_header", "(?!)")),
        machine_column=_lazy(perf.get("machine_column", "(?!)")),
        cards_in_machine=_lazy(perf.get("cards_in_machine", "(?!)")),
        card_words=tuple((k.lower(), int(v)) for k, v in perf.get("card_words", {}).items()),
        not_timing=_lazy(perf.get("not_timing", "(?!)")),
        not_images=_lazy(perf.get("not_images", "(?!)")),
        device_header=_lazy(data.get("device_column", {}).get("header", "(?!)")),
        device_value=_lazy(data.get("device_column", {}).get("value", "(?!)")),
        other_hardware=_lazy(data["other_hardware"]),
    )
