"""The schema of ``.perfbot.yml`` as pydantic models: what words the errors of a file the fast
reader (:mod:`perfbot.config_light`) refuses, what turns the values it would coerce into their
types, and the JSON Schema (``perfbot config --schema``). Imported only then: checking reads a
:class:`~perfbot.config_light.Settings`, never these models.

A new key is a slot of ``Settings`` (and its reading in ``config_light``) plus a field here;
``tests/test_config_plain.py`` holds the two to the same keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .config_read import (
    DEFAULT_RUNNERS,
    RUNNER_LABEL,
    ConfigError,
    check_globs,
)

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


class RerunConfig(_Strict):
    """``rerun:``. perfbot's gate reads it from the repository's default branch only."""

    min_permission: Literal["read", "triage", "write", "maintain", "admin"] = "write"
    slower_threshold: float = Field(0.05, ge=0, allow_inf_nan=False)
    noisy_cv: float = Field(0.05, ge=0, allow_inf_nan=False)
    push: bool = False
    # A fork's approval must name the digest of the plan perfbot replied with
    # (`/perfbot ok-to-test SHA plan=DIGEST`), so what was never shown cannot be approved.
    approve_plan: bool = False
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

    @field_validator("rules", mode="before")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        if isinstance(v, dict):
            # YAML reads a bare `off` as False
            return {k: ("off" if s is False else s) for k, s in v.items()}
        return v

    @field_validator("paths", "exclude")
    @classmethod
    def _globs(cls, v: list[str]) -> list[str]:
        return check_globs(v)


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


def validate_data(data: Any, source: str | Path) -> dict[str, Any]:
    """The settings of ``data`` (read from ``source``) with pydantic's coercions applied, as plain
    data the fast reader takes: only the keys the file set. Raises :class:`ConfigError` naming
    ``source``, the key and what is allowed."""
    try:
        model = Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{source}: {_describe(e)}") from None
    return model.model_dump(exclude_unset=True)
