"""The settings of a repository: ONE plain type, :class:`Settings`, built by the fast reader.

Checking, fixing, the review and the rerun read a :class:`Settings` (:data:`DEFAULT` when no
config file applies). :meth:`Settings.model_validate` reads plain data (a ``.perfbot.yml`` as
YAML gives it) without pydantic when every value has the exact type the schema wants, with known
keys only and nothing the schema would refuse: the common case, ~100 ms of pydantic spared on a
cold check. Other data (a value to coerce, an error to word) goes to the pydantic models of
:mod:`perfbot.config_schema`, whose coerced values are read here again: the answer is a
``Settings`` either way, never a second type.

A new key is one slot of :class:`Settings` (its default in ``__init__``, its reading in
:meth:`Settings._read`) plus its field in :mod:`perfbot.config_schema`;
``tests/test_config_plain.py`` holds the two to the same keys and the same answers.

Rule names (``rules:``, ``fixable:``, ``unfixable:``) are kept as written: the config sits below
the rules, and :func:`perfbot.rules.check_names` reads them against the registry (the engine's
rule plan, and :func:`perfbot.targets.target` before it).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from .config_read import (
    CONFIG_NAMES,
    DEFAULT_RUNNERS,
    RUNNER_LABEL,
    ConfigError,
    can_fix,
    check_globs,
    clear_found,
    find_config_file,
    glob_spec,
    note_listing,
    read_config_data,
)

__all__ = [
    "CONFIG_NAMES",
    "DEFAULT",
    "ConfigError",
    "Settings",
    "clear_found",
    "find_config_file",
    "load_config",
    "note_listing",
]

_SEVERITIES = frozenset({"error", "warning", "info", "off"})
_FILTER_MODES = frozenset({"added", "diff_context", "file", "nofilter"})
_PERMISSIONS = frozenset({"read", "triage", "write", "maintain", "admin"})


class _NotPlain(ValueError):
    """The data needs the schema (a value to coerce, an error to word, a key it does not know)."""


def _strs(v: Any) -> list[str]:
    if type(v) is not list or any(type(x) is not str for x in v):
        raise _NotPlain
    return list(v)


def _mapping(v: Any, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    if type(v) is not dict or any(type(k) is not str for k in v):
        raise _NotPlain
    if keys is not None and not set(v) <= set(keys):
        raise _NotPlain
    return v


def _valid(check: Any, value: Any) -> Any:
    try:
        return check(value)
    except ValueError:
        raise _NotPlain from None


def _number(v: Any) -> float:
    """A float >= 0 (an int is taken as the schema takes it: as a float)."""
    if type(v) not in (int, float) or not math.isfinite(v) or v < 0:
        raise _NotPlain
    return float(v)


def _data_of(value: Any) -> Any:
    """A value given to a constructor as plain data (a settings object as its dump)."""
    if isinstance(value, _Part | Settings):
        return value.model_dump()
    if isinstance(value, list):
        return [_data_of(v) for v in value]
    if isinstance(value, dict):
        return {k: _data_of(v) for k, v in value.items()}
    return value


class _Part:
    """A group of settings (``allow``, a column, a matrix row, ``review``, ``rerun``): built from
    keyword arguments or read from plain data, compared and dumped by value."""

    __slots__ = ()
    _KEYS: tuple[str, ...] = ()

    def __init__(self, **values: Any):
        self._fill(self._read(_data_of(values)))

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _from(cls, data: Any) -> Any:
        """Read plain data (raises :class:`_NotPlain`)."""
        out = object.__new__(cls)
        out._fill(cls._read(data))
        return out

    def _fill(self, values: dict[str, Any]) -> None:
        for key in self._KEYS:
            object.__setattr__(self, key, values[key])

    def model_dump(self, *, exclude_none: bool = False, mode: str = "python") -> dict[str, Any]:
        out = {k: _copy(getattr(self, k)) for k in self._KEYS}
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self._KEYS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._KEYS)
        return f"{type(self).__name__}({values})"


def _copy(v: Any) -> Any:
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    return v


class AllowSettings(_Part):
    """``allow:``"""

    __slots__ = ("compile_seconds", "ms_per_step")
    _KEYS = ("ms_per_step", "compile_seconds")
    ms_per_step: bool
    compile_seconds: bool

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        _mapping(data, cls._KEYS)
        if any(type(v) is not bool for v in data.values()):
            raise _NotPlain
        return {k: data.get(k, False) for k in cls._KEYS}


class ColumnSettings(_Part):
    """One item of ``columns:``"""

    __slots__ = ("aliases", "form", "name")
    _KEYS = ("name", "aliases", "form")
    name: str
    aliases: list[str]
    form: str

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        from .spec.forms import FORMS

        _mapping(data, cls._KEYS)
        if type(data.get("name")) is not str or type(data.get("form", "")) is not str:
            raise _NotPlain
        form = data.get("form", "any")
        if form not in FORMS:
            raise _NotPlain
        return {"name": data["name"], "aliases": _strs(data.get("aliases", [])), "form": form}


_ROW = ("mindspore", "driver", "firmware", "cann")


class MatrixRowSettings(_Part):
    """One item of ``matrix:``"""

    __slots__ = (*_ROW, "cann_accepted")
    _KEYS = (*_ROW, "cann_accepted")
    mindspore: str
    driver: str | None
    firmware: str | None
    cann: str | None
    cann_accepted: list[str] | None

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        _mapping(data, cls._KEYS)
        if type(data.get("mindspore")) is not str:
            raise _NotPlain
        out: dict[str, Any] = {}
        for name in _ROW:
            value = data.get(name)
            if value is not None and type(value) is not str:
                raise _NotPlain
            out[name] = value
        accepted = data.get("cann_accepted")
        out["cann_accepted"] = None if accepted is None else _strs(accepted)
        return out


class ReviewSettings(_Part):
    """``review:``"""

    __slots__ = ("filter_mode", "max_comments")
    _KEYS = ("filter_mode", "max_comments")
    filter_mode: str
    max_comments: int

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        _mapping(data, cls._KEYS)
        mode = data.get("filter_mode", "diff_context")
        limit = data.get("max_comments", 50)
        if type(mode) is not str or mode not in _FILTER_MODES or type(limit) is not int:
            raise _NotPlain
        if limit < 0:
            raise _NotPlain
        return {"filter_mode": mode, "max_comments": limit}


class RerunSettings(_Part):
    """``rerun:``. perfbot's gate reads it from the repository's default branch only."""

    __slots__ = (
        "approve_plan", "min_permission", "noisy_cv", "push", "runners", "slower_threshold"
    )  # fmt: skip
    _KEYS = ("min_permission", "slower_threshold", "noisy_cv", "push", "approve_plan", "runners")
    min_permission: str
    slower_threshold: float
    noisy_cv: float
    push: bool
    # A fork's approval must name the digest of the plan perfbot replied with
    # (`/perfbot ok-to-test SHA plan=DIGEST`), so what was never shown cannot be approved.
    approve_plan: bool
    # The runner label sets a benchmark's `runs_on` may name (compared as sets, ignoring case);
    # any other set is refused, so a pull request cannot reach other runners of the repository.
    runners: list[list[str]]

    @classmethod
    def _read(cls, data: Any) -> dict[str, Any]:
        _mapping(data, cls._KEYS)
        permission = data.get("min_permission", "write")
        if type(permission) is not str or permission not in _PERMISSIONS:
            raise _NotPlain
        push = data.get("push", False)
        approve_plan = data.get("approve_plan", False)
        if type(push) is not bool or type(approve_plan) is not bool:
            raise _NotPlain
        runners = data.get("runners")
        if runners is None and "runners" not in data:
            runners = [list(r) for r in DEFAULT_RUNNERS]
        if type(runners) is not list or len(runners) > 100:
            raise _NotPlain
        sets = [_strs(labels) for labels in runners]
        for labels in sets:
            if not labels or len(labels) > 20:
                raise _NotPlain
            if not all(RUNNER_LABEL.fullmatch(label) for label in labels):
                raise _NotPlain
        return {
            "min_permission": permission,
            "slower_threshold": _number(data.get("slower_threshold", 0.05)),
            "noisy_cv": _number(data.get("noisy_cv", 0.05)),
            "push": push,
            "approve_plan": approve_plan,
            "runners": sets,
        }

    @classmethod
    def model_validate(cls, data: Any) -> RerunSettings:
        """``rerun:`` from plain data; data the fast reader refuses is validated by the schema
        (pydantic's ``ValidationError`` for a bad value, as before)."""
        try:
            return cls._from(data)
        except _NotPlain:
            pass
        from .config_schema import RerunConfig

        return cls._from(RerunConfig.model_validate(data).model_dump())

    def allows_runner(self, labels: list[str] | tuple[str, ...]) -> bool:
        """Whether a benchmark may run on ``labels``: exactly one of the allowed label sets."""
        want = {x.lower() for x in labels}
        return any(want == {x.lower() for x in allowed} for allowed in self.runners)


KEYS = (
    "root",
    "paths",
    "exclude",
    "allow",
    "columns",
    "aliases",
    "matrix",
    "rules",
    "fixable",
    "unfixable",
    "review",
    "rerun",
    "benchmarks",
)


class Settings:
    """A repository's settings: every key of ``.perfbot.yml`` (the schema's fields), plus the
    values a file set as it wrote them (:meth:`model_dump` ``exclude_unset``) and, for a composed
    config, where each came from (:mod:`perfbot.config_tree`)."""

    __slots__ = (*KEYS, "_data", "_files", "_origins", "_source")
    root: bool
    paths: list[str]
    exclude: list[str]
    allow: AllowSettings
    columns: list[ColumnSettings]
    aliases: dict[str, list[str]]
    matrix: list[MatrixRowSettings]
    rules: dict[str, str]  # rule names (ids, slugs, any case) as written
    fixable: list[str] | None
    unfixable: list[str]
    review: ReviewSettings
    rerun: RerunSettings
    benchmarks: list[dict[str, Any]]  # validated by perfbot.runner when used
    _data: dict[str, Any]
    _files: tuple[Path, ...]
    _origins: dict[str, Path]
    _source: Path | None  # the one file read (load_config), if any

    def __init__(self, **values: Any):
        """Settings from keyword arguments (plain values or settings objects), read as a file's
        data is; a value the fast reader refuses is a ``ValueError``."""
        try:
            self._fill(_data_of(values))
        except _NotPlain:
            raise ValueError(f"not valid settings: {values!r}") from None

    def _fill(self, data: Any) -> None:
        """Read plain data (raises :class:`_NotPlain`)."""
        _mapping(data)
        if not set(data) <= set(KEYS):
            raise _NotPlain
        get = data.get
        root = get("root", False)
        if type(root) is not bool:
            raise _NotPlain
        rules = _mapping(get("rules", {}))
        rules = {k: ("off" if s is False else s) for k, s in rules.items()}  # YAML's bare `off`
        if any(type(s) is not str or s not in _SEVERITIES for s in rules.values()):
            raise _NotPlain
        fixable = get("fixable")
        columns, matrix, benchmarks = get("columns", []), get("matrix", []), get("benchmarks", [])
        if type(columns) is not list or type(matrix) is not list or type(benchmarks) is not list:
            raise _NotPlain
        values: dict[str, Any] = {
            "root": root,
            "paths": _valid(check_globs, _strs(get("paths", []))),
            "exclude": _valid(check_globs, _strs(get("exclude", []))),
            "allow": AllowSettings._from(get("allow", {})),
            "columns": [ColumnSettings._from(c) for c in columns],
            "aliases": {k: _strs(v) for k, v in _mapping(get("aliases", {})).items()},
            "matrix": [MatrixRowSettings._from(r) for r in matrix],
            "rules": rules,  # names as written: the engine's rule plan reads them (check_names)
            "fixable": None if fixable is None else _strs(fixable),
            "unfixable": _strs(get("unfixable", [])),
            "review": ReviewSettings._from(get("review", {})),
            "rerun": RerunSettings._from(get("rerun", {})),
            "benchmarks": [dict(_mapping(b)) for b in benchmarks],
        }
        for key in KEYS:
            object.__setattr__(self, key, values[key])
        # what the data set, its values as read (rule names as ids): what composing merges
        set_: dict[str, Any] = {}
        for key in data:
            value = values[key]
            if key in ("allow", "review", "rerun"):
                set_[key] = {k: getattr(value, k) for k in data[key]}
            elif key in ("columns", "matrix"):
                set_[key] = [
                    {k: getattr(v, k) for k in d} for v, d in zip(value, data[key], strict=True)
                ]
            else:
                set_[key] = value
        self._data = _copy(set_)
        self._files = ()
        self._origins = {}
        self._source = None

    @classmethod
    def _from(cls, data: Any) -> Settings:
        out = object.__new__(cls)
        out._fill(data)
        return out

    @classmethod
    def model_validate(cls, data: Any) -> Settings:
        """Settings from plain data; data the fast reader refuses is validated by the schema
        (pydantic's ``ValidationError`` for a bad value) and its coerced values read here."""
        try:
            return cls._from(data)
        except _NotPlain:
            pass
        from .config_schema import Config

        return cls._from(Config.model_validate(data).model_dump(exclude_unset=True))

    @classmethod
    def read(cls, data: Any, source: str | Path) -> Settings:
        """Settings from the data of a file: a :class:`ConfigError` naming ``source``, the key
        and what is allowed for data the schema refuses."""
        try:
            return cls._from(data)
        except _NotPlain:
            pass
        from .config_schema import validate_data

        return cls._from(validate_data(data, source))

    def model_dump(
        self, *, exclude_unset: bool = False, exclude_none: bool = False, mode: str = "python"
    ) -> dict[str, Any]:
        """The settings as plain data: every key, or (``exclude_unset``) those the data set."""
        if exclude_unset:
            return _copy(self._data)
        out: dict[str, Any] = {}
        for key in KEYS:
            value = getattr(self, key)
            if isinstance(value, _Part):
                value = value.model_dump()
            elif key in ("columns", "matrix"):
                value = [v.model_dump() for v in value]
            out[key] = _copy(value)
        return out

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Settings:
        """A copy with ``update``'s values (taken as given, as pydantic's ``model_copy``)."""
        out = object.__new__(type(self))
        for key in self.__slots__:
            object.__setattr__(out, key, getattr(self, key))
        data = dict(self._data)
        for key, value in (update or {}).items():
            if key not in KEYS:
                raise AttributeError(key)
            object.__setattr__(out, key, value)
            data[key] = _data_of(value)
        out._data = data
        return out

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        """This repository's setting for a rule (its id and slug), or None: the last entry of
        ``rules:`` naming it, in any spelling."""
        got = None
        for name, value in self.rules.items():
            if name.upper() == rule_id or (slug and name.lower() == slug):
                got = value
        return got

    def can_fix(self, rule_id: str, slug: str = "") -> bool:
        """Whether ``fixable``/``unfixable`` let this rule offer its fixes."""
        return can_fix(rule_id, self.fixable, self.unfixable, slug)

    def origin(self, key: str) -> Path | None:
        """The file that set ``key`` (``rules.PB303``, ``fixable``), if a file did."""
        return self._origins.get(key) or self._source

    def is_model_readme(self, rel: str, exclude_rel: str | None = None) -> bool | None:
        """True/False when ``paths``/``exclude`` decide; None when the content must (default).

        ``rel`` is the file's path relative to the folder the ``paths`` globs are relative to;
        ``exclude_rel`` (default ``rel``) the same for ``exclude`` (they can come from two
        nested config files)."""
        rel = rel.replace("\\", "/")
        ex = rel if exclude_rel is None else exclude_rel.replace("\\", "/")
        if self.exclude and glob_spec(tuple(self.exclude)).match_file(ex):
            return False
        if self.paths:
            return glob_spec(tuple(self.paths)).match_file(rel)
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Settings):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        if self is DEFAULT:
            return "DEFAULT"  # the one instance, in a worker process too
        return _restore, (tuple(getattr(self, k) for k in self.__slots__),)

    def __repr__(self) -> str:
        return f"Settings({self._data!r})"


def _restore(values: tuple[Any, ...]) -> Settings:
    out = object.__new__(Settings)
    for key, value in zip(Settings.__slots__, values, strict=True):
        object.__setattr__(out, key, value)
    return out


#: the settings when no config file applies (shared by every file: nothing changes it)
DEFAULT = Settings()


def load_config(path: str | Path) -> Settings:
    """The settings of the one config file ``path`` (not composed), or :class:`ConfigError`."""
    p = Path(path)
    out = Settings.read(read_config_data(p), p)
    out._source = p
    return out


@lru_cache(maxsize=64)
def cached_load(path: Path) -> Settings:
    return load_config(path)
