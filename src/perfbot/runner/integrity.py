"""Checks that a log cannot steer the measured numbers without being flagged.

The step times perfbot reports are read from the benchmark's own log, which the benchmark (the
pull request's code, or a data file it prints) writes. Beyond anchoring each format's pattern to
its logger's prefix (`perfbot.runner.logs`), these checks run on the parsed samples:

- **One run.** A step counter that goes back or repeats (a second run appended to the log, a
  data file printing step lines, a duplicated counter) starts a new run; only the **last**
  monotonic run is measured, with a note.
- **Wall clock.** The step times the log claims (each sample's per-step seconds x its span,
  step 1 included) cannot add up to more than the command ran: such a log is refused.
  Far less than the command ran (under `FAR_BELOW` of it) is flagged: start-up, data loading and
  evaluation take some time, but most of a benchmark's run should be its steps.
- **No spread.** Step times with a coefficient of variation of exactly 0 are flagged: a real
  trainer's steps vary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import lt, mul

from perfbot.runner.logs import Samples

__all__ = ["FAR_BELOW", "WALL_SLACK", "LogCheck", "check_cv", "check_wall", "last_run"]

WALL_SLACK = (1.02, 1.0)  # claimed seconds may exceed the wall time by 2 % + 1 s (rounding)
FAR_BELOW = 0.25  # claimed under this share of the wall time: flagged
CV_ZERO = 1e-9  # a CV this small is 0 but for the float arithmetic of the weighted mean

# Off only in perfbot's own tests whose fake trainers print step times on a simulated clock
# (in-process, never from a config or the environment).
WALL_CHECK = True

FLAG_WALL = "log_vs_wall"
FLAG_CV0 = "cv_zero"


@dataclass
class LogCheck:
    """What the checks found: ``refusal`` (no s/step may be reported), ``flags`` for the review,
    ``notes`` for the result."""

    refusal: str | None = None
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _monotonic(steps: list[int]) -> bool:
    return all(map(lt, steps, steps[1:]))


def last_run(samples: Samples) -> tuple[Samples, int]:
    """(the samples of the log's last monotonic run, how many runs came before it). A sample
    whose step number is not above the previous sample's of the same kind starts a new run."""
    kinds = set(samples.kind)
    if len(kinds) <= 1 and _monotonic(samples.step):
        return samples, 0
    cut, runs = 0, 0
    prev: dict[str, int] = {}
    for i, (step, kind) in enumerate(zip(samples.step, samples.kind, strict=True)):
        p = prev.get(kind)
        if p is not None and step <= p:
            cut, runs = i, runs + 1
            prev = {}
        prev[kind] = step
    return (samples[cut:] if cut else samples), runs


def run_note(kept: Samples, runs: int) -> str:
    first = kept.step[0] - kept.span[0] + 1 if kept else 0
    last = kept.step[-1] if kept else 0
    return (
        f"the log's step count started again {runs} time(s) (a second run in the same log, "
        f"step lines printed by something else, or a duplicated counter): only its last run "
        f"(steps {first}-{last}, {len(kept)} samples) is measured"
    )


def claimed_seconds(samples: Samples, kind: str) -> float:
    """The seconds the samples of ``kind`` say their steps took, step 1 included."""
    cols = samples.only(kind)
    return sum(map(mul, cols.seconds, cols.span))


def check_wall(samples: Samples, kind: str, duration: float) -> LogCheck:
    """Compare the steps' claimed total with the command's wall-clock ``duration``."""
    out = LogCheck()
    if not WALL_CHECK or duration <= 0 or not samples:
        return out
    claimed = claimed_seconds(samples, kind)
    ratio, extra = WALL_SLACK
    if claimed > duration * ratio + extra:
        out.refusal = (
            f"the log's step times add up to {claimed:.1f} s, but the command ran "
            f"{duration:.1f} s: they cannot be its own steps' times (refused; is the log this "
            "run's, and are the lines the trainer's?)"
        )
    elif claimed < FAR_BELOW * duration:
        out.flags.append(FLAG_WALL)
        out.notes.append(
            f"the log's step times add up to {claimed:.1f} s of the {duration:.1f} s the "
            "command ran: most of the run is outside the logged steps (a long start-up or "
            "evaluation, an unlogged graph compile, or step lines that are not the run's)"
        )
    return out


def check_cv(cv: float | None, steps_measured: int) -> LogCheck:
    out = LogCheck()
    if cv is not None and cv <= CV_ZERO and steps_measured >= 2:
        out.flags.append(FLAG_CV0)
        out.notes.append(
            "every measured step time in the log is the same (CV exactly 0): a real trainer's "
            "steps vary; check that the lines are the trainer's own"
        )
    return out
