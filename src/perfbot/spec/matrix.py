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
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any, Literal

from perfbot.spec.versions import (
    Version,
    mindspore_versions,
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
_NOT_TEXT = "Value error, must be a string (quote version numbers in YAML)"
_LISTS: tuple[type, ...] = (
    list,
    tuple,
    set,
    frozenset,
    deque,
    type({}.keys()),
    type({}.values()),
    Iterator,
)


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
    origin = _as_str(data["origin"]) if "origin" in data else "builtin"
    if origin is None:
        errors.append((("origin",), _str_error(data["origin"])))
    out["origin"] = origin
    for k in data:
        if not isinstance(k, str):
            errors.append(((k,), "Keys should be strings"))
        elif k not in _ROW_FIELDS:
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
        if exclude_none:
            out = {k: v for k, v in out.items() if v is not None}
        return out

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> MatrixRow:
        """A copy with ``update``'s fields replaced, not validated again (as pydantic's)."""
        new = object.__new__(MatrixRow)
        for name in _ROW_FIELDS:
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
    ``cann_mismatch``, ``driver_mismatch``, ``firmware_mismatch``; ``mindspore`` the matrix row's
    MindSpore the check was made against (``None`` when no row was found); ``detail`` a short
    explanation.
    """

    field: Column
    found: str | None
    expected: str | None
    level: Level
    code: str = ""
    mindspore: str | None = None
    detail: str = ""

    @property
    def message(self) -> str:
        if self.code == "unknown_mindspore":
            return self.detail or f"MindSpore {self.found!r} is not in the compatibility matrix"
        what = {"cann": "CANN", "driver": "driver", "firmware": "firmware"}.get(
            self.field, self.field
        )
        verb = "does not belong to" if self.level == "error" else "differs from the matrix for"
        return f"{what} `{self.found}` {verb} MindSpore {self.mindspore} (matrix: {self.expected})"


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class Matrix:
    """The rows, sorted by MindSpore version; one row per MindSpore version."""

    entries: tuple[MatrixRow, ...]
    #: Config rows ``merged`` could not use (e.g. ``mindspore: foo``), one message each.
    errors: tuple[str, ...]
    _by_version: dict[str, MatrixRow] = dataclasses.field(repr=False, compare=False)

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
        """Rows one MindSpore version names: the exact row, or every ``2.5.x`` row for ``2.5``."""
        v = mindspore if isinstance(mindspore, Version) else normalize_mindspore(mindspore)
        if v is None or v.kind != "mindspore":
            return []
        if not v.partial:
            row = self._by_version.get(v.canonical)
            return [row] if row is not None else []
        return [row for row in self.entries if row.version.key[:2] == v.key[:2]]

    def lookup(self, mindspore: str | Version) -> MatrixRow | None:
        """The row of one MindSpore version; ``2.5`` matches only if exactly one 2.5.x row is."""
        found = self.candidates(mindspore)
        return found[0] if len(found) == 1 else None

    def canonical_row(self, mindspore: str | Version) -> dict[str, str | None]:
        """The matrix's own spellings of the row of ``mindspore`` (what a fix writes), or ``{}``."""
        row = self.lookup(mindspore)
        return row.values() if row is not None else {}

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
            if mindspore is None or not mindspore.strip():
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
            for issue in _check_against(found[0], driver, firmware, cann):
                k = (issue.field, issue.found, issue.expected, issue.level)
                if k not in seen:
                    seen.add(k)
                    issues.append(issue)
        return issues


_SAME = {"driver": same_driver, "firmware": same_firmware, "cann": same_cann}


def _check_against(
    row: MatrixRow, driver: str | None, firmware: str | None, cann: str | None
) -> list[MatrixIssue]:
    issues: list[MatrixIssue] = []
    for field, found in (("driver", driver), ("firmware", firmware), ("cann", cann)):
        expected = getattr(row, field)
        if expected is None or not isinstance(found, str) or not found.strip():
            continue
        if _SAME[field](found, expected):
            continue
        level: Level = "error" if field == "cann" else "warning"
        issues.append(
            MatrixIssue(
                field,  # type: ignore[arg-type]
                found.strip(),
                expected,
                level,
                f"{field}_mismatch",
                mindspore=row.mindspore,
            )
        )
    return issues


def _short_error(e: Exception) -> str:
    if isinstance(e, MatrixRowError):
        return _describe(e.errors())
    return str(e)


@cache
def _builtin() -> Matrix:
    from perfbot.spec import data  # the JSON twin of matrix.yaml: no PyYAML on the check path

    return Matrix.from_rows(data.load("matrix.yaml") or [])
