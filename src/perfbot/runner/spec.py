"""`BenchmarkSpec`: one benchmark declared under `benchmarks:` in a repository's `.perfbot.yml`.

Field descriptions here are user documentation (they are mirrored in `docs/runner.md`).
The model never runs anything; `perfbot.runner.bench` does.
"""

from __future__ import annotations

import difflib
import re
import shlex
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = [
    "BenchmarkSpec",
    "LogFormat",
    "SpecError",
    "format_validation_error",
    "load_benchmarks",
    "validate_benchmarks",
]

MAX_TIMEOUT = 6 * 3600  # seconds: the bench job's `timeout-minutes: 360` in the example workflow
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # used with fullmatch: no "\n" at the end
MAX_REGEX = 500  # characters of a user `regex:`
MAX_REGEX_DEPTH = 10  # nested groups in it
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|secs|m|min|mins|h|hr|hrs)?\s*$", re.I)
_DURATION_UNIT = {"s": 1, "sec": 1, "secs": 1, "m": 60, "min": 60, "mins": 60, "h": 3600}
_DURATION_UNIT |= {"hr": 3600, "hrs": 3600}


class SpecError(ValueError):
    """A `.perfbot.yml` benchmarks problem, worded for the user (no traceback needed)."""


class LogFormat(StrEnum):
    """How to read step times from a training log (see docs/runner.md, "Log formats")."""

    auto = "auto"
    mindone = "mindone"
    mindone_result = "mindone_result"
    perf_recorder = "perf_recorder"
    mindcv = "mindcv"
    mindcv_result = "mindcv_result"
    mindocr_result = "mindocr_result"
    mindyolo = "mindyolo"
    mindocr = "mindocr"
    timemonitor = "timemonitor"
    mindaudio = "mindaudio"
    regex = "regex"


