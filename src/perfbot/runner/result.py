"""The result of one `perfbot bench` run (`BenchResult`, as written to the results JSON) and the
results files: writing one, reading them back."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from perfbot import __version__
from perfbot.runner.envinfo import EnvInfo

__all__ = ["BenchResult", "RankResult", "ResultsError", "StepTime", "load_results", "write_result"]

Status = Literal["ok", "failed", "timeout", "no_samples"]


class ResultsError(ValueError):
    """A results file cannot be read (message is for the user)."""


class StepTime(BaseModel):
    """One parsed sample: per-step seconds of `span` steps ending at `step`."""

    step: int
    seconds: float
    span: int = 1
    kind: Literal["step", "epoch"] = "step"


class RankResult(BaseModel):
    """One rank's own figures, when the benchmark's `log` glob names one log per rank."""

    rank: int | None = Field(description="Rank number from the file name, if it has one")
    log_path: str
    log_format: str | None = None
    s_per_step: float | None = None
    graph_compile_s: float | None = None
    steps_measured: int = 0
    message: str = Field(default="", description="Why this rank gave no s/step, if it did not")


class BenchResult(BaseModel):
    """The outcome of one benchmark run, as written to the results JSON."""

    schema_version: int = Field(default=1, description="Version of this JSON layout")
    name: str = Field(description="The benchmark's name in .perfbot.yml")
    readme: str = Field(description="README the row belongs to (relative to .perfbot.yml)")
    row: dict[str, str] | int = Field(description="The row selector from the benchmark")
    status: Status = Field(
        description="ok: measured; failed: non-zero exit; timeout: killed after the timeout; "
        "no_samples: exited 0 but no step times were found in the log"
    )
    message: str = Field(default="", description="One-line human summary of the outcome")
    returncode: int | None = Field(default=None, description="Exit code; None if not started")
    duration: float = Field(default=0.0, description="Wall-clock seconds the command ran")
    started_at: str = Field(default="", description="UTC start time, ISO 8601")
    command: list[str] = Field(default_factory=list)
    cards: int
    batch_size: int
    inference: bool = False
    sampling_steps: int | None = None
    sink_mode: bool = False
    log_format: str | None = Field(default=None, description="Format the log was read as")
    log_path: str | None = Field(default=None, description="File the step times came from")
    output_path: str | None = Field(default=None, description="Captured stdout+stderr")
    s_per_step: float | None = Field(default=None, description="Steady median seconds/step")
    iqr: float | None = Field(default=None, description="Interquartile range of s/step")
    cv: float | None = Field(default=None, description="Coefficient of variation of s/step")
    graph_compile_s: float | None = Field(
        default=None, description="First step (or epoch) minus a steady one, seconds"
    )
    first_step_s: float | None = Field(default=None, description="Seconds of step 1")
    img_per_s: float | None = Field(default=None, description="cards*batch size/s/step")
    steps_measured: int = Field(default=0, description="Steady steps behind s/step")
    outliers_dropped: int = 0
    measure_mode: str | None = Field(default=None, description="'step' or 'epoch' samples")
    run_mode: Literal["graph", "pynative"] | None = Field(
        default=None,
        description="MindSpore mode of the run (the benchmark's `mode`, its command or the log); "
        "a PyNative run has no graph compile",
    )
    graph_compile_note: str | None = Field(
        default=None,
        description="Why graph_compile_s is null (PyNative, not slower than steady, log does not "
        "start at step 1); the README cell should then be left as it is (e.g. N/A)",
    )
    ranks: list[RankResult] = Field(
        default_factory=list,
        description="Per-rank figures when several rank logs were read; s_per_step is the "
        "slowest rank's (a synchronous data-parallel step is as slow as its slowest worker)",
    )
    table: dict[str, str] = Field(
        default_factory=dict,
        description="Cells for the README row, formatted: cards, batch size, graph compile, "
        "s/step, img/s (and steps for inference)",
    )
    step_times: list[StepTime] = Field(default_factory=list, description="Parsed samples")
    environment: EnvInfo = Field(default_factory=EnvInfo)
    commit: str | None = None
    runner: str | None = None
    log_tail: list[str] = Field(default_factory=list, description="Last output lines if not ok")
    notes: list[str] = Field(default_factory=list)
    flags: list[str] = Field(
        default_factory=list,
        description="Checks of the log the review flags: `log_vs_wall` (the step times add up "
        "to far less than the command ran), `cv_zero` (every step time the same)",
    )
    perfbot_version: str = __version__

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# ---- results files ------------------------------------------------------------------------


def write_result(result: BenchResult, path: str | Path) -> Path:
    """Write `result` as JSON to `path` (parents created, replaced atomically)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p


def load_results(paths: Iterable[str | Path]) -> list[BenchResult]:
    """Read results JSON files (one object or a list each; a directory means its *.json).

    Raises `ResultsError` naming the file on unreadable or invalid content.
    """
    out: list[BenchResult] = []
    for path in paths:
        p = Path(path)
        files = sorted(p.glob("*.json")) if p.is_dir() else [p]
        for f in files:
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise ResultsError(f"{f}: no such file") from None
            except (OSError, UnicodeDecodeError) as exc:
                raise ResultsError(f"{f}: cannot read: {exc}") from None
            except json.JSONDecodeError as exc:
                raise ResultsError(f"{f}: not valid JSON (line {exc.lineno}): {exc.msg}") from None
            items = data if isinstance(data, list) else [data]
            for i, item in enumerate(items):
                try:
                    out.append(BenchResult.model_validate(item))
                except ValidationError as exc:
                    first = exc.errors(include_url=False)[0]
                    loc = ".".join(str(x) for x in first.get("loc", ()))
                    where = f"{f}" + (f"[{i}]" if isinstance(data, list) else "")
                    raise ResultsError(
                        f"{where}: not a perfbot bench result ({loc}: {first.get('msg')})"
                    ) from None
    return out
