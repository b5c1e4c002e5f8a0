"""A row of the compatibility matrix (:class:`MatrixRow`, validated by hand) and what a check of a
Requirements row against it reports (:class:`MatrixIssue`). :mod:`perfbot.spec.matrix` holds the
matrix itself.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal, cast

from perfbot.spec.matrix_facts import _accepted_spec
from perfbot.spec.versions import Version, normalize_mindspore, parse_version

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
    accepted = data.get("cann_accepted")
    out["cann_accepted"] = None
    if accepted is not None:
        if not isinstance(accepted, _LISTS) or isinstance(accepted, str):
            errors.append((("cann_accepted",), "Input should be a valid list"))
        else:
            items: list[str] = []
            for i, item in enumerate(cast("Iterable[object]", accepted)):
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
    """One release's recommended pairing. ``None`` = unknown: a built-in row's column is then
    checked only against what else is known (the HDKs of the row's CANN), a config row's not at
    all.

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


def _short_error(e: Exception) -> str:
    if isinstance(e, MatrixRowError):
        return _describe(e.errors())
    return str(e)
