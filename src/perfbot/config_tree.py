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

:func:`compose` returns the merged :class:`~perfbot.config_light.Settings`, which remembers where
each value came from (:func:`origins`); ``perfbot config PATH`` prints both. :func:`config_for` is
the door: the settings that govern a file.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from .config_light import DEFAULT, Settings, cached_load
from .config_read import clear_found, find_config_file

KEYWISE = ("allow", "rules", "aliases", "review", "rerun")
BY_NAME = ("columns",)
APPENDED = ("matrix",)
MAX_DEPTH = 64  # configs above one file; a deeper chain is cut (and a pathological tree)


def chain(nearest: Path) -> list[Path]:
    """The config files that apply, nearest first."""
    files = [nearest]
    while len(files) < MAX_DEPTH:
        cur = files[-1]
        if cached_load(cur).root:
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
                if key == "rules":  # a nearer file's names come last: the last naming wins
                    merged.pop(k, None)
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
def compose(nearest: Path) -> Settings:
    """The settings of a folder whose nearest config file is ``nearest``, its parents merged in."""
    files = chain(nearest)
    if len(files) == 1:
        config = cached_load(nearest)
        origins = {k: nearest for k in _set_keys(config.model_dump(exclude_unset=True))}
    else:
        data: dict[str, Any] = {}
        origins = {}
        for f in reversed(files):
            _merge(data, origins, cached_load(f).model_dump(exclude_unset=True), f)
        names = ", ".join(str(f) for f in files)
        # each file was valid alone
        config = Settings.read(data, f"{nearest}: merged with {names}")
    config._origins = origins
    config._files = tuple(files)
    return config


def _set_keys(data: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in data.items():
        if key in KEYWISE and isinstance(value, dict):
            out += [f"{key}.{k}" for k in value]
        elif key in BY_NAME:
            out += [f"{key}.{c['name']}" for c in value]
        elif key in APPENDED:
            out += [f"{key}.{r.get('mindspore')}" for r in value]
        elif key != "root":
            out.append(key)
    return out


def origins(config: Settings) -> dict[str, Path]:
    """Where each value set by a file came from (``allow.ms_per_step`` -> its file)."""
    return dict(config._origins)


def files(config: Settings) -> tuple[Path, ...]:
    """The config files merged into ``config``, nearest first."""
    return config._files


def base_of(config: Settings, key: str, default: str) -> str:
    """The folder ``paths`` or ``exclude`` globs are relative to: that of the file that set them."""
    got = origins(config).get(key)
    return str(got.parent) if got is not None else default


def config_for(
    file: str | Path, explicit: str | Path | None = None
) -> tuple[Settings, Path | None]:
    """The settings governing ``file``: ``explicit`` if given, else the nearest ``.perfbot.yml``
    with its parents merged in, else :data:`~perfbot.config_light.DEFAULT`."""
    if explicit is not None:
        p = Path(explicit)
        return cached_load(p.resolve()), p
    found = find_config_file(os.path.dirname(os.path.abspath(file)))
    if found is None:
        return DEFAULT, None
    return compose(found), found


def clear_caches() -> None:
    """Forget the configs found and read in this process (after a command writes one, or a test
    rewrites one)."""
    clear_found()
    cached_load.cache_clear()
    compose.cache_clear()
