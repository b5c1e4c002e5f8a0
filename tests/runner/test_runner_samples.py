"""`parse_log` returns its samples column-wise (issue 11): four parallel lists instead of one
`StepSample` tuple per sample, so a million-line log costs no Python object per sample beyond its
numbers. The result still reads as a sequence of `StepSample`, compares equal to a list of the
same samples, and `measure` gives exactly what it gave on a list of `StepSample`
(`measure_reference.py` is the frozen copy of that `measure`)."""

from __future__ import annotations

import dataclasses
import random
import tracemalloc

import measure_reference as old
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot.runner.logs import MAX_SAMPLES, ParseInfo, Samples, StepSample, parse_log
from perfbot.runner.measure import measure


def _samples() -> Samples:
    out = Samples()
    out.add(1, 2.5, 1, "step")
    out.add_columns([3, 5], [0.5, 0.25], [2, 2], "step")
    out.add(105, 0.2, 100, "epoch")
    return out


def test_samples_read_as_a_sequence_of_step_samples():
    s = _samples()
    as_list = [
        StepSample(1, 2.5, 1, "step"),
        StepSample(3, 0.5, 2, "step"),
        StepSample(5, 0.25, 2, "step"),
        StepSample(105, 0.2, 100, "epoch"),
    ]
    assert len(s) == 4
    assert s[0] == as_list[0] and s[-1] == as_list[-1]
    assert s[1].first_step == 2 and s[-1].total_seconds == pytest.approx(20.0)
    assert list(s) == as_list
    assert s == as_list and as_list == s  # both directions (list's __eq__ defers to Samples)
    assert s == tuple(as_list)
    assert s != as_list[:3] and s != [*as_list[:3], StepSample(105, 0.2, 100, "step")]
    assert s[1:3] == as_list[1:3] and isinstance(s[1:3], Samples)
    assert s == Samples.of(as_list) and Samples.of(s) is s
    assert s.only("epoch") == as_list[3:] and s.only("step") == as_list[:3]
    steps = s.only("step")
    assert steps.only("step") is steps and s.only("other") == []
    assert "StepSample(step=1" in repr(s) and "1 more" in repr(s)
    with pytest.raises(TypeError):
        hash(s)


def test_cap_keeps_max_samples_and_counts_the_rest():
    info = ParseInfo()
    s = Samples(info)
    n = MAX_SAMPLES + 7
    s.add_columns(list(range(1, n + 1)), [0.1] * n, [1] * n, "step")
    s.cap()
    assert len(s) == MAX_SAMPLES and info.dropped == 7
    assert (len(s.step), len(s.seconds), len(s.span), len(s.kind)) == (MAX_SAMPLES,) * 4
    assert s[-1] == StepSample(MAX_SAMPLES, 0.1, 1, "step")


def _result_log(n: int, r: random.Random) -> str:
    rows = (f"{i}\t{r.random():.7f}\t0.0001000\t{0.16 + r.random() / 50:.7f}" for i in range(n))
    return "step\tloss\tlr\ttrain_time(s)\n" + "\n".join(rows) + "\n"


def _mindone_log(n: int, r: random.Random) -> str:
    return "".join(
        f"epoch 1, step {g}, lr 0.0001, loss 0.5, global_step {g}, step_time(ms) "
        f"{150 + r.random():.1f}\n"
        for g in range(1, n + 1)
    )


@pytest.mark.parametrize(
    ("fmt", "make"), [("mindone_result", _result_log), ("mindone", _mindone_log)]
)
def test_parsed_samples_hold_no_object_per_sample(fmt, make):
    """What the samples keep alive, per sample: a step int and a per-step float (about 68 bytes
    with their list slots) and two shared slots; one StepSample tuple per sample was 141."""
    text = make(50_000, random.Random(0))
    tracemalloc.start()
    try:
        used, samples = parse_log(text, fmt)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert used == fmt and len(samples) >= 49_000
    assert kept / len(samples) < 100, kept / len(samples)


# ---- measure on columns == measure on StepSample objects -------------------------------------

sample = st.builds(
    StepSample,
    step=st.integers(-3, 400),
    seconds=st.one_of(
        st.floats(0, 3, allow_nan=False),
        st.sampled_from([0.0, 0.5, 0.5, 150.0, 1e6]),  # ties, the absolute and relative outliers
    ),
    span=st.integers(1, 40),
    kind=st.sampled_from(["step", "step", "epoch"]),
)


def _same_compile(m):
    """``m`` without its graph compile and what is said of it: since issue 23 a window's or
    epoch's compile is reported only when its uncertainty is below 25 % (checked apart)."""
    return dataclasses.replace(
        m,
        graph_compile_s=None,
        compile_note=None,
        notes=tuple(n for n in m.notes if not n.startswith("graph compile")),
    )


@settings(max_examples=400, deadline=None)
@given(
    samples=st.lists(sample, max_size=40),
    warmup=st.integers(0, 30),
    sink_mode=st.booleans(),
    outlier_seconds=st.sampled_from([100.0, 0.4, 1e9]),
    outlier_factor=st.sampled_from([10.0, 1.5]),
    pynative=st.booleans(),
)
def test_measure_on_columns_is_the_old_measure(
    samples, warmup, sink_mode, outlier_seconds, outlier_factor, pynative
):
    kw = {
        "warmup": warmup,
        "sink_mode": sink_mode,
        "outlier_seconds": outlier_seconds,
        "outlier_factor": outlier_factor,
        "pynative": pynative,
    }
    ref = old.measure(samples, **kw)
    want = repr(_same_compile(ref))  # repr: floats bit for bit, and nan == nan
    for got in (measure(samples, **kw), measure(Samples.of(samples), **kw)):
        assert repr(_same_compile(got)) == want
        # the old graph compile, unless a window's or epoch's estimate was too uncertain
        assert got.graph_compile_s in (None, ref.graph_compile_s)


def test_measure_on_a_parsed_result_file_is_the_old_measure():
    _, samples = parse_log(_result_log(5_000, random.Random(3)), "mindone_result")
    assert isinstance(samples, Samples)
    assert repr(measure(samples)) == repr(old.measure(list(samples)))  # per-step rows
