"""Which files are model READMEs, under which config, relative to which folder: the one decision
``perfbot check``, ``fix``, ``review`` and ``post`` share.

A file's config is the nearest ``.perfbot.yml`` above it with its parents merged in
(:mod:`perfbot.config_tree`), or the ``--config`` file. Its ``paths`` and ``exclude`` globs are
relative to the folder of the config file that set them (a nested file's ``rules:`` do not move
the root's ``paths:``), so ``models/a/README.md`` is matched as ``models/a/README.md`` against a
root ``paths: ["models/**/README.md"]`` whatever ``models/a/.perfbot.yml`` says.

The caller brings a *reader* that knows where configs come from: :class:`WorkTree` reads them from
the files on disk (``check``, ``fix``, and ``review`` on a checkout); :class:`OneConfig` gives the
same config to every file (``review`` without a checkout reads no config from the pull request).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .config_tree import base_of, config_for
from .rules import check_names
from .walk import SKIP_DIRS

if TYPE_CHECKING:
    from .config import Config


class Target(NamedTuple):
    """The answer for one file."""

    config: Config
    #: True: check it; False: skip it; None: check it when it holds a Requirements or
    #: Performance table (no ``paths``/``exclude`` decide)
    decision: bool | None
    #: the folder ``config.paths`` is relative to (for the "matched nothing" warning)
    paths_base: str


class Reader(Protocol):
    def config(self, path: str, root: str) -> tuple[Config, str]:
        """(the config of ``path``, the folder its globs are relative to unless a nested file
        set them). Raises :class:`~perfbot.config_read.ConfigError`."""
        ...


class WorkTree:
    """Configs from the files on disk: ``explicit`` (``--config``) for every file, else the
    nearest ``.perfbot.yml`` and its parents."""

    def __init__(self, explicit: str | None = None):
        self.explicit = explicit

    def config(self, path: str, root: str) -> tuple[Config, str]:
        config, found = config_for(path, self.explicit)
        return config, str(found.parent) if found is not None else root


class OneConfig:
    """One config for every file, its globs relative to ``root`` (no checkout to read from)."""

    def __init__(self, config: Config):
        self._config = config

    def config(self, path: str, root: str) -> tuple[Config, str]:
        return self._config, root


def decide(path: str, config: Config, base: str) -> bool | None:
    """``config``'s ``paths``/``exclude`` on the file at ``path``, each glob relative to the folder
    of the config file that set it (``base`` when none did). None: they do not decide."""
    if not config.paths and not config.exclude:
        return None  # the content decides (and the default config needs no pydantic)
    here = os.path.abspath(path)
    rel = os.path.relpath(here, os.path.abspath(base_of(config, "paths", base)))
    ex = os.path.relpath(here, os.path.abspath(base_of(config, "exclude", base)))
    return config.is_model_readme(rel, ex)


def target(path: str, reader: Reader, root: str) -> Target:
    """The config of the file at ``path`` and whether it is a model README. ``root``: the folder
    being checked (the checkout for a review). Raises ConfigError."""
    config, base = reader.config(path, root)
    check_names(config)  # a rule name that is no rule: the config's error, reported as one
    # only a config with `paths` asks where they came from (the default config answers its
    # attributes without pydantic, not where its values came from)
    paths_base = base_of(config, "paths", base) if config.paths else base
    return Target(config, decide(path, config, base), paths_base)


def walked(rel: str) -> bool:
    """Whether walking a tree visits the file at ``rel`` (relative to the walk's root): a
    ``README*.md`` outside hidden folders and ``node_modules`` (:func:`perfbot.walk.walk`; a
    review of a pull request's files asks this instead of walking)."""
    parts = rel.replace("\\", "/").split("/")
    name = parts[-1].lower()
    if not (name.startswith("readme") and name.endswith(".md")):
        return False
    return not any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1])