class BenchmarkSpec(BaseModel):
    """One benchmark: which README row it measures and how to run and read the training command."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        description=(
            "Unique name of the benchmark, used by `perfbot bench --name` and in the CI matrix. "
            "Letters, digits, `.`, `_` and `-` only, e.g. `dit-256-8p`."
        )
    )
    readme: str = Field(
        description="Path of the README whose Performance table this benchmark fills, relative "
        "to the directory of `.perfbot.yml`, e.g. `examples/dit/README.md`."
    )
    row: dict[str, str] | int = Field(
        description=(
            "Which row of the README's Performance table(s) the result belongs to. Either a "
            "mapping of column name to cell value that must all match (case-insensitive, e.g. "
            '`{"model name": "dit", "cards": 8}`), or a 1-based index of the data row among all '
            "performance-table rows of the README, in document order (1 = first data row). "
            "YAML booleans are read as `ON`/`OFF` (`sink: ON` parses as true in YAML)."
        )
    )
    command: list[str] = Field(
        description=(
            "The training command. A list of arguments (recommended), or a string split like a "
            "POSIX shell would split it (`shlex.split`) but never run through a shell: no pipes, "
            "redirections, `&&` or `$VAR` expansion. Use `env` for variables."
        )
    )
    workdir: str = Field(
        default=".",
        description="Directory the command runs in, relative to the directory of `.perfbot.yml`.",
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Extra environment variables for the command (numbers are turned into strings). "
            "perfbot also sets `PYTHONUNBUFFERED=1` and `MS_COMPILER_CACHE_ENABLE=0` unless you "
            "set them, so graph compile time is measured from scratch."
        ),
    )
    cards: int = Field(gt=0, description="Number of NPUs (cards) the command trains on.")
    batch_size: int = Field(gt=0, description="Batch size per card.")
    steps: int | None = Field(
        default=None,
        gt=0,
        description=(
            "Number of training steps the command is expected to run. Optional; when set, perfbot "
            "notes in the result if it measured fewer steps. Keep it small (e.g. 100-300): "
            "perfbot needs only a few dozen steady steps."
        ),
    )
    steps_per_epoch: int | None = Field(
        default=None,
        gt=0,
        description=(
            "Steps in one epoch. Needed only for per-epoch result files that do not say it "
            "(`mindcv_result`, `mindocr_result`)."
        ),
    )
    warmup: int = Field(
        default=5,
        ge=0,
        description=(
            "Number of first steps not counted in s/step (warm-up). Step 1, which holds graph "
            "compile, is never counted, nor in sink mode the first epoch."
        ),
    )
    timeout: float = Field(
        default=3600,
        gt=0,
        le=MAX_TIMEOUT,
        allow_inf_nan=False,
        description=(
            "Seconds after which the command (its whole process group) is killed and the "
            "benchmark reports `timeout`. Also accepts `90m`, `2h`, `600s`. At most 6 hours "
            "(the example workflow's `timeout-minutes: 360` for the job)."
        ),
    )
    max_output_mb: float = Field(
        default=2048,
        gt=0,
        allow_inf_nan=False,
        description=(
            "Megabytes (MiB) of stdout+stderr the command may write: past them its process "
            "tree is killed and the benchmark fails, before a runaway trainer fills the "
            "runner's disk. What the output holds by then is still measured."
        ),
    )
    log: str | None = Field(
        default=None,
        description=(
            "File to read step times from, relative to `workdir`; a glob such as "
            "`output/*/result.log` picks the newest match written during the run. "
            "Default: the command's own stdout and stderr."
        ),
    )
    log_format: LogFormat = Field(
        default=LogFormat.auto,
        description=(
            "Format of the log: `auto` (detect), `mindone`, `mindone_result`, `perf_recorder`, "
            "`mindcv`, `mindcv_result`, `mindocr_result`, `mindyolo`, `mindocr`, `timemonitor`, "
            "`mindaudio` or `regex`."
        ),
    )
    regex: str | None = Field(
        default=None,
        description=(
            "With `log_format: regex`: a Python regular expression matched against each log line, "
            "with a named group `ms` (milliseconds per step) or `s` (seconds per step), and "
            "optionally `step` (global step number; then a line averages the steps since the "
            "previous match). Setting `regex` implies `log_format: regex`."
        ),
    )
    regex_times: Literal["step", "epoch"] = Field(
        default="step",
        description=(
            "With `regex`: whether each match is one step (or, with a `step` group, a window of "
            "steps) or one epoch. With `epoch`, the `ms`/`s` group is that epoch's time per step "
            "and each epoch covers `steps_per_epoch` steps (required), so graph compile is the "
            "first epoch minus a steady one."
        ),
    )
    python: str | None = Field(
        default=None,
        description=(
            "The Python interpreter the benchmark's training runs on (a path, or a name looked "
            "up on the benchmark's PATH), when the command does not name it: e.g. a `bash` "
            "script that starts `/opt/ms/bin/python`. perfbot reads the MindSpore version from "
            "that interpreter's installed packages (their metadata, without importing "
            "anything). Default: the command's own `python`, or the interpreter of a console "
            "script such as `msrun` (its `#!` line)."
        ),
    )
    mode: Literal["auto", "graph", "pynative"] = Field(
        default="auto",
        description=(
            "MindSpore execution mode of the run. `auto`: PyNative when the command says so "
            "(`--mode 1`, `--ms_mode 1`, `system.mode=1`, ...) or the log's mode banner does "
            "(mindcv: `MindSpore mode[GRAPH(0)/PYNATIVE(1)]: 1`), else graph. A PyNative run has "
            "no graph compile: it is not reported."
        ),
    )
    sink_mode: bool = Field(
        default=False,
        description=(
            "The command trains in data-sink mode, so the log has one line per epoch: s/step comes "
            "from per-epoch times and graph compile is the first epoch minus a steady epoch."
        ),
    )
    runs_on: list[str] = Field(
        default_factory=lambda: ["self-hosted", "ascend"],
        description=(
            "GitHub Actions runner labels for the CI job that runs this benchmark. "
            "`/perfbot rerun` runs it only if this set is one of `rerun.runners` in "
            "`.perfbot.yml` on the default branch."
        ),
    )
    inference: bool = Field(
        default=False,
        description=(
            "The row is an inference row: s/step is one sampling step and "
            "img/s = cards x batch size / (sampling_steps x s/step)."
        ),
    )
    sampling_steps: int | None = Field(
        default=None,
        gt=0,
        description="Sampling steps per image (the `steps` column); required with `inference`.",
    )
    outlier_seconds: float = Field(
        default=100.0,
        gt=0,
        description=(
            "Steps at least this long (seconds) are treated as checkpoint saving and dropped, "
            "unless every step is that long."
        ),
    )
    outlier_factor: float = Field(
        default=10.0,
        gt=1,
        description="Steps longer than this many times the median step are dropped as outliers.",
    )

    # ---- validators -------------------------------------------------------------------------

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        if not _NAME_RE.fullmatch(v):
            raise ValueError(
                "use letters, digits, '.', '_' and '-' only (at most 100), starting with a "
                "letter or digit"
            )
        return v

    @field_validator("readme", "workdir")
    @classmethod
    def _check_path(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()

    @field_validator("python")
    @classmethod
    def _check_python(cls, v: str | None) -> str | None:
        if v is None:
            return v
        v = v.strip()
        if not v or any(c in v for c in "\n\r\0"):
            raise ValueError("must be the path or the name of a Python interpreter")
        return v

    @field_validator("row", mode="before")
    @classmethod
    def _norm_row(cls, v: Any) -> Any:
        if isinstance(v, bool):
            raise ValueError("must be a mapping of column to value, or a row number")
        if isinstance(v, int):
            if v < 1:
                raise ValueError("a row number is 1-based: 1 is the first data row")
            return v
        if isinstance(v, dict):
            if not v:
                raise ValueError("must name at least one column")
            out: dict[str, str] = {}
            for key, value in v.items():
                out[str(key).strip().lower()] = _cell_text(value)
            return out
        raise ValueError("must be a mapping of column to value, or a row number")

    @field_validator("command", mode="before")
    @classmethod
    def _split_command(cls, v: Any) -> Any:
        if isinstance(v, str):
            try:
                v = shlex.split(v)
            except ValueError as exc:
                raise ValueError(f"cannot split the command string: {exc}") from None
        if isinstance(v, list):
            if not v:
                raise ValueError("must not be empty")
            out = []
            for arg in v:
                if isinstance(arg, bool) or not isinstance(arg, str | int | float):
                    raise ValueError("every argument must be a string or a number")
                out.append(str(arg))
            if not out[0].strip():
                raise ValueError("the program name must not be empty")
            return out
        return v

    @field_validator("env", mode="before")
    @classmethod
    def _norm_env(cls, v: Any) -> Any:
        if v is None:
            return {}
        if not isinstance(v, dict):
            return v
        out: dict[str, str] = {}
        for key, value in v.items():
            if isinstance(value, bool):
                raise ValueError(f"{key}: quote the value ('{str(value).lower()}' or '1'/'0')")
            if value is None:
                raise ValueError(f"{key}: has no value")
            if not isinstance(value, str | int | float):
                raise ValueError(f"{key}: must be a string or a number")
            out[str(key)] = str(value)
        return out

    @field_validator("timeout", mode="before")
    @classmethod
    def _parse_timeout(cls, v: Any) -> Any:
        if isinstance(v, str):
            m = _DURATION_RE.match(v)
            if not m:
                raise ValueError("use seconds (3600) or a duration such as '90m' or '2h'")
            return float(m.group(1)) * _DURATION_UNIT[(m.group(2) or "s").lower()]
        return v

    @field_validator("runs_on", mode="before")
    @classmethod
    def _norm_runs_on(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = [v]
        if isinstance(v, list) and not v:
            raise ValueError("needs at least one runner label")
        return v

    @field_validator("regex")
    @classmethod
    def _check_regex(cls, v: str | None) -> str | None:
        if v is None:
            return v
        problem = regex_problem(v)
        if problem:
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _check_combinations(self) -> BenchmarkSpec:
        if self.regex is not None and self.log_format is LogFormat.auto:
            self.log_format = LogFormat.regex
        if self.log_format is LogFormat.regex and self.regex is None:
            raise ValueError("log_format 'regex' needs a 'regex' with a named group ms or s")
        if self.regex is not None and self.log_format is not LogFormat.regex:
            raise ValueError(f"'regex' is only used with log_format 'regex', not {self.log_format}")
        if self.regex_times == "epoch" and self.log_format is not LogFormat.regex:
            raise ValueError("'regex_times' is only used with a 'regex'")
        if self.regex_times == "epoch" and self.steps_per_epoch is None:
            raise ValueError("'regex_times: epoch' needs 'steps_per_epoch'")
        per_epoch = (LogFormat.mindcv_result, LogFormat.mindocr_result)
        if self.log_format in per_epoch and self.steps_per_epoch is None:
            raise ValueError(
                f"log_format '{self.log_format}' gives one time per epoch: set 'steps_per_epoch'"
            )
        if self.inference and self.sampling_steps is None:
            raise ValueError("'inference: true' needs 'sampling_steps' (the steps column)")
        if self.sampling_steps is not None and not self.inference:
            raise ValueError("'sampling_steps' is only used with 'inference: true'")
        return self


def _group_depth(regex: str) -> int:
    """The deepest nesting of parentheses in ``regex`` (escapes and character classes skipped),
    counted before compiling: a deep pattern would exhaust the compiler's recursion."""
    depth = deepest = 0
    i, n, in_class = 0, len(regex), False
    while i < n:
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if regex[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth = max(depth - 1, 0)
        i += 1
    return deepest


def _backtracks(items: Any, under_repeat: bool) -> str | None:
    """Why the parsed pattern ``items`` can backtrack exponentially, or None."""
    from re import _constants as c  # type: ignore[attr-defined]

    repeats = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
    stack = [(items, under_repeat)]
    while stack:
        seq, under = stack.pop()
        for op, av in seq:
            if op in repeats:
                _lo, hi, body = av
                if under and hi > 1:
                    return "a quantifier inside a quantified group (such as `(a+)+`)"
                stack.append((body, under or hi > 1))
            elif op is c.BRANCH:
                if under:
                    return "alternatives inside a quantified group (such as `(a|ab)*`)"
                stack.extend((b, under) for b in av[1])
            elif op is c.SUBPATTERN:
                stack.append((av[-1], under))
            elif op in (c.ASSERT, c.ASSERT_NOT):
                stack.append((av[1], under))
            elif op in (c.GROUPREF, c.GROUPREF_EXISTS):
                return "a backreference"
            elif op is c.ATOMIC_GROUP:
                stack.append((av, under))
    return None


def regex_problem(regex: str) -> str | None:
    """Why a user ``regex:`` is refused, or None. It is matched against every line of a log
    the pull request's code writes, after the benchmark: a pattern that can backtrack
    exponentially (nested quantifiers, quantified alternatives, backreferences) could hold the
    runner for hours, so it is refused here; what is left runs under the parse deadline."""
    import re._parser as sre_parse  # type: ignore[import-not-found]

    if len(regex) > MAX_REGEX:
        return f"is {len(regex)} characters long; at most {MAX_REGEX}"
    if _group_depth(regex) > MAX_REGEX_DEPTH:
        return f"nests groups more than {MAX_REGEX_DEPTH} deep"
    try:
        pattern = re.compile(regex)
        parsed = sre_parse.parse(regex)
    except re.error as exc:
        return f"not a valid regular expression: {exc}"
    except (RecursionError, OverflowError, ValueError, TypeError) as exc:
        return f"not a usable regular expression: {type(exc).__name__}"
    why = _backtracks(parsed, False)
    if why:
        return (
            f"{why} can take exponential time on a long log line; write it without (for "
            "example `time: (?P<s>[0-9.]+)`)"
        )
    groups = pattern.groupindex
    if ("ms" in groups) == ("s" in groups):
        return "needs exactly one named group: (?P<ms>...) or (?P<s>...)"
    return None


def _cell_text(value: Any) -> str:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if value is None:
        return ""
    return str(value).strip()


# ---- loading ------------------------------------------------------------------------------


def format_validation_error(exc: ValidationError, where: str) -> list[str]:
    """One user-facing line per problem, e.g. `benchmarks[2] (dit-8p): cards: must be > 0`."""
    known = set(BenchmarkSpec.model_fields)
    lines = []
    for err in exc.errors(include_url=False):
        loc = [str(p) for p in err.get("loc", ())]
        field = ".".join(loc)
        msg = err.get("msg", "invalid")
        msg = msg.removeprefix("Value error, ")
        if err.get("type") == "extra_forbidden" and loc:
            guess = difflib.get_close_matches(loc[0].replace("-", "_").replace(" ", "_"), known, 1)
            msg = "unknown key" + (f"; did you mean '{guess[0]}'?" if guess else "")
        elif err.get("type") == "missing":
            msg = "missing (required)"
        lines.append(f"{where}: {field}: {msg}" if field else f"{where}: {msg}")
    return lines


def validate_benchmarks(data: Any, *, source: str = ".perfbot.yml") -> list[BenchmarkSpec]:
    """Validate the value of the `benchmarks:` key (a list of mappings).

    Raises `SpecError` with every problem, one per line, worded for the user.
    """
    if data is None:
        return []
    if not isinstance(data, list):
        raise SpecError(f"{source}: 'benchmarks' must be a list of benchmarks")
    specs: list[BenchmarkSpec] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(data):
        label = f"{source}: benchmarks[{i}]"
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            label += f" ({item['name']})"
        if not isinstance(item, dict):
            problems.append(f"{label}: must be a mapping of keys such as name, readme, command")
            continue
        try:
            spec = BenchmarkSpec.model_validate(item)
        except ValidationError as exc:
            problems.extend(format_validation_error(exc, label))
            continue
        if spec.name in seen:
            problems.append(
                f"{label}: name '{spec.name}' is already used by benchmarks[{seen[spec.name]}]"
            )
            continue
        seen[spec.name] = i
        specs.append(spec)
    if problems:
        raise SpecError("\n".join(problems))
    return specs


def load_benchmarks(path: str | Path) -> list[BenchmarkSpec]:
    """Read `path` (a `.perfbot.yml`) with PyYAML and validate its `benchmarks:` list.

    Only the `benchmarks` key is read; the rest of the file belongs to `perfbot.config`.
    Raises `SpecError` (user-facing message) on any problem.
    """
    from perfbot.config import MAX_CONFIG_BYTES, ConfigError, load_yaml_bounded

    p = Path(path)
    try:
        with p.open("rb") as fh:
            if not p.is_file():
                raise SpecError(f"{p}: not a regular file")
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(f"{p}: no such file") from None
    except OSError as exc:
        raise SpecError(f"{p}: cannot read: {exc}") from None
    # the head's config is the pull request's text: no anchors/aliases, bounded size and depth
    try:
        data = load_yaml_bounded(raw, str(p))
    except ConfigError as exc:
        raise SpecError(str(exc)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SpecError(f"{p}: must be a mapping with a 'benchmarks:' list")
    if "benchmarks" not in data:
        raise SpecError(f"{p}: has no 'benchmarks:' list")
    specs = validate_benchmarks(data["benchmarks"], source=str(p))
    if not specs:
        raise SpecError(f"{p}: 'benchmarks:' is empty")
    return specs
