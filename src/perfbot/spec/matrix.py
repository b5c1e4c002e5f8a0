"""The MindSpore <-> driver / firmware / CANN compatibility matrix (SPEC §1).

``Matrix.builtin()`` is the matrix shipped in ``perfbot/spec/matrix.yaml``;
``Matrix.merged(rows)`` adds a repository's own rows (``matrix:`` in ``.perfbot.yml``) on top of
it. ``check_row`` checks one Requirements row: a CANN that does not belong to the row's MindSpore
is an ``error`` (CANN follows the MindSpore release), a driver or firmware other than the matrix's
is a ``warning`` (READMEs often name the newer HDK of the test machine), and so is a MindSpore the
matrix does not know.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any, Literal

from perfbot.spec.versions import (
    Version,
    mindspore_versions,
    normalize_cann,
    normalize_driver,
    normalize_firmware,
    normalize_mindspore,
    parse_version,
    same_cann,
    same_driver,
    same_firmware,
)

__all__ = ["Matrix", "MatrixIssue", "MatrixRow", "MatrixRowError"]

Column = Literal["mindspore", "driver", "firmware", "cann"]
Level = Literal["error", "warning"]
COLUMNS: tuple[Column, ...] = ("mindspore", "driver", "firmware", "cann")

# Plain dataclasses validated by hand, not pydantic models: importing pydantic and building model
# classes cost ~150 ms of every one-README check (issue 11). The validation below says what
# pydantic said (same locations, same messages, same order), so `.perfbot.yml` errors read alike.
_ROW_FIELDS = (*COLUMNS, "sources", "origin")
# optional fields, in a dump only when set (a row without them dumps as it always did)
_OPTIONAL_FIELDS = ("cann_accepted", "notes")
_NOT_TEXT = "Value error, must be a string (quote version numbers in YAML)"
_LISTS = (list, tuple, set, frozenset, deque, type({}.keys()), type({}.values()), Iterator)


class MatrixRowError(ValueError):
    """A matrix row that is not valid; ``errors()`` lists ``{"loc": (...), "msg": ...}``."""

    def __init__(self, errors: list[tuple[tuple[Any, ...], str]]) -> None:
        self._errors = [{"loc": loc, "msg": msg} for loc, msg in errors]
        super().__init__(_describe(self._errors))

    def errors(self) -> list[dict[str, Any]]:
        return [dict(e) for e in self._errors]


def _describe(errors: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'row'}: {err['msg']}" for err in errors
    )


def _as_str(value: Any) -> str | None:
    """``value`` as pydantic's lax ``str`` takes it, or None when it is not one."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode()
        except UnicodeDecodeError:
            return None
    return None


