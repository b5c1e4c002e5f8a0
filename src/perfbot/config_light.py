"""What checking needs of the config when there is no ``.perfbot.yml``, without pydantic.

Most READMEs have no config file above them (the pre-commit case: one README, a fresh process).
:func:`config_for` answers those with :data:`DEFAULT`, a plain object holding the defaults of
:class:`perfbot.config.Config` that checking reads; anything else asked of it (``model_copy``,
``review``, ``rerun``, a field added later) is answered by a real ``Config()``, built on first use.
Only a found or named config file imports :mod:`perfbot.config` (pydantic, the config classes).
``tests/test_speed.py`` holds :data:`DEFAULT` to ``Config()`` field by field.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from .config import Config

CONFIG_NAMES = (".perfbot.yml", ".perfbot.yaml")


class ConfigError(Exception):
    """A config file that perfbot cannot use; the message is for the user."""


_FOUND: dict[Path, Path | None] = {}  # folder -> its config file; sibling folders share the walk


def find_config_file(directory: Path) -> Path | None:
    """The nearest config file in ``directory`` or above it, up to the repository root.

    A loop, not a recursion: a tree thousands of folders deep is an ordinary input."""
    chain: list[Path] = []
    d = directory
    while True:
        if d in _FOUND:
            found = _FOUND[d]
            break
        chain.append(d)
        found = next((d / n for n in CONFIG_NAMES if (d / n).is_file()), None)
        if found is not None or (d / ".git").exists() or d.parent == d:
            break
        d = d.parent
    if len(_FOUND) > 65536:
        _FOUND.clear()
    for c in chain:
        _FOUND[c] = found
    return found


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

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        return None

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
    """:func:`perfbot.config.config_for`, with :data:`DEFAULT` when no config file applies."""
    if explicit is None and find_config_file(Path(os.path.abspath(file)).parent) is None:
        return DEFAULT, None  # type: ignore[return-value]
    from .config import config_for as full

    return full(file, explicit)
