"""What checking needs of the config, without pydantic: the defaults, or one plain ``.perfbot.yml``.

Most READMEs have no config file above them (the pre-commit case: one README, a fresh process).
:func:`config_for` answers those with :data:`DEFAULT`, a plain object holding the defaults of
:class:`perfbot.config.Config` that checking reads; anything else asked of it (``model_copy``,
``review``, ``rerun``, a field added later) is answered by a real ``Config()``, built on first use.
A found config file is answered by :class:`PlainConfig` when pydantic would take it as written
(below); only other files and a named one (``--config``) import :mod:`perfbot.config` (pydantic,
the config classes). ``tests/test_speed.py`` holds :data:`DEFAULT` to ``Config()`` field by field.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Collection

    from .config import Config

CONFIG_NAMES = (".perfbot.yml", ".perfbot.yaml")


class ConfigError(Exception):
    """A config file that perfbot cannot use; the message is for the user."""


_FOUND: dict[str, str | None] = {}  # folder -> its config file; sibling folders share the walk
# folders whose listing (read by the walk that found the files) holds no config file and no
# `.git`: the search goes on above them without asking the file system again
_BARE: set[str] = set()
_MARKERS = frozenset((*CONFIG_NAMES, ".git"))
_MAX_CACHED = 65536


def note_listing(folder: str, names: Collection[str]) -> None:
    """What a walk read of ``folder`` (absolute): the names of its entries. A folder holding none
    of the config names and no ``.git`` is remembered, so that :func:`find_config_file` does not
    stat three paths in it again (a tree of 1,650 READMEs in 1,650 folders: ~50 ms). Names are
    compared case-blind: on a case-insensitive file system `.Perfbot.yml` answers the stat of
    `.perfbot.yml`, so such a folder is left to the stat, as before."""
    if _MARKERS.isdisjoint(n.lower() for n in names):
        if len(_BARE) > _MAX_CACHED:
            _BARE.clear()
        _BARE.add(folder)


def find_config_file(directory: str | os.PathLike[str]) -> Path | None:
    """The nearest config file in ``directory`` or above it, up to the repository root.

    A loop, not a recursion: a tree thousands of folders deep is an ordinary input."""
    chain: list[str] = []
    d = os.fspath(directory)
    while True:
        if d in _FOUND:
            found = _FOUND[d]
            break
        chain.append(d)
        parent = os.path.dirname(d)
        if d in _BARE:  # its listing holds neither a config file nor .git
            found = None
        else:
            found = next((f for n in CONFIG_NAMES if os.path.isfile(f := os.path.join(d, n))), None)
            if found is not None or os.path.exists(os.path.join(d, ".git")):
                break
        if parent == d:
            break
        d = parent
    if len(_FOUND) > _MAX_CACHED:
        _FOUND.clear()
    for c in chain:
        _FOUND[c] = found
    return None if found is None else Path(found)


def clear_found() -> None:
    """Forget the config files found and the folder listings noted in this process."""
    _FOUND.clear()
    _BARE.clear()


class _Allow:
    __slots__ = ()
    ms_per_step = False
    compile_seconds = False


class DefaultConfig:
    """``Config()`` for checking, without pydantic (see the module's docstring). Shared by every
    file: nothing may change these values (nor does anything change a ``Config``'s)."""

    __slots__ = ()
    paths: ClassVar[list[str]] = []
    exclude: ClassVar[list[str]] = []
    allow = _Allow()
    columns: ClassVar[list[Any]] = []
    aliases: ClassVar[dict[str, list[str]]] = {}
    matrix: ClassVar[list[Any]] = []
    rules: ClassVar[dict[str, str]] = {}
    benchmarks: ClassVar[list[Any]] = []  # `check` asks (perfbot.cli.benchmark_problems)

    root = False
    fixable = None
    unfixable: ClassVar[list[str]] = []

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        return None

    def can_fix(self, rule_id: str) -> bool:
        return True  # no fixable / unfixable lists

    def is_model_readme(self, rel: str, exclude_rel: str | None = None) -> bool | None:
        return None  # no paths, no exclude: the content decides

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real_default(), name)

    def __reduce__(self) -> str:
        return "DEFAULT"  # the one instance, in a worker process too

    def __repr__(self) -> str:
        return "DefaultConfig()"


DEFAULT = DefaultConfig()


@lru_cache(maxsize=1)
def _real_default() -> Config:
    from .config import _default_config

    return _default_config()


def config_for(file: str | Path, explicit: str | Path | None = None) -> tuple[Config, Path | None]:
    """:func:`perfbot.config.config_for`, with :data:`DEFAULT` when no config file applies and a
    :class:`PlainConfig` when a plain one does."""
    if explicit is None:
        found = find_config_file(os.path.dirname(os.path.abspath(file)))
        if found is None:
            return DEFAULT, None  # type: ignore[return-value]
        plain = _plain(found)
        if plain is not None:
            return plain, found  # type: ignore[return-value]
    from .config import config_for as full

    return full(file, explicit)


# --- a config file pydantic would take as written: answered without pydantic ---------------------
#
# A repository that adopted perfbot has a `.perfbot.yml` (`perfbot init` writes one), and importing
# pydantic and building the config classes costs more than the whole check of a README (~100 ms).
# A file whose every value has the exact type pydantic wants (nothing to coerce), with known keys
# only, nothing pydantic would refuse, and no config above it to compose with, is answered by
# :class:`PlainConfig`; anything else (a value to coerce, an error to word, `review:`, `rerun:`,
# `benchmarks:`, nested files, --config) goes to :mod:`perfbot.config` as before.
# ``tests/test_config_plain.py`` holds its answers to pydantic's.

_TOP = frozenset(
    {"root", "paths", "exclude", "allow", "columns", "aliases", "matrix", "rules"}
    | {"fixable", "unfixable"}
)
_ALLOW = ("ms_per_step", "compile_seconds")
_SEVERITIES = frozenset({"error", "warning", "info", "off"})
_ROW = ("mindspore", "driver", "firmware", "cann")


class _NotPlain(Exception):
    """The data needs pydantic (a value to coerce, an error to word, a key it does not know)."""


def check_globs(patterns: list[str]) -> list[str]:
    """``paths``/``exclude``: a glob too costly to match, or one git would not read (``!``
    alone, a trailing ``\\``), is refused (ValueError), so it is the config's error, not a crash
    when the first path is matched."""
    from .globs import too_complex

    for pattern in patterns:
        why = too_complex(pattern)
        if why:
            raise ValueError(f"{why}: {pattern[:80]!r}")
    try:
        glob_spec(tuple(patterns))
    except ValueError as e:  # pathspec's GitIgnorePatternError names the pattern
        raise ValueError(f"not a valid glob: {e}") from None
    return patterns


def rule_settings(rules: dict[str, str]) -> dict[str, str]:
    """``rules:`` keyed by rule id, whatever spelling the file used (ValueError: unknown). The
    names are checked against :mod:`perfbot.spec.rule_names` (the rules as data: the config
    sits below the rules and imports none of them)."""
    from .spec.rule_names import rule_id

    ids = {k: rule_id(k) for k in rules}
    unknown = [k for k, rid in ids.items() if rid is None]
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise ValueError(f"unknown rule {names}{_rule_meant(unknown[0])} (see `perfbot rules`)")
    return {rid: rules[k] for k, rid in ids.items() if rid is not None}


def _rule_meant(name: str) -> str:
    """ "; did you mean 'img-s-mismatch'?" for a misspelt rule id or slug."""
    import difflib

    from .spec.rule_names import slugs

    by_id = slugs()
    spellings = {slug: slug for slug in by_id.values()} | {i.lower(): i for i in by_id}
    guess = difflib.get_close_matches(str(name).lower(), list(spellings), 1)
    return f"; did you mean '{spellings[guess[0]]}'?" if guess else ""


def rule_names(names: list[str]) -> list[str]:
    """``fixable``/``unfixable``: rule ids, ``ALL`` or id prefixes (ValueError: unknown)."""
    from .spec.rule_names import ids as rule_ids
    from .spec.rule_names import rule_id

    ids = rule_ids()
    out: list[str] = []
    for name in names:
        rid = rule_id(name)
        if rid is not None:
            out.append(rid)
        elif name.upper() == "ALL" or (
            name.upper().startswith("PB") and any(i.startswith(name.upper()) for i in ids)
        ):
            out.append(name.upper())
        else:
            raise ValueError(f"unknown rule {name!r}{_rule_meant(name)} (see `perfbot rules`)")
    return out


def can_fix(rule_id: str, fixable: list[str] | None, unfixable: list[str] | None) -> bool:
    """Whether ``fixable``/``unfixable`` (as :func:`rule_names` gives them) let this rule offer
    its fixes: not named in ``unfixable``, and named in ``fixable`` when that is set."""

    def named(names: list[str]) -> bool:
        return any(n == "ALL" or rule_id.startswith(n) for n in names)

    if unfixable and named(unfixable):
        return False
    return fixable is None or named(fixable)


@lru_cache(maxsize=256)
def glob_spec(patterns: tuple[str, ...]):  # -> pathspec.PathSpec
    """Globs with .gitignore semantics (pathspec): `*` and `?` stay within one folder, `**/` is
    any number of folders, a pattern without `/` matches in any folder, `!` negates."""
    import pathspec

    from .globs import normalise

    return pathspec.GitIgnoreSpec.from_lines([normalise(p) for p in patterns])


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


class PlainAllow:
    __slots__ = _ALLOW

    def __init__(self, data: dict[str, bool]):
        self.ms_per_step = data.get("ms_per_step", False)
        self.compile_seconds = data.get("compile_seconds", False)


class PlainColumn:
    __slots__ = ("aliases", "form", "name")

    def __init__(self, data: dict[str, Any]):
        from .spec.forms import FORMS

        _mapping(data, ("name", "aliases", "form"))
        if type(data.get("name")) is not str or type(data.get("form", "")) is not str:
            raise _NotPlain
        self.name: str = data["name"]
        self.aliases = _strs(data.get("aliases", []))
        self.form: str = data.get("form", "any")
        if self.form not in FORMS:
            raise _NotPlain


class PlainRow:
    __slots__ = (*_ROW, "cann_accepted")
    mindspore: str
    driver: str | None
    firmware: str | None
    cann: str | None
    cann_accepted: list[str] | None

    def __init__(self, data: dict[str, Any]):
        _mapping(data, (*_ROW, "cann_accepted"))
        if type(data.get("mindspore")) is not str:
            raise _NotPlain
        for name in _ROW:
            value = data.get(name)
            if value is not None and type(value) is not str:
                raise _NotPlain
            setattr(self, name, value)
        accepted = data.get("cann_accepted")
        self.cann_accepted = None if accepted is None else list(_strs(accepted))

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in (*_ROW, "cann_accepted")}
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out