def _str_error(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "Input should be a valid string, unable to parse raw data as a unicode string"
    return "Input should be a valid string"


def _validate_row(data: Any) -> dict[str, Any]:
    """The fields of a :class:`MatrixRow` from ``data``, or :class:`MatrixRowError`."""
    if not isinstance(data, Mapping):
        raise MatrixRowError([((), "Input should be a valid dictionary or instance of MatrixRow")])
    errors: list[tuple[tuple[Any, ...], str]] = []
    out: dict[str, Any] = {}
    for name in COLUMNS:
        if name not in data:
            if name == "mindspore":
                errors.append(((name,), "Field required"))
            out[name] = None
            continue
        v = data[name]
        if v is None:
            if name == "mindspore":
                errors.append(((name,), "Input should be a valid string"))
            out[name] = None
        elif isinstance(v, str):
            out[name] = v.strip()
        else:
            # YAML reads `mindspore: 2.10` as the float 2.1: refuse rather than guess.
            errors.append(((name,), _NOT_TEXT))
    sources = data.get("sources", [])
    if "sources" in data and not isinstance(sources, _LISTS):
        errors.append((("sources",), "Input should be a valid list"))
    else:
        out["sources"] = []
        for i, item in enumerate(sources):
            text = _as_str(item)
            if text is None:
                errors.append((("sources", i), _str_error(item)))
            else:
                out["sources"].append(text)
    accepted = data.get("cann_accepted")
    out["cann_accepted"] = None
    if accepted is not None:
        if not isinstance(accepted, _LISTS) or isinstance(accepted, str):
            errors.append((("cann_accepted",), "Input should be a valid list"))
        else:
            items = []
            for i, item in enumerate(accepted):
                if not isinstance(item, str) or _accepted_spec(item) is None:
                    errors.append(
                        (("cann_accepted", i), "Value error, must be a CANN version or major.minor")
                    )
                else:
                    items.append(item.strip())
            out["cann_accepted"] = tuple(items)
    notes = data.get("notes")
    out["notes"] = {}
    if notes is not None:
        if not isinstance(notes, Mapping):
            errors.append((("notes",), "Input should be a valid dictionary"))
        else:
            for k, text in notes.items():
                if k not in COLUMNS or not isinstance(text, str):
                    errors.append((("notes", k), "Value error, a column name and a text"))
                else:
                    out["notes"][k] = text
    origin = _as_str(data["origin"]) if "origin" in data else "builtin"
    if origin is None:
        errors.append((("origin",), _str_error(data["origin"])))
    out["origin"] = origin
    for k in data:
        if not isinstance(k, str):
            errors.append(((k,), "Keys should be strings"))
        elif k not in _ROW_FIELDS and k not in _OPTIONAL_FIELDS:
            errors.append(((k,), "Extra inputs are not permitted"))
    if errors:
        raise MatrixRowError(errors)
    ms = normalize_mindspore(out["mindspore"])
    if ms is None or ms.partial:
        raise MatrixRowError(
            [((), f"Value error, mindspore {out['mindspore']!r} is not a full MindSpore version")]
        )
    for kind in ("driver", "firmware", "cann"):
        value = out[kind]
        if value is not None and parse_version(kind, value) is None:
            raise MatrixRowError([((), f"Value error, {kind} {value!r} is not a {kind} version")])
    return out


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class MatrixRow:
    """One valid combination. ``None`` = unknown (that column is then not checked).

    ``MatrixRow(**fields)`` and ``MatrixRow.model_validate(mapping)`` validate (a
    :class:`MatrixRowError`, a ``ValueError``, otherwise); ``model_dump``/``model_copy`` as the
    pydantic model this was.
    """

    mindspore: str
    driver: str | None
    firmware: str | None
    cann: str | None
    sources: list[str]
    origin: str
    #: what the MindSpore release accepts (CANN major.minor like ``8.2``, a CANN release, or CANN's
    #: internal number like ``7.7``); None = what its wheel says (matrix_wheels.yaml), if read
    cann_accepted: tuple[str, ...] | None
    #: per column: where the value comes from, or why it is null (missing/conflicting sources)
    notes: dict[str, str]

    def __init__(self, **data: Any) -> None:
        for name, value in _validate_row(data).items():
            object.__setattr__(self, name, value)

    @classmethod
    def model_validate(cls, data: Any) -> MatrixRow:
        if isinstance(data, cls):
            return data
        row = object.__new__(cls)
        for name, value in _validate_row(data).items():
            object.__setattr__(row, name, value)
        return row

    def __str__(self) -> str:
        return " ".join(f"{name}={getattr(self, name)!r}" for name in _ROW_FIELDS)

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in _ROW_FIELDS}
        out["sources"] = list(self.sources)
        if self.cann_accepted is not None:
            out["cann_accepted"] = list(self.cann_accepted)
        if self.notes:
            out["notes"] = dict(self.notes)
        if exclude_none:
            out = {k: v for k, v in out.items() if v is not None}
        return out

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> MatrixRow:
        """A copy with ``update``'s fields replaced, not validated again (as pydantic's)."""
        new = object.__new__(MatrixRow)
        for name in (*_ROW_FIELDS, *_OPTIONAL_FIELDS):
            object.__setattr__(new, name, getattr(self, name))
        for name, value in (update or {}).items():
            object.__setattr__(new, name, value)
        return new

    @property
    def version(self) -> Version:
        """The parsed MindSpore version of this row."""
        v = normalize_mindspore(self.mindspore)
        assert v is not None  # checked by the validator
        return v

    def values(self) -> dict[str, str | None]:
        """The four version columns, in table order."""
        return {c: getattr(self, c) for c in COLUMNS}


