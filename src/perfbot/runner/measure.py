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
  negative number), in PyNative mode (there is no graph compile), and for a window or epoch
  when its uncertainty (`compile_uncertainty`) is 25 % of the estimate or more.
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
    widths = list(compress(spans, positive))
    if not values:
        # Too short a run for the warm-up: keep all but the compile sample.
        values, weights, widths = secs, spans, spans
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
        widths = list(compress(widths, kept))
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
        elif extra > 0 and compile_sample.span > 1:
            # a window or epoch: only when the estimate is good to 25 % (see compile_uncertainty)
            u = compile_uncertainty(med, values, widths, compile_sample.span, warmup)
            what = _what(compile_sample)
            if u < UNCERTAINTY_LIMIT * extra:
                compile_s = extra
                notes.append(
                    f"graph compile estimated from the first {what}: {extra:.2f} s "
                    f"± {u:.2f} s (see docs/runner.md)"
                )
            else:
                compile_note = (
                    f"graph compile not reported: from the first {what} it comes out at "
                    f"{extra:.2f} s ± {u:.2f} s, more than {UNCERTAINTY_LIMIT:.0%} uncertain "
                    "(the window also holds the warm-up steps, and the steady "
                    f"{'epochs' if compile_sample.kind == 'epoch' else 'windows'} vary); "
                    "a per-step log (log_interval 1) times step 1 alone"
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


UNCERTAINTY_LIMIT = 0.25  # a window's or epoch's compile estimate is reported below this
SINGLE_SPREAD = 0.10  # relative spread assumed when only one steady window or epoch is logged


def _what(sample: StepSample) -> str:
    if sample.kind == "epoch":
        return f"epoch (steps 1-{sample.step})"
    return f"window (steps 1-{sample.step})"


def compile_uncertainty(
    med: float, values: Sequence[float], spans: Sequence[int], span: int, warmup: int
) -> float:
    """Uncertainty (seconds) of graph compile read from a first window or epoch of ``span``
    steps as (its total - ``span`` x the steady median ``med``). Two parts, added:

    - **noise**: the steady part of that window is ``span`` steps whose total varies like the
      steady samples do: 2 x (sample-to-sample standard deviation of the steady samples' per-step
      means ``values``) x sqrt(``span`` x their median span), the standard deviation of a sum of
      ``span`` steps scaled from windows of the median span; with a single steady sample, its
      spread is taken as ``SINGLE_SPREAD`` of ``med``;
    - **warm-up**: steps 2..``warmup`` of the window are warm-up steps whose extra time is not
      compile and cannot be told apart in a window: each may take up to twice a steady step, so
      ``med`` x (min(``span``, ``warmup``) - 1).
    """
    typical = sorted(spans)[len(spans) // 2] if spans else 1
    if len(values) >= 2:
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    else:
        sd = SINGLE_SPREAD * med
    noise = 2.0 * sd * math.sqrt(span * max(1, typical))
    warm = med * max(0, min(span, max(warmup, 1)) - 1)
    return noise + warm


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
