"""``.perfbot.yml``: what a repository accepts beyond the guide.

Found by walking up from each checked file to the repository root (the folder holding ``.git``),
like ``.mdformat.toml``. Validated with pydantic; a bad key is a :class:`ConfigError` whose message
names the file, the key and what is allowed, never a traceback.

```yaml
paths: ["configs/**/README.md", "examples/*/README.md"]   # which files are model READMEs
exclude: ["**/README_CN.md"]
allow:
  ms_per_step: true        # mindcv / mindyolo write ms/step
  compile_seconds: true    # graph compile written in seconds (77s)
columns:                   # the repository's own optional columns
  - name: acc@top1
    aliases: [top-1]
aliases:                   # more spellings of the guide's columns
  img/s: [imgs/sec]
matrix:                    # add or override matrix rows
  - {mindspore: 2.5.0, driver: 24.1.0, firmware: 7.5.0.3.220, cann: 8.0.0.beta1}
rules:
  PB203: off               # disable a rule (id or slug)
  img-s-mismatch: warning  # change a severity
```
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from .config_light import (
    CONFIG_NAMES,
    ConfigError,
    can_fix,
    check_globs,
    find_config_file,
    rule_names,
    rule_settings,
)
from .config_light import glob_spec as _spec
from .config_read import (  # noqa: F401 - re-exported: perfbot.config is where callers look
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    load_yaml_bounded,
    read_config_data,
)

__all__ = ["CONFIG_NAMES", "Config", "ConfigError", "config_for", "find_config_file", "load_config"]

RuleSetting = Literal["error", "warning", "info", "off"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Allow(_Strict):
    ms_per_step: bool = Field(False, description="accept an `ms/step` column instead of `s/step`")
    compile_seconds: bool = Field(False, description="accept graph compile in seconds (`77s`)")


class ColumnConfig(_Strict):
    name: str
    aliases: list[str] = []
    form: str = "any"

    @field_validator("form")
    @classmethod
    def _known_form(cls, v: str) -> str:
        from .spec.forms import FORMS

        if v not in FORMS:
            raise ValueError(f"unknown form {v!r}; known: {', '.join(sorted(FORMS))}")
        return v


class MatrixRowConfig(_Strict):
    mindspore: str
    driver: str | None = None
    firmware: str | None = None
    cann: str | None = None
    cann_accepted: list[str] | None = Field(
        None,
        description="the CANN this MindSpore accepts besides `cann` (`8.2` = every 8.2.x, or a "
        "release such as `8.1.RC1`): another one is a PB501 error; default: what its wheel says",
    )

    @field_validator("mindspore", "driver", "firmware", "cann", mode="before")
    @classmethod
    def _str(cls, v: Any) -> Any:
        if isinstance(v, int | float) and not isinstance(v, bool):
            # YAML reads `mindspore: 2.10` as the number 2.1: refuse rather than guess
            raise ValueError(f"write versions as quoted strings (YAML read {v!r} as a number)")
        return v


class ReviewConfig(_Strict):
    filter_mode: Literal["added", "diff_context", "file", "nofilter"] = "diff_context"
    max_comments: int = Field(50, ge=0)


RUNNER_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
DEFAULT_RUNNERS: tuple[tuple[str, ...], ...] = (("self-hosted", "ascend"),)


class RerunConfig(_Strict):
    """``rerun:``. perfbot's gate reads it from the repository's default branch only."""

    min_permission: Literal["read", "triage", "write", "maintain", "admin"] = "write"
    slower_threshold: float = Field(0.05, ge=0, allow_inf_nan=False)
    noisy_cv: float = Field(0.05, ge=0, allow_inf_nan=False)
    push: bool = False
    # The runner label sets a benchmark's `runs_on` may name (compared as sets, ignoring case);
    # any other set is refused, so a pull request cannot reach other runners of the repository.
    runners: list[list[str]] = Field(
        default_factory=lambda: [list(r) for r in DEFAULT_RUNNERS], max_length=100
    )

    @field_validator("runners")
    @classmethod
    def _label_sets(cls, v: list[list[str]]) -> list[list[str]]:
        for labels in v:
            if not labels or len(labels) > 20:
                raise ValueError("each entry is a list of 1 to 20 runner labels")
            for label in labels:
                if not RUNNER_LABEL.fullmatch(label):
                    raise ValueError(
                        f"{label[:40]!r} is not a runner label (letters, digits, `.`, `_`, `-`)"
                    )
        return v

    def allows_runner(self, labels: list[str] | tuple[str, ...]) -> bool:
        """Whether a benchmark may run on ``labels``: exactly one of the allowed label sets."""
        want = {x.lower() for x in labels}
        return any(want == {x.lower() for x in allowed} for allowed in self.runners)


class Config(_Strict):
    root: bool = Field(
        False, description="do not extend the .perfbot.yml files of the folders above this one"
    )
    paths: list[str] = []
    exclude: list[str] = []
    allow: Allow = Allow()
    columns: list[ColumnConfig] = []
    aliases: dict[str, list[str]] = {}
    matrix: list[MatrixRowConfig] = []
    rules: dict[str, RuleSetting] = {}
    # ruff's fixable / unfixable: which rules' fixes exist at all (ids, slugs or id prefixes)
    fixable: list[str] | None = Field(
        None, description="only these rules offer fixes (default: every rule that can)"
    )
    unfixable: list[str] = Field(
        [], description="these rules never offer a fix (not in `perfbot fix`, not in the review)"
    )
    review: ReviewConfig = ReviewConfig()
    rerun: RerunConfig = RerunConfig()
    benchmarks: list[dict[str, Any]] = []  # validated by perfbot.runner when used
    # set by perfbot.config_tree: which file set each value, and the files merged (nearest first)
    _origins: dict[str, Path] = PrivateAttr(default_factory=dict)
    _files: tuple[Path, ...] = PrivateAttr(default=())

    @field_validator("rules", mode="before")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        if isinstance(v, dict):
            # YAML reads a bare `off` as False
            return {k: ("off" if s is False else s) for k, s in v.items()}
        return v

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, v: dict[str, str]) -> dict[str, str]:
        # keys in any spelling (PB401, pb401, img-s-mismatch, IMG-S-MISMATCH) become rule ids
        return rule_settings(v)

    @field_validator("paths", "exclude")
    @classmethod
    def _globs(cls, v: list[str]) -> list[str]:
        return check_globs(v)

    @field_validator("fixable", "unfixable")
    @classmethod
    def _rule_names(cls, v: list[str] | None) -> list[str] | None:
        return v if v is None else rule_names(v)

    def can_fix(self, rule_id: str) -> bool:
        """Whether ``fixable``/``unfixable`` let this rule offer its fixes."""
        return can_fix(rule_id, self.fixable, self.unfixable)

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        """This repository's setting for a rule (its id), or None."""
        return self.rules.get(rule_id)

    def is_model_readme(self, rel: str, exclude_rel: str | None = None) -> bool | None:
        """True/False when ``paths``/``exclude`` decide; None when the content must (default).

        ``rel`` is the file's path relative to the folder the ``paths`` globs are relative to;
        ``exclude_rel`` (default ``rel``) the same for ``exclude`` (they can come from two
        nested config files)."""
        rel = rel.replace("\\", "/")
        ex = rel if exclude_rel is None else exclude_rel.replace("\\", "/")
        if self.exclude and _spec(tuple(self.exclude)).match_file(ex):
            return False
        if self.paths:
            return _spec(tuple(self.paths)).match_file(rel)
        return None