@dataclasses.dataclass(frozen=True, slots=True)
class MatrixIssue:
    """One disagreement between a Requirements row and the matrix.

    ``field`` is the column; ``found`` the cell text; ``expected`` the matrix's spelling
    (``None`` for ``unknown_mindspore``); ``code`` one of ``unknown_mindspore``,
    ``cann_mismatch`` (error: a CANN the release does not accept), ``cann_accepted`` (warning: a
    CANN the release accepts, not the recommended one), ``driver_mismatch``,
    ``firmware_mismatch``, ``not_firmware`` (a driver or CANN number in the firmware cell);
    ``mindspore`` the matrix row's MindSpore the check was made against (``None`` when no row was
    found); ``detail`` a short explanation; ``accepted`` the CANN the release accepts, as text
    (``8.2–9.1 (8.2, 8.3, 8.5, 9.0, 9.1)``; empty when no wheel was read); ``compatible`` the HDKs
    Ascend pairs with ``cann`` (the CANN a driver/firmware was judged against), as text.
    """

    field: Column
    found: str | None
    expected: str | None
    level: Level
    code: str = ""
    mindspore: str | None = None
    detail: str = ""
    accepted: str = ""
    compatible: str = ""
    cann: str = ""

    @property
    def message(self) -> str:
        if self.code == "unknown_mindspore":
            return self.detail or f"MindSpore {self.found!r} is not in the compatibility matrix"
        if self.code == "not_firmware":
            return f"firmware `{self.found}` is not a firmware version: {self.detail}"
        if self.code == "cann_accepted":
            return (
                f"CANN `{self.found}` is accepted by MindSpore {self.mindspore} (it accepts CANN "
                f"{self.accepted}) but is not the recommended one (matrix: {self.expected})"
            )
        what = {"cann": "CANN", "driver": "driver", "firmware": "firmware"}.get(
            self.field, self.field
        )
        verb = "does not belong to" if self.level == "error" else "differs from the matrix for"
        extra = ""
        if self.code == "cann_mismatch" and self.accepted:
            extra = f"; it accepts CANN {self.accepted}"
        elif self.compatible:
            extra = f"; HDKs known to work with CANN {self.cann}: {self.compatible}"
        return (
            f"{what} `{self.found}` {verb} MindSpore {self.mindspore} "
            f"(matrix: {self.expected}{extra})"
        )


# -- what a release accepts, what a CANN pairs with ---------------------------------------------

_CHECK_FILE = "mindspore/run_check/_check_version.py"
_SERIES = re.compile(r"^\s*([0-9]{1,4})\.([0-9]{1,4})\s*$")


@dataclasses.dataclass(frozen=True, slots=True)
class _Accepts:
    """One accepted CANN: a ``series`` (major, minor: every ``8.5.x``) or a ``release`` (and its
    patch releases); ``label`` its public name (``8.5``, ``8.1.RC1``); neither = an internal
    number no public CANN release is known to carry (accepts nothing)."""

    label: str
    series: tuple[int, int] | None = None
    release: Version | None = None
    exact: bool = False  # that release only, not its patch releases (8.5.2 is not 8.5.0)

    def accepts(self, v: Version) -> bool:
        if self.series is not None:
            return v.key[:2] == self.series
        if self.release is None:
            return False
        return v.base == self.release.base if self.exact else same_release(v, self.release)


def _accepted_spec(text: str) -> _Accepts | None:
    """``8.2`` (a series; an internal number such as ``7.7`` maps to its CANN release), or a CANN
    release (``8.1.RC1``); None when it is neither."""
    m = _SERIES.match(text)
    if m:
        number = f"{int(m[1])}.{int(m[2])}"
        internal = _cann_facts().internal
        if number in internal:
            name = internal[number]
            if name is None:
                return _Accepts(f"{number} (internal; no public name)")
            rel = normalize_cann(name)
            return _Accepts(name, release=rel) if rel is not None else None
        return _Accepts(number, series=(int(m[1]), int(m[2])))
    rel = normalize_cann(text)
    return _Accepts(rel.canonical, release=rel) if rel is not None else None