class PlainConfig:
    """The :class:`perfbot.config.Config` of one plain config file, without pydantic: what
    checking reads is computed here; anything else (``model_copy``, ``model_dump``, ``review``,
    a field added later) is asked of the real ``Config`` of the same file, built on first use."""

    __slots__ = (
        "_data",
        "_files",
        "_origins",
        "_path",
        "aliases",
        "allow",
        "columns",
        "exclude",
        "fixable",
        "matrix",
        "paths",
        "root",
        "rules",
        "unfixable",
    )
    benchmarks: ClassVar[list[Any]] = []  # a file with `benchmarks:` is not plain

    def __init__(self, data: dict[str, Any], path: Path):
        """Raises :class:`_NotPlain` for data pydantic would coerce or refuse."""
        _mapping(data)
        if not set(data) <= _TOP:
            raise _NotPlain
        self._data = data
        self._path = path
        self._files = (path,)
        self.root = data.get("root", False)
        if type(self.root) is not bool:
            raise _NotPlain
        self.paths = _valid(check_globs, _strs(data.get("paths", [])))
        self.exclude = _valid(check_globs, _strs(data.get("exclude", [])))
        allow = _mapping(data.get("allow", {}), _ALLOW)
        if any(type(v) is not bool for v in allow.values()):
            raise _NotPlain
        self.allow = PlainAllow(allow)
        columns = data.get("columns", [])
        if type(columns) is not list:
            raise _NotPlain
        self.columns = [PlainColumn(c) for c in columns]
        self.aliases = {k: _strs(v) for k, v in _mapping(data.get("aliases", {})).items()}
        matrix = data.get("matrix", [])
        if type(matrix) is not list:
            raise _NotPlain
        self.matrix = [PlainRow(r) for r in matrix]
        rules = _mapping(data.get("rules", {}))
        rules = {k: ("off" if s is False else s) for k, s in rules.items()}  # YAML's bare `off`
        if any(type(s) is not str or s not in _SEVERITIES for s in rules.values()):
            raise _NotPlain
        self.rules = _valid(rule_settings, rules)
        fixable = data.get("fixable")
        self.fixable = None if fixable is None else _valid(rule_names, _strs(fixable))
        self.unfixable = _valid(rule_names, _strs(data.get("unfixable", [])))
        self._origins = self._set_by(path)

    def _set_by(self, path: Path) -> dict[str, Path]:
        """Which values this file set (as :func:`perfbot.config_tree.origins` says)."""
        out: dict[str, Path] = {}
        for key in self._data:
            if key == "root":
                continue
            if key == "allow":
                names = [f"allow.{k}" for k in self._data["allow"]]
            elif key in ("rules", "aliases"):
                names = [f"{key}.{k}" for k in getattr(self, key)]
            elif key == "columns":
                names = [f"columns.{c.name}" for c in self.columns]
            elif key == "matrix":
                names = [f"matrix.{r.mindspore}" for r in self.matrix]
            else:
                names = [key]
            for name in names:
                out[name] = path
        return out

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        return self.rules.get(rule_id)

    def can_fix(self, rule_id: str) -> bool:
        return can_fix(rule_id, self.fixable, self.unfixable)

    def is_model_readme(self, rel: str, exclude_rel: str | None = None) -> bool | None:
        rel = rel.replace("\\", "/")
        ex = rel if exclude_rel is None else exclude_rel.replace("\\", "/")
        if self.exclude and glob_spec(tuple(self.exclude)).match_file(ex):
            return False
        if self.paths:
            return glob_spec(tuple(self.paths)).match_file(rel)
        return None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        from .config_tree import compose

        return getattr(compose(self._path), name)

    def __reduce__(self) -> tuple[Any, ...]:
        return PlainConfig, (self._data, self._path)

    def __repr__(self) -> str:
        return f"PlainConfig({str(self._path)!r})"


@lru_cache(maxsize=64)
def _plain(found: Path) -> PlainConfig | None:
    """The config of a folder whose nearest config file is ``found``, when it is plain and alone
    (nothing above it to compose with), else None. A file that cannot be read or parsed raises
    the :class:`ConfigError` the full path would."""
    from .config_read import read_config_data

    data = read_config_data(found)
    try:
        config = PlainConfig(data, found)
    except _NotPlain:
        return None
    d = found.parent
    top = config.root or (d / ".git").exists() or d.parent == d
    if not top and find_config_file(d.parent) is not None:
        return None  # config_tree composes the files
    return config
