"""Nested ``.perfbot.yml`` files compose: a folder's config extends its parent's.

The nearest config of a file is read first; then the next one above it, and so on up to the
repository root (the folder holding ``.git``) or a config that says ``root: true``. Values are
merged parent first, the nearer file winning, as ruff's ``extend`` does:

* ``allow``, ``rules``, ``aliases``, ``review``, ``rerun``: key by key (a child's
  ``rules: {PB202: off}`` keeps the parent's other rule settings and its ``allow``);
* ``columns``: by column name; ``matrix``: the child's rows after the parent's (a row for the same
  MindSpore replaces the parent's);
* ``paths``, ``exclude``, ``benchmarks``: the nearest file that sets them (their globs stay
  relative to the folder of the file that wrote them).

:func:`compose` returns the merged :class:`~perfbot.config.Config`, which remembers where each
value came from (:func:`origins`); ``perfbot config PATH`` prints both.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config_light import find_config_file

if TYPE_CHECKING:
    from .config import Config

# pydantic and perfbot.config are imported by the functions that read configs (chain, compose),
# not here: base_of/origins/files also answer a PlainConfig (perfbot.config_light) without them.

KEYWISE = ("allow", "rules", "aliases", "review", "rerun")
BY_NAME = ("columns",)
APPENDED = ("matrix",)
MAX_DEPTH = 64  # configs above one file; a deeper chain is cut (and a pathological tree)


def chain(nearest: Path) -> list[Path]:
    """The config files that apply, nearest first."""
    from .config import _cached_load

    files = [nearest]
    while len(files) < MAX_DEPTH:
        cur = files[-1]
        if _cached_load(cur).root:
            break
        d = cur.parent
        if (d / ".git").exists() or d.parent == d:
            break
        parent = find_config_file(d.parent)
        if parent is None:
            break
        files.append(parent)
    return files


def _merge(out: dict[str, Any], origins: dict[str, Path], data: dict[str, Any], path: Path) -> None:
    for key, value in data.items():
        if key == "root":
            continue
        if key in KEYWISE and isinstance(value, dict):
            merged = dict(out.get(key, {}))
            for k, v in value.items():
                merged[k] = v
                origins[f"{key}.{k}"] = path
            out[key] = merged
        elif key in BY_NAME:
            merged_cols = {c["name"]: c for c in out.get(key, [])}
            for c in value:
                merged_cols[c["name"]] = c
                origins[f"{key}.{c['name']}"] = path
            out[key] = list(merged_cols.values())
        elif key in APPENDED:
            out[key] = [*out.get(key, []), *value]
            for row in value:
                origins[f"{key}.{row.get('mindspore')}"] = path
        else:
            out[key] = value
            origins[key] = path


@lru_cache(maxsize=256)
def compose(nearest: Path) -> Config:
    """The config of a folder whose nearest config file is ``nearest``, its parents merged in."""
    from pydantic import ValidationError

    from .config import Config, ConfigError, _cached_load, _describe

    files = chain(nearest)
    if len(files) == 1:
        config = _cached_load(nearest)
        origins = {k: nearest for k in _set_keys(config)}
    else:
        data: dict[str, Any] = {}
        origins = {}
        for f in reversed(files):
            _merge(data, origins, _cached_load(f).model_dump(exclude_unset=True), f)
        try:
            config = Config.model_validate(data)
        except ValidationError as e:  # each file was valid alone
            names = ", ".join(str(f) for f in files)
            raise ConfigError(f"{nearest}: merged with {names}: {_describe(e)}") from None
    object.__setattr__(config, "_origins", origins)
    object.__setattr__(config, "_files", tuple(files))
    return config


def _set_keys(config: Config) -> list[str]:
    out: list[str] = []
    for key, value in config.model_dump(exclude_unset=True).items():
        if key in KEYWISE and isinstance(value, dict):
            out += [f"{key}.{k}" for k in value]
        elif key in BY_NAME:
            out += [f"{key}.{c['name']}" for c in value]
        elif key in APPENDED:
            out += [f"{key}.{r.get('mindspore')}" for r in value]
        elif key != "root":
            out.append(key)
    return out


def origins(config: Config) -> dict[str, Path]:
    """Where each value set by a file came from (``allow.ms_per_step`` -> its file)."""
    got = getattr(config, "_origins", None)
    return dict(got) if got else {}


def files(config: Config) -> tuple[Path, ...]:
    """The config files merged into ``config``, nearest first."""
    return getattr(config, "_files", None) or ()


def base_of(config: Config, key: str, default: str) -> str:
    """The folder ``paths`` or ``exclude`` globs are relative to: that of the file that set them."""
    got = origins(config).get(key)
    return str(got.parent) if got is not None else default