def same_release(a: Version, b: Version) -> bool:
    """Same CANN release, or a patch release of it: ``8.5.1`` for ``8.5.0`` (both GA, same
    major.minor), ``8.0.RC2.beta1`` for ``8.0.RC2`` (as :func:`same_cann`)."""
    if a.base == b.base:
        return True
    return a.key[2] == 1 and b.key[2] == 1 and a.key[:2] == b.key[:2]


_DRIVER_TOP = (9999, 9999, 9, 9999)


def _driver_bound(text: str, high: bool) -> tuple[int, ...] | None:
    text = text.strip()
    if text.upper().endswith(".X"):
        m = _SERIES.match(text[:-2])
        if not m:
            return None
        return (int(m[1]), int(m[2]), *(_DRIVER_TOP[2:] if high else ()))
    v = normalize_driver(text)
    return None if v is None else v.key[:4]


@dataclasses.dataclass(frozen=True, slots=True)
class _DriverSpec:
    """HDK releases: ``25.5.X``, ``25.0.X-26.1.0`` (a range), ``23.0.3`` (one release)."""

    text: str
    low: tuple[int, ...]
    high: tuple[int, ...]

    def matches(self, v: Version) -> bool:
        return self.low <= v.key[:4] <= self.high


def _driver_spec(text: str) -> _DriverSpec | None:
    left, sep, right = text.partition("-")
    if sep:
        lo, hi = _driver_bound(left, False), _driver_bound(right, True)
    else:
        lo, hi = _driver_bound(text, False), _driver_bound(text, True)
    if lo is None or hi is None:
        return None
    return _DriverSpec(text.strip().replace("-", "–"), lo, hi)


@dataclasses.dataclass(frozen=True, slots=True)
class CannFacts:
    """matrix_cann.yaml: ``internal`` number -> CANN release (or None); ``hdk``: (accepted CANN,
    compatible HDK specs, sources); ``not_firmware``: firmware-looking value -> what it is."""

    internal: dict[str, str | None]
    hdk: tuple[tuple[_Accepts, tuple[_DriverSpec, ...], tuple[str, ...]], ...]
    not_firmware: dict[str, str]
    raw: dict[str, Any]


@cache
def _cann_facts() -> CannFacts:
    from perfbot.spec import data

    raw = data.load("matrix_cann.yaml") or {}
    internal = {str(e["number"]): e.get("cann") for e in raw.get("internal", [])}
    hdk = []
    for e in raw.get("hdk", []):
        m = _SERIES.match(e["cann"])
        acc = (
            _Accepts(e["cann"], series=(int(m[1]), int(m[2])))
            if m
            else _Accepts(e["cann"], release=normalize_cann(e["cann"]), exact=True)
        )
        specs = tuple(sp for sp in (_driver_spec(d) for d in e.get("drivers", [])) if sp)
        hdk.append((acc, specs, tuple(e.get("sources", []))))
    nf = {str(e["value"]): str(e["is"]) for e in raw.get("not_firmware", [])}
    return CannFacts(internal, tuple(hdk), nf, raw)


@cache
def _wheels() -> dict[str, dict[str, Any]]:
    """matrix_wheels.yaml by MindSpore version (canonical): what each wheel accepts."""
    from perfbot.spec import data

    out = {}
    for e in data.load("matrix_wheels.yaml") or []:
        v = normalize_mindspore(e.get("mindspore"))
        if v is not None:
            out[v.canonical] = e
    return out


def wheel_facts(mindspore: str | Version) -> dict[str, Any] | None:
    """What the wheel of ``mindspore`` says (``accepted``, ``built_with``, ``wheel``, ...)."""
    v = mindspore if isinstance(mindspore, Version) else normalize_mindspore(mindspore)
    return None if v is None else _wheels().get(v.canonical)


