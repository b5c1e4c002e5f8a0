"""perfbot bench against the ground truth of real MindSpore trainings (CPU).

Skipped unless a Python with MindSpore is available: this interpreter if it has `mindspore`,
else the one named by `PERFBOT_MINDSPORE_PYTHON`. To run it (docs/runner.md, "Checking
against ground truth"):

    python -m venv /opt/ms && /opt/ms/bin/pip install mindspore 'numpy<2'
    PERFBOT_MINDSPORE_PYTHON=/opt/ms/bin/python python -m pytest \\
        tests/runner/test_runner_groundtruth.py -s

Each case runs `groundtruth/gt_train.py` (a small network on random data) through
`run_benchmark`, as `perfbot bench` does, with a format's logger and a silent callback first
in the list that records every step's begin and end. perfbot's figures are compared with:

- per-step logs: the median of the truth's steps (the nearer of begin->end and end->end), 3 %;
- windows and epochs: the truth rebuilt on the log's own definition (each window's or epoch's
  time from the stamps) and measured the same way, 3 % (windows) and 10 % (epochs); the gap to
  the per-step median is printed as information;
- graph compile: (step 1's end - train begin) - the steady end->end median; perfbot's figure
  must be within max(25 %, 0.5 s) of it, or absent with a note;
- the recorded MindSpore version is the benchmark interpreter's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

import pytest

from perfbot.runner.bench import run_benchmark
from perfbot.runner.logs import StepSample
from perfbot.runner.measure import measure
from perfbot.runner.msversion import interpreter_mindspore
from perfbot.runner.spec import BenchmarkSpec


def _mindspore_python() -> str | None:
    named = os.environ.get("PERFBOT_MINDSPORE_PYTHON")
    if named:
        return named if shutil.which(named) or Path(named).is_file() else None
    return sys.executable if importlib.util.find_spec("mindspore") is not None else None


PYTHON = _mindspore_python()
pytestmark = pytest.mark.skipif(PYTHON is None, reason="no Python with MindSpore")
TRAIN = Path(__file__).parent / "groundtruth" / "gt_train.py"
N, E = 12, 3  # steps per epoch, epochs

# name: (format, log interval, log file, kind of the log's samples, extra spec keys)
CASES = {
    "mindcv-li1": ("mindcv", 1, None, "step", {}),
    "mindcv-li5": ("mindcv", 5, None, "window", {}),
    "mindone-li1": ("mindone", 1, None, "step", {}),
    "mindone-li4": ("mindone", 4, None, "window", {}),
    "perf_recorder": ("perf_recorder", 1, "result.log", "step", {}),
    "mindaudio": ("mindaudio", 1, None, "step", {}),
    "mindyolo-li4": ("mindyolo", 4, None, "window", {}),
    "mindocr-li4": ("mindocr", 4, None, "window", {}),
    "timemonitor": ("timemonitor", 1, None, "epoch", {}),
    "mindcv_result": ("mindcv_result", 1, "result.log", "epoch", {"steps_per_epoch": N}),
}
TOLERANCE = {"step": 0.03, "window": 0.03, "epoch": 0.10}


def _run(tmp_path: Path, name: str, fmt: str, li: int, log: str | None, extra: dict, *args):
    spec = BenchmarkSpec(
        name=name,
        readme="README.md",
        row=1,
        command=[
            *(str(PYTHON), str(TRAIN), "--format", fmt, "--log-interval", str(li)),
            *("--epochs", str(E), "--steps-per-epoch", str(N), *args),
        ],
        cards=1,
        batch_size=32,
        timeout=900,
        log=log,
        log_format="auto",
        **extra,
    )
    return run_benchmark(spec, workdir=tmp_path)


def _truth_samples(t: dict, kind: str, fmt: str, li: int) -> list[StepSample]:
    """The log's own definition, rebuilt from the stamps."""
    begin, end = t["step_begin"], t["step_end"]
    n = len(end)
    if kind == "epoch":
        return [
            StepSample((i + 1) * N, (b_end - b) / N, N, "epoch")
            for i, (b, b_end) in enumerate(zip(t["epoch_begin"], t["epoch_end"], strict=True))
        ]
    inside = [e - b for b, e in zip(begin, end, strict=True)]
    if kind == "step" and fmt != "mindone":  # mindone times wall between its lines
        return [StepSample(i + 1, inside[i], 1) for i in range(n)]
    out, prev = [], 0
    for g in range(1, n + 1):
        b = (g - 1) % N + 1
        if fmt == "mindcv":
            due = b == 1 or b % li == 0 or b == N
        elif fmt == "mindone":
            due = g % li == 0
        else:
            due = b % li == 0 or b == N
        if not due:
            continue
        if fmt == "mindcv":
            secs = sum(inside[prev:g]) / (g - prev)
        elif fmt == "mindone":  # wall time since the previous line (the first from set-up)
            start = end[prev - 1] if prev else t["train_begin"]
            secs = (end[g - 1] - start) / (g - prev)
        else:  # mindyolo/mindocr: the window restarts at every epoch
            e0 = (g - 1) // N
            first = max(prev, e0 * N)
            start = end[first - 1] if first > e0 * N else t["epoch_begin"][e0]
            secs = (end[g - 1] - start) / (g - first)
            prev = first
        out.append(StepSample(g, secs, g - prev))
        prev = g
    return out


