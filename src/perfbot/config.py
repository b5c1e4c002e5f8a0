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

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .config_light import CONFIG_NAMES, ConfigError, find_config_file

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
    paths: list[str] = []
    exclude: list[str] = []
    allow: Allow = Allow()
    columns: list[ColumnConfig] = []
    aliases: dict[str, list[str]] = {}
    matrix: list[MatrixRowConfig] = []
    rules: dict[str, RuleSetting] = {}
    review: ReviewConfig = ReviewConfig()
    rerun: RerunConfig = RerunConfig()
    benchmarks: list[dict[str, Any]] = []  # validated by perfbot.runner when used

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
        from .registry import all_rules, get_rule

        all_rules()
        unknown = [k for k in v if get_rule(k) is None]
        if unknown:
            raise ValueError(f"unknown rule {', '.join(map(repr, unknown))} (see `perfbot rules`)")
        # keys in any spelling (PB401, pb401, img-s-mismatch, IMG-S-MISMATCH) become rule ids
        return {get_rule(k).id: s for k, s in v.items()}  # type: ignore[union-attr]

    def setting(self, rule_id: str, slug: str = "") -> str | None:
        """This repository's setting for a rule (its id), or None."""
        return self.rules.get(rule_id)

    def is_model_readme(self, rel: str) -> bool | None:
        """True/False when ``paths``/``exclude`` decide; None when the content must (default)."""
        rel = rel.replace("\\", "/")
        if any(_glob(rel, p) for p in self.exclude):
            return False
        if self.paths:
            return any(_glob(rel, p) for p in self.paths)
        return None


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob: `*` and `?` stay within one folder, `**/` is any number of folders."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _glob(rel: str, pattern: str) -> bool:
    return _glob_regex(pattern.removeprefix("./")).match(rel) is not None


def _describe(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts)


# A .perfbot.yml is a few hundred bytes; anything near these limits is hostile or a mistake.
MAX_CONFIG_BYTES = 256 * 1024
MAX_CONFIG_DEPTH = 32


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader without anchors and aliases (no "billion laughs": a document is never
    larger than its text) and with a nesting limit (no RecursionError in the composer)."""

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
    text = text.removeprefix("\ufeff")
    loader = _BoundedLoader(text, source_name)
    try:
        return loader.get_single_data()
    except ConfigError:
        raise
    except yaml.YAMLError as e:
        raise ConfigError(f"{source_name}: not valid YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{source_name}: nested too deeply") from None
    except Exception as e:  # e.g. ValueError: an int of more than 4300 digits
        raise ConfigError(f"{source_name}: not a usable YAML value: {e}") from None
    finally:
        loader.dispose()


def load_config(path: str | Path) -> Config:
    p = Path(path)
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


def config_for(file: str | Path, explicit: str | Path | None = None) -> tuple[Config, Path | None]:
    """The config governing ``file``: ``explicit`` if given, else the nearest ``.perfbot.yml``."""
    if explicit is not None:
        p = Path(explicit)
        return _cached_load(p.resolve()), p
    found = find_config_file(Path(os.path.abspath(file)).parent)
    if found is None:
        return _default_config(), None
    return _cached_load(found), found