def _range_text(items: list[_Accepts]) -> str:
    known = [a for a in items if a.series is not None or a.release is not None]
    names = [a.label for a in known]
    text = ", ".join(names)
    if len(names) >= 3 and all(a.series is not None for a in known):
        text = f"{names[0]}–{names[-1]} ({text})"
    unknown = [a.label for a in items if a not in known]
    return "; ".join([text, *unknown]) if text else "; ".join(unknown)


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class Matrix:
    """The rows, sorted by MindSpore version; one row per MindSpore version."""

    entries: tuple[MatrixRow, ...]
    #: Config rows ``merged`` could not use (e.g. ``mindspore: foo``), one message each.
    errors: tuple[str, ...]
    _by_version: dict[str, MatrixRow] = dataclasses.field(repr=False, compare=False)
    # what accepted / compatible_drivers derived (a Matrix never changes)
    _memo: dict[Any, Any] = dataclasses.field(repr=False, compare=False)

    def __init__(
        self,
        entries: Iterable[MatrixRow | Mapping[str, Any]] = (),
        errors: Iterable[str] = (),
    ) -> None:
        rows = tuple(MatrixRow.model_validate(r) for r in entries)
        by_version: dict[str, MatrixRow] = {}
        for row in rows:
            key = row.version.canonical
            if key in by_version:
                raise ValueError(f"two matrix rows for mindspore {key}")
            by_version[key] = row
        object.__setattr__(self, "entries", rows)
        object.__setattr__(self, "errors", tuple(errors))
        object.__setattr__(self, "_by_version", by_version)
        object.__setattr__(self, "_memo", {})

    @classmethod
    def model_validate(cls, data: Mapping[str, Any]) -> Matrix:
        return cls(entries=data.get("entries", ()), errors=data.get("errors", ()))

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Matrix:
        fields = {"entries": self.entries, "errors": self.errors, **(update or {})}
        return Matrix(**fields)

    def model_dump(self) -> dict[str, Any]:
        return {"entries": [r.model_dump() for r in self.entries], "errors": self.errors}

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Iterable[MatrixRow | Mapping[str, Any]]) -> Matrix:
        """A matrix of exactly these rows, sorted; a later row for a version replaces an earlier."""
        by_version: dict[str, MatrixRow] = {}
        for r in rows:
            row = r if isinstance(r, MatrixRow) else MatrixRow.model_validate(dict(r))
            by_version[row.version.canonical] = row
        ordered = sorted(by_version.values(), key=lambda row: row.version.key)
        return cls(entries=tuple(ordered))

    @classmethod
    def builtin(cls) -> Matrix:
        """The matrix shipped in ``perfbot/spec/matrix.yaml`` (loaded once)."""
        return _builtin()

    @classmethod
    def merged(
        cls,
        extra_rows: Iterable[MatrixRow | Mapping[str, Any]] | None,
        base: Matrix | None = None,
    ) -> Matrix:
        """``base`` (default: the builtin matrix) plus a repository's rows.

        A config row replaces the base row with the same (normalised) MindSpore version, or adds a
        new one; its ``origin`` becomes ``"config"``. Never raises: a row that is not a valid
        :class:`MatrixRow` is left out and described in ``errors``. Works called on the class
        (``Matrix.merged(rows)``) or on the builtin matrix (``Matrix.builtin().merged(rows)``);
        pass ``base=`` to merge onto another matrix.
        """
        base = base if base is not None else cls.builtin()
        extra: list[MatrixRow] = []
        errors = list(base.errors)
        for i, r in enumerate(extra_rows or ()):
            try:
                if isinstance(r, MatrixRow):
                    extra.append(r.model_copy(update={"origin": "config"}))
                else:
                    extra.append(MatrixRow.model_validate({**dict(r), "origin": "config"}))
            except (TypeError, ValueError) as e:
                errors.append(f"matrix row {i + 1}: {_short_error(e)}")
        if not extra and len(errors) == len(base.errors):
            return base
        merged = cls.from_rows([*base.entries, *extra])
        return merged.model_copy(update={"errors": tuple(errors)}) if errors else merged

    # -- queries ------------------------------------------------------------------------------

    def rows(self) -> list[MatrixRow]:
        """All rows, oldest MindSpore first (for display: ``perfbot matrix``)."""
        return list(self.entries)

    def candidates(self, mindspore: str | Version) -> list[MatrixRow]:
        """Rows one MindSpore version names: the exact row (a post-release without a row of its
        own: its release's row), or for ``2.5`` the 2.5.x rows as one when they agree.

        A major.minor names the final releases of that series (pre-releases only when it has
        none, post-releases only without their release); rows recommending the same driver,
        firmware and CANN and accepting the same CANN count as one (the oldest).
        """
        v = mindspore if isinstance(mindspore, Version) else normalize_mindspore(mindspore)
        if v is None or v.kind != "mindspore":
            return []
        if not v.partial:
            row = self._by_version.get(v.canonical) or self._by_version.get(v.base)
            return [row] if row is not None else []
        rows = [row for row in self.entries if row.version.key[:2] == v.key[:2]]
        finals = [r for r in rows if r.version.key[3] == 3]
        rows = finals or rows
        rows = [r for r in rows if r.version.key[5] < 0 or r.version.base not in self._by_version]
        distinct: list[MatrixRow] = []
        for r in rows:
            if not any(self._agree(r, d) for d in distinct):
                distinct.append(r)
        return distinct

    def _agree(self, a: MatrixRow, b: MatrixRow) -> bool:
        same = {"driver": same_driver, "firmware": same_firmware, "cann": same_cann}
        for col, eq in same.items():
            x, y = getattr(a, col), getattr(b, col)
            if (x is None) != (y is None) or (x is not None and not eq(x, y)):
                return False
        return [s.label for s in self.accepted(a)] == [s.label for s in self.accepted(b)]

    def lookup(self, mindspore: str | Version) -> MatrixRow | None:
        """The row of one MindSpore version; ``2.5`` matches only if exactly one 2.5.x row is."""
        found = self.candidates(mindspore)
        return found[0] if len(found) == 1 else None

    def canonical_row(self, mindspore: str | Version) -> dict[str, str | None]:
        """The matrix's own spellings of the row of ``mindspore`` (what a fix writes), or ``{}``."""
        row = self.lookup(mindspore)
        return row.values() if row is not None else {}

    # -- what a release accepts and what a CANN pairs with ---------------------------------------

    def accepted(self, row: MatrixRow) -> list[_Accepts]:
        """The CANN ``row``'s release accepts beyond its recommended one: the row's own
        ``cann_accepted``, else its wheel's (matrix_wheels.yaml); ``[]`` when none is known."""
        key = ("accepted", row.version.canonical, row.cann_accepted)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._accepted(row)
        return list(found)

    def _accepted(self, row: MatrixRow) -> list[_Accepts]:
        items = row.cann_accepted
        if items is None:
            wheel = _wheels().get(row.version.canonical)
            items = tuple(wheel.get("accepted") or ()) if wheel else ()
        return [a for a in (_accepted_spec(x) for x in items) if a is not None]

    def accepted_text(self, row: MatrixRow) -> str:
        """The CANN ``row``'s release accepts, as text (``8.2–9.1 (8.2, 8.3, 8.5, 9.0, 9.1)``);
        empty when no wheel was read for it."""
        return _range_text(self.accepted(row))

    def describe(self, row: MatrixRow) -> dict[str, Any]:
        """``row`` for ``perfbot matrix --format json``: its fields (sources, notes), what its
        release accepts (``accepted``: public CANN names; ``accepted_from``: where that comes
        from) and what its wheel says (``wheel``: None when none was read)."""
        out = row.model_dump()
        out["accepted"] = [a.label for a in self.accepted(row)]
        wheel = _wheels().get(row.version.canonical)
        if row.cann_accepted is not None:
            out["accepted_from"] = "matrix row (cann_accepted)"
        elif wheel:
            out["accepted_from"] = (
                f"pypi:mindspore=={wheel['mindspore']} {_CHECK_FILE} (AscendEnvChecker.version)"
            )
        else:
            out["accepted_from"] = None
        out["wheel"] = dict(wheel) if wheel else None
        return out

    @staticmethod
    def cann_facts() -> dict[str, Any]:
        """matrix_cann.yaml as data (with its sources), for ``perfbot matrix --format json``."""
        return dict(_cann_facts().raw)

    def compatible_drivers(self, cann: Version) -> list[_DriverSpec]:
        """The HDKs a source pairs with ``cann``: Ascend's published compatibility
        (matrix_cann.yaml) and the drivers of the matrix rows recommending that CANN."""
        key = ("drivers", cann.canonical)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._compatible_drivers(cann)
        return list(found)

    def _compatible_drivers(self, cann: Version) -> list[_DriverSpec]:
        specs: list[_DriverSpec] = []
        for acc, drivers, _src in _cann_facts().hdk:
            if acc.accepts(cann):
                specs.extend(drivers)
        for row in self.entries:
            if row.driver is None or row.cann is None:
                continue
            rc = normalize_cann(row.cann)
            if rc is not None and same_release(cann, rc):
                rd = normalize_driver(row.driver)
                if rd is not None and any(sp.matches(rd) for sp in specs):
                    continue  # already in a range
                sp = _driver_spec(row.driver)
                if sp is not None and sp not in specs:
                    specs.append(sp)
        return specs

    def firmware_of(self, driver: Version) -> set[str]:
        """The firmware the matrix rows pair with ``driver`` (canonical spellings)."""
        out = set()
        for row in self.entries:
            if row.driver and row.firmware and same_driver(driver, row.driver):
                fw = normalize_firmware(row.firmware)
                if fw is not None:
                    out.add(fw.base)
        return out

    def check_row(
        self,
        mindspore: str | None,
        driver: str | None,
        firmware: str | None,
        cann: str | None,
    ) -> list[MatrixIssue]:
        """Check one Requirements row against the matrix. Never raises.

        The MindSpore cell may name several versions (``2.3.0/2.3.1``) or a range
        (``2.2.10~2.2.12``): each version (each endpoint) is checked on its own. Empty
        driver/firmware/CANN cells are not checked here (an empty cell is another rule's business),
        nor are columns the matrix has no value for.
        """
        versions = mindspore_versions(mindspore) if mindspore else []
        if not versions:
            if not (mindspore or "").strip():
                return []
            return [
                MatrixIssue(
                    "mindspore",
                    mindspore,
                    None,
                    "warning",
                    "unknown_mindspore",
                    detail=f"{mindspore.strip()!r} is not a MindSpore version",
                )
            ]
        issues: list[MatrixIssue] = []
        seen: set[tuple[str, str | None, str | None, str]] = set()
        for v in versions:
            found = self.candidates(v)
            if len(found) != 1:
                if found:
                    names = ", ".join(r.mindspore for r in found)
                    detail = f"MindSpore {v.canonical} matches several matrix rows ({names})"
                else:
                    detail = f"MindSpore {v.canonical} is not in the compatibility matrix"
                issues.append(
                    MatrixIssue(
                        "mindspore", v.text, None, "warning", "unknown_mindspore", detail=detail
                    )
                )
                continue
            for issue in self._check_against(found[0], driver, firmware, cann):
                k = (issue.field, issue.found, issue.expected, issue.level)
                if k not in seen:
                    seen.add(k)
                    issues.append(issue)
        return issues

    def _check_against(
        self, row: MatrixRow, driver: str | None, firmware: str | None, cann: str | None
    ) -> list[MatrixIssue]:
        issues: list[MatrixIssue] = []
        rec_cann = normalize_cann(row.cann) if row.cann else None
        ref = rec_cann  # the CANN the HDK is judged against
        cann_text = cann.strip() if isinstance(cann, str) else ""
        if cann_text and rec_cann is not None:
            found = normalize_cann(cann_text)
            accepted = self.accepted(row)
            if found is not None and same_release(found, rec_cann):
                ref = found
            elif found is not None and any(a.accepts(found) for a in accepted):
                ref = found
                issues.append(
                    MatrixIssue(
                        "cann",
                        cann_text,
                        row.cann,
                        "warning",
                        "cann_accepted",
                        row.mindspore,
                        accepted=_range_text(accepted),
                    )
                )
            else:
                issues.append(
                    MatrixIssue(
                        "cann",
                        cann_text,
                        row.cann,
                        "error",
                        "cann_mismatch",
                        row.mindspore,
                        accepted=_range_text(accepted),
                    )
                )
        # a repository's row: null = that column is not checked (docs/matrix.md); a built-in
        # row's null = no source gives the value: what else is known is checked
        own = row.origin == "config"
        specs = self.compatible_drivers(ref) if ref is not None and not own else []
        compat = ", ".join(sp.text for sp in specs)
        if row.driver is not None and compat == row.driver:
            compat = ""  # nothing beyond the row's own driver
        ref_text = ref.canonical if ref is not None else ""
        d_text = driver.strip() if isinstance(driver, str) else ""
        d = normalize_driver(d_text) if d_text else None
        d_ok = d is not None and (
            (row.driver is not None and same_driver(d, row.driver))
            or any(sp.matches(d) for sp in specs)
        )
        if d_text and not d_ok and (row.driver is not None or specs):
            issues.append(
                MatrixIssue(
                    "driver",
                    d_text,
                    row.driver or compat,
                    "warning",
                    "driver_mismatch",
                    row.mindspore,
                    compatible=compat,
                    cann=ref_text,
                )
            )
        f_text = firmware.strip() if isinstance(firmware, str) else ""
        if f_text and not (own and row.firmware is None):
            what = self._not_firmware(f_text, d_text, cann_text)
            if what:
                issues.append(
                    MatrixIssue(
                        "firmware",
                        f_text,
                        row.firmware,
                        "warning",
                        "not_firmware",
                        row.mindspore,
                        detail=what,
                    )
                )
                return issues
            fws: set[str] = set()
            if row.firmware is not None:
                fw = normalize_firmware(row.firmware)
                if fw is not None:
                    fws.add(fw.base)
            for r in self.entries:
                if r.driver and r.firmware:
                    rd = normalize_driver(r.driver)
                    if rd is not None and any(sp.matches(rd) for sp in specs):
                        fw = normalize_firmware(r.firmware)
                        if fw is not None:
                            fws.add(fw.base)
            f = normalize_firmware(f_text)
            if f is not None and f.base in fws:
                return issues
            if not fws:
                return issues  # nothing known to compare with
            if d_ok and d is not None and not self.firmware_of(d):
                return issues  # a compatible HDK whose firmware no source gives
            expected = row.firmware or ", ".join(sorted(fws))
            issues.append(
                MatrixIssue(
                    "firmware",
                    f_text,
                    expected,
                    "warning",
                    "firmware_mismatch",
                    row.mindspore,
                    cann=ref_text,
                )
            )
        return issues

    def _not_firmware(self, text: str, driver: str, cann: str) -> str:
        """What a firmware cell holds when it is not a firmware version, else ``""``."""
        facts = _cann_facts()
        f = normalize_firmware(text)
        if f is not None and f.base in facts.not_firmware:
            return f"it is {facts.not_firmware[f.base]}"
        c = normalize_cann(text)
        if c is not None and ((cann and same_cann(c, cann)) or (c.key[2] == 0 and c.key[0] < 20)):
            return f"it is a CANN version (CANN {c.canonical})"
        d = normalize_driver(text)
        if d is not None and (d.key[0] >= 20 or (driver and same_driver(d, driver))):
            return f"it is an Ascend HDK (driver) version ({d.canonical})"
        return ""


def _short_error(e: Exception) -> str:
    if isinstance(e, MatrixRowError):
        return _describe(e.errors())
    return str(e)


@cache
def _builtin() -> Matrix:
    from perfbot.spec import data  # the JSON twin of matrix.yaml: no PyYAML on the check path

    return Matrix.from_rows(data.load("matrix.yaml") or [])
