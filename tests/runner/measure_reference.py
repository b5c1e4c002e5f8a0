"""A frozen copy of `perfbot.runner.measure.measure` as of main f72f661 (one StepSample object per
sample), the reference that tests/runner/test_runner_samples.py holds the column-wise `measure`
to: the same Measurement, floats bit for bit, for any samples. Do not edit."""

# ruff: noqa
from __future__ import annotations

from collections.abc import Sequence

from perfbot.runner.measure import Measurement, _weighted_stats, weighted_quantile


def measure(
    samples: Sequence,
    *,
    warmup: int = 5,
    sink_mode: bool = False,
    outlier_seconds: float = 100.0,
    outlier_factor: float = 10.0,
    pynative: bool = False,
) -> Measurement:
    """Steady-state s/step, its spread, and graph compile time from parsed samples."""
    notes: list[str] = []
    steps = [s for s in samples if s.kind == "step"]
    epochs = [s for s in samples if s.kind == "epoch"]
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

    steady: list = []
    for s in pool:
        if s is compile_sample:
            continue
        weight = s.step - max(s.first_step - 1, warmup)  # its steps after the warm-up
        if weight > 0:
            steady.append((s, weight))
    if not steady:
        # Too short a run for the warm-up: keep all but the compile sample.
        steady = [(s, s.span) for s in pool if s is not compile_sample]
        if steady:
            notes.append(f"fewer than warmup={warmup} steps after step 1; warm-up not dropped")
    if not steady:
        first_s = compile_sample.seconds if compile_sample else None
        return Measurement(
            None, None, None, None, first_s, 0, 0, 0, mode, (*notes, "only the first step timed")
        )

    values = [s.seconds for s, _ in steady]
    weights = [w for _, w in steady]
    med = weighted_quantile(values, weights, 0.5)
    keep = [
        (s, w)
        for s, w in steady
        if s.seconds < outlier_seconds and not (med > 0 and s.seconds > outlier_factor * med)
    ]
    if not keep:
        keep = [(s, w) for s, w in steady if not (med > 0 and s.seconds > outlier_factor * med)]
        notes.append(f"every step took >= {outlier_seconds:g} s; the absolute outlier limit is off")
    dropped = len(steady) - len(keep)
    if dropped:
        notes.append(f"dropped {dropped} outlier sample(s) (checkpoint saving or stalls)")
    values = [s.seconds for s, _ in keep]
    weights = [w for _, w in keep]
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
        samples_used=len(keep),
        outliers_dropped=dropped,
        mode=mode,
        notes=tuple(notes),
        compile_note=compile_note,
    )
