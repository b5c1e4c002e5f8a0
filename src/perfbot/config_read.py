"""Reading a ``.perfbot.yml`` into plain data: finding the file, untrusted YAML (bounded), and
the checks of values the fast reader (:mod:`perfbot.config_light`) and the schema
(:mod:`perfbot.config_schema`) share. A leaf: no pydantic, no other config module.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path
from typing import Any

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


# `rerun.runners`: the runner label sets a benchmark's `runs_on` may name
RUNNER_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
DEFAULT_RUNNERS: tuple[tuple[str, ...], ...] = (("self-hosted", "ascend"),)

# A .perfbot.yml is a few hundred bytes; anything near these limits is hostile or a mistake.
MAX_CONFIG_BYTES = 256 * 1024
MAX_CONFIG_DEPTH = 32


@lru_cache(maxsize=1)
def _loader_class() -> Any:
    """PyYAML's safe loader without anchors and aliases (no "billion laughs": a document is never
    larger than its text) and with a nesting limit (no RecursionError in the composer). Made on
    first use: PyYAML is imported only when a config file is read."""
    import yaml

    class _BoundedLoader(yaml.SafeLoader):
        def __init__(self, stream: str, source_name: str):
            super().__init__(stream)
            self._source_name = source_name
            self._depth = 0

        def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise ConfigError(
                    f"{self._source_name}: YAML anchors and aliases (&name, *name) are not "
                    f"allowed{_at(event)}; write the values out"
                )
            self._depth += 1
            try:
                if self._depth > MAX_CONFIG_DEPTH:
                    raise ConfigError(
                        f"{self._source_name}: nested more than {MAX_CONFIG_DEPTH} levels deep"
                        f"{_at(event)}"
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return _BoundedLoader


def _at(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def load_yaml_bounded(text: str | bytes, source_name: str) -> Any:
    """Parse untrusted YAML (a ``.perfbot.yml`` from a pull request, a branch, a checkout).

    At most :data:`MAX_CONFIG_BYTES`, UTF-8 (a BOM is allowed), no anchors or aliases, at most
    :data:`MAX_CONFIG_DEPTH` levels of nesting, safe tags only. Every problem, whatever PyYAML or
    Python raises inside, is a :class:`ConfigError` whose message starts with ``source_name``;
    nothing else escapes. Returns the plain data (``None`` for an empty document).
    """
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{source_name}: {size} bytes; a config file may be at most {MAX_CONFIG_BYTES} bytes"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ConfigError(
                f"{source_name}: not UTF-8 (byte 0x{text[e.start]:02x} at offset {e.start})"
            ) from None
    import yaml

    text = text.removeprefix("\ufeff")
    loader = _loader_class()(text, source_name)
    try:
        return loader.get_single_data()
    except ConfigError:
        raise
    except yaml.YAMLError as e:
        raise ConfigError(f"{source_name}: not valid YAML: {_yaml_problem(e)}") from None
    except RecursionError:
        raise ConfigError(f"{source_name}: nested too deeply") from None
    except Exception as e:  # e.g. ValueError: an int of more than 4300 digits
        raise ConfigError(f"{source_name}: not a usable YAML value: {e}") from None
    finally:
        loader.dispose()


def _yaml_problem(e: Any) -> str:
    """PyYAML's error on one line: the problem and where (not its multi-line excerpt)."""
    import yaml

    if isinstance(e, yaml.MarkedYAMLError) and (e.problem or e.context):
        what = e.problem or e.context or ""
        mark = e.problem_mark or e.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        tab = "; YAML indents with spaces, not tabs" if "'\\t'" in what else ""
        return f"{what}{where}{tab}"
    return " ".join(str(e).split())


def read_config_data(p: Path) -> dict[str, Any]:
    """The settings of the config file ``p`` as plain data (a mapping), or :class:`ConfigError`."""
    from .source import UnsafeFileError, read_bytes_bounded

    try:
        data_bytes = read_bytes_bounded(p, MAX_CONFIG_BYTES)
    except UnsafeFileError as e:
        raise ConfigError(f"{p}: {str(e).replace('file is ', '', 1)}") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    data = load_yaml_bounded(data_bytes, str(p))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping of settings at the top level")
    return data


# --- checks of values, shared by the fast reader and the schema ---------------------------------


def check_globs(patterns: list[str]) -> list[str]:
    """``paths``/``exclude``: a glob too costly to match, or one git would not read (``!``
    alone, a trailing ``\\``), is refused (ValueError), so it is the config's error, not a crash
    when the first path is matched."""
    if not patterns:
        return patterns  # (no pathspec import for the default settings)
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


def can_fix(
    rule_id: str, fixable: list[str] | None, unfixable: list[str] | None, slug: str = ""
) -> bool:
    """Whether ``fixable``/``unfixable`` (rule ids, slugs, ``ALL`` or id prefixes, any case) let
    this rule offer its fixes: not named in ``unfixable``, and named in ``fixable`` when set."""

    def named(names: list[str]) -> bool:
        return any(
            (up := n.upper()) == "ALL" or rule_id.startswith(up) or (slug and n.lower() == slug)
            for n in names
        )

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