def _glob(rel: str, pattern: str) -> bool:
    return _spec((pattern,)).match_file(rel)


def _describe(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")  # pydantic's wording, not ours
        if err["type"] == "extra_forbidden":
            msg = "unknown key" + _meant(err["loc"])
        elif err["type"] == "list_type":
            msg = "must be a list (one item: `[...]` around it)"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


def _is_model(model: Any) -> bool:
    return isinstance(model, type) and issubclass(model, BaseModel)


def _meant(loc: tuple[Any, ...]) -> str:
    """ "; did you mean 'x'?" for an unknown key close to a known one at the same place, or, for
    a rule written at the top level, where it goes."""
    import difflib

    key = str(loc[-1]) if loc else ""
    model: Any = Config
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) if _is_model(model) else None
        annotation = field.annotation if field is not None else None
        inner = getattr(annotation, "__args__", None) or (annotation,)
        model = next((t for t in inner if isinstance(t, type) and issubclass(t, BaseModel)), None)
        if model is None:
            return ""
    if model is Config and len(loc) == 1:
        from .spec.rule_names import rule_id

        if rule_id(key) is not None:
            return f"; rule settings go under `rules:` (rules: {{{key}: ...}})"
    known = list(model.model_fields) if _is_model(model) else []
    guess = difflib.get_close_matches(key.replace("-", "_"), known, 1)
    return f"; did you mean '{guess[0]}'?" if guess else ""


def load_config(path: str | Path) -> Config:
    p = Path(path)
    data = read_config_data(p)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{p}: {_describe(e)}") from None


@lru_cache(maxsize=1)
def _default_config() -> Config:
    return Config()


@lru_cache(maxsize=64)
def _cached_load(path: Path) -> Config:
    return load_config(path)


def clear_caches() -> None:
    """Forget the configs found and read in this process (after a command writes one, or a test
    rewrites one)."""
    from .config_light import _plain, clear_found
    from .config_tree import compose

    clear_found()
    _cached_load.cache_clear()
    _plain.cache_clear()
    compose.cache_clear()


def config_for(file: str | Path, explicit: str | Path | None = None) -> tuple[Config, Path | None]:
    """The config governing ``file``: ``explicit`` if given, else the nearest ``.perfbot.yml``."""
    if explicit is not None:
        p = Path(explicit)
        return _cached_load(p.resolve()), p
    found = find_config_file(os.path.dirname(os.path.abspath(file)))
    if found is None:
        return _default_config(), None
    from .config_tree import compose

    return compose(found), found
