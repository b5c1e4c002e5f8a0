"""From step samples to the numbers of a Performance table row.

Definitions (also in docs/runner.md):

- **Mode.** Step samples are used when there are any after the first one and `sink_mode` is
  off; otherwise per-epoch samples (data-sink mode, TimeMonitor, per-epoch result files).
- **Steady samples.** Every sample except the one that covers step 1 (it holds graph compile).
  The first `warmup` steps (step 1 included) are not counted: a sample covering `k` steps counts
  as `k` observations of its mean, minus those of its steps that fall within warm-up, so a
  sample entirely within warm-up is dropped. If that leaves nothing, warm-up is not dropped.
- **Outliers.** Steady samples of at least `outlier_seconds` per step (checkpoint saving) or
  more than `outlier_factor` x the median are dropped, then the median is taken again. If every
  sample is that slow the absolute limit is ignored (the model is just slow).
- **s/step** is the weighted median of the steady samples; **IQR** the weighted interquartile
  range; **CV** the weighted standard deviation over the weighted mean.
- **graph compile** = (first sample's per-step time - s/step) x its span: the first step minus a
  steady step, or, for a window or epoch that contains step 1, its total minus that many steady
  steps. In sink mode that is the first epoch minus a steady epoch. It is None (with a
  note saying why) when the log does not start at step 1, when the first sample is not slower
  than the steady median (a cached graph: compile cannot be measured from this log; never a
  negative number), and in PyNative mode (there is no graph compile).
- **img/s** = cards x batch size / s/step; for inference cards x batch size / (steps x s/step).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import lt, sub

from perfbot.runner.logs import Samples, StepSample

__all__ = [
    "Measurement",
    "format_compile",
    "format_number",
    "img_per_s",
    "measure",
    "weighted_quantile",
]


@dataclass(frozen=True)
class Measurement:
    """What `measure` found. Times are seconds; None when not measurable."""

    s_per_step: float | None
    iqr: float | None
    cv: float | None
    graph_compile_s: float | None
    first_step_s: float | None
    steps_measured: int
    samples_used: int
    outliers_dropped: int
    mode: str  # "step" or "epoch"
    notes: tuple[str, ...] = field(default=())
    compile_note: str | None = None  # why graph_compile_s is None


def weighted_quantile(values: Sequence[float], weights: Sequence[int], q: float) -> float:
    """Quantile `q` (0..1) of `values`, each repeated `weights[i]` times, with linear
    interpolation between order statistics (like numpy's default on the expanded data)."""
    pairs = sorted((v, w) for v, w in zip(values, weights, strict=True) if w > 0)
    if not pairs:
        raise ValueError("no values")
    cum: list[int] = []
    total = 0
    for _, w in pairs:
        total += w
        cum.append(total)

    def at(index: int) -> float:  # index-th element (0-based) of the expanded sorted data
        return pairs[bisect_right(cum, index)][0]

    pos = q * (total - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, total - 1)
    frac = pos - lo
    return at(lo) + (at(hi) - at(lo)) * frac


def _weighted_stats(values: Sequence[float], weights: Sequence[int]) -> tuple[float, float, float]:
    """(median, IQR, CV) of the expanded data."""
    med = weighted_quantile(values, weights, 0.5)
    iqr = weighted_quantile(values, weights, 0.75) - weighted_quantile(values, weights, 0.25)
    n = sum(weights)
    mean = sum(v * w for v, w in zip(values, weights, strict=True)) / n
    var = sum(w * (v - mean) ** 2 for v, w in zip(values, weights, strict=True)) / n
    cv = math.sqrt(var) / mean if mean > 0 else 0.0
    return med, iqr, cv


def measure(
    samples: Sequence[StepSample],
    *,
    warmup: int = 5,
    sink_mode: bool = False,
    outlier_seconds: float = 100.0,
    outlier_factor: float = 10.0,
    pynative: bool = False,
) -> Measurement:
    """Steady-state s/step, its spread, and graph compile time from parsed samples."""
    notes: list[str] = []
    cols = Samples.of(samples)  # parse_log's own columns as they are; anything else converted
    steps, epochs = cols.only("step"), cols.only("epoch")
    if not sink_mode and len(steps) >= 2:
        mode, pool = "step", steps
    elif epochs:
        mode, pool = "epoch", epochs
        if not sink_mode and steps:
            notes.append("too few step lines; used per-epoch times")
    else:
        mode, pool = "step", steps
        if sink_mode and steps:
            notes.append("sink_mode is set but the log has no per-epoch lines; used step lines")
    if not pool:
        return Measurement(None, None, None, None, None, 0, 0, 0, mode, ("no step times",))

    first = pool[0]
    compile_sample = first if first.first_step <= 1 else None
    compile_note = None
    if compile_sample is None:
        compile_note = f"the log starts at step {first.first_step}, not 1: graph compile unknown"
        notes.append(compile_note)

    # every sample but the compile sample, column-wise: (per-step seconds, steps counted)
    skip = 0 if compile_sample is None else 1
    secs, spans, ends = pool.seconds[skip:], pool.span[skip:], pool.step[skip:]
    # a sample counts its steps after the warm-up: step - max(first_step - 1, warmup)
    counted = list(map(sub, ends, map(max, map(sub, ends, spans), repeat(warmup))))
    positive = list(map(lt, repeat(0), counted))
    values, weights = list(compress(secs, positive)), list(compress(counted, positive))
    if not values:
        # Too short a run for the warm-up: keep all but the compile sample.
        values, weights = secs, spans
        if values:
            notes.append(f"fewer than warmup={warmup} steps after step 1; warm-up not dropped")
    if not values:
        first_s = compile_sample.seconds if compile_sample else None
        return Measurement(
            None, None, None, None, first_s, 0, 0, 0, mode, (*notes, "only the first step timed")
        )

    med = weighted_quantile(values, weights, 0.5)
    limit = outlier_factor * med
    kept = [v < outlier_seconds and not (med > 0 and v > limit) for v in values]
    if not any(kept):
        kept = [not (med > 0 and v > limit) for v in values]
        notes.append(f"every step took >= {outlier_seconds:g} s; the absolute outlier limit is off")
    dropped = len(values) - sum(kept)
    if dropped:
        notes.append(f"dropped {dropped} outlier sample(s) (checkpoint saving or stalls)")
        values, weights = list(compress(values, kept)), list(compress(weights, kept))
    med, iqr, cv = _weighted_stats(values, weights)

    compile_s = None
    first_s = None
    if compile_sample is not None:
        extra = (compile_sample.seconds - med) * compile_sample.span
        if compile_sample.span == 1:
            first_s = compile_sample.seconds
        elif extra > 0:
            first_s = extra + med  # step 1 alone, estimated from the window that holds it
        if pynative:
            compile_note = (
                "PyNative mode: there is no graph compile (the first steps compile kernels "
                "one by one); graph compile is not reported"
            )
            notes.append(compile_note)
        elif extra > 0:
            compile_s = extra
        else:
            what = "step" if compile_sample.span == 1 else f"window (steps 1-{compile_sample.step})"
            compile_note = (
                f"graph compile could not be measured from this log: the first logged {what} "
                "was not slower than the steady median (a cached graph, "
                "MS_COMPILER_CACHE_ENABLE, or PyNative mode)"
            )
            notes.append(compile_note)
    return Measurement(
        s_per_step=med,
        iqr=iqr,
        cv=cv,
        graph_compile_s=compile_s,
        first_step_s=first_s,
        steps_measured=sum(weights),
        samples_used=len(values),
        outliers_dropped=dropped,
        mode=mode,
        notes=tuple(notes),
        compile_note=compile_note,
    )


def img_per_s(
    s_per_step: float,
    cards: int,
    batch_size: int,
    *,
    inference: bool = False,
    sampling_steps: int | None = None,
) -> float:
    """cards x batch size / s/step; for inference cards x batch size / (steps x s/step)."""
    if s_per_step <= 0:
        raise ValueError("s/step must be positive")
    if inference:
        if not sampling_steps:
            raise ValueError("inference needs sampling_steps")
        return cards * batch_size / (sampling_steps * s_per_step)
    return cards * batch_size / s_per_step


def format_number(value: float) -> str:
    """A table number: exactly two decimals (`0.89`, `71.91`)."""
    return f"{value:.2f}"


def format_compile(seconds: float, style: str = "auto") -> str:
    """Graph compile time in README style.

    `auto`: under a minute as seconds with two decimals (`45.12s`, the mindyolo style);
    from 60 s on, whole minutes rounded **up** (`2 mins`; `1 min`), the guide's unit.
    `mins` always gives minutes (at least `1 min`), `seconds` always seconds.
    Negative values (first step not slower) are shown as 0.
    """
    seconds = max(0.0, seconds)
    if style not in ("auto", "mins", "seconds"):
        raise ValueError(f"unknown style {style!r}")
    if style == "seconds" or (style == "auto" and round(seconds, 2) < 60):
        return f"{seconds:.2f}s"
    minutes = max(1, math.ceil(round(seconds, 6) / 60))
    return "1 min" if minutes == 1 else f"{minutes} mins"