def _medians(t: dict) -> tuple[float, float, float]:
    begin, end = t["step_begin"], t["step_end"]
    inside = [e - b for b, e in zip(begin, end, strict=True)][5:]
    wall = [end[i] - end[i - 1] for i in range(1, len(end))][4:]
    compile_s = (end[0] - t["train_begin"]) - statistics.median(wall)
    return statistics.median(inside), statistics.median(wall), compile_s


FIGURES: list[str] = []


@pytest.mark.parametrize("name", list(CASES))
def test_bench_reads_the_truth(tmp_path: Path, name: str) -> None:
    fmt, li, log, kind, extra = CASES[name]
    r = _run(tmp_path, name, fmt, li, log, extra)
    assert r.status == "ok", (r.message, r.log_tail[-10:])
    t = json.loads((tmp_path / "truth.json").read_text())
    in_step, wall, compile_truth = _medians(t)
    rebuilt = measure(_truth_samples(t, kind, fmt, li), warmup=5).s_per_step
    assert rebuilt is not None and r.s_per_step is not None
    gap = min(abs(r.s_per_step / x - 1) for x in (in_step, wall))
    own = abs(r.s_per_step / rebuilt - 1)
    c = r.graph_compile_s
    FIGURES.append(
        f"{name}: s/step {r.s_per_step:.4f} vs own-definition truth {rebuilt:.4f} "
        f"({own:+.1%}); step medians in-step {in_step:.4f} / wall {wall:.4f} (nearer {gap:.1%}); "
        f"compile {c if c is None else round(c, 2)} vs truth {compile_truth:.2f}"
    )
    print(FIGURES[-1])
    assert own <= TOLERANCE[kind], FIGURES[-1]
    if kind == "step":
        assert gap <= TOLERANCE["step"], FIGURES[-1]
    if c is None:
        assert r.graph_compile_note, "graph compile absent without a note"
    else:
        assert abs(c - compile_truth) <= max(0.25 * compile_truth, 0.5), FIGURES[-1]
    version, _ = interpreter_mindspore(Path(PYTHON))
    assert r.environment.mindspore == version is not None


def test_a_lossmonitor_only_log_is_not_ok(tmp_path: Path) -> None:
    r = _run(tmp_path, "lossmonitor", "lossmonitor", 1, None, {})
    assert r.status == "no_samples" and "LossMonitor" in r.message


def test_a_pynative_run_reports_no_graph_compile(tmp_path: Path) -> None:
    r = _run(tmp_path, "pynative", "mindcv", 1, None, {}, "--mode", "1")
    assert r.status == "ok" and r.run_mode == "pynative"
    assert r.graph_compile_s is None and r.graph_compile_note
