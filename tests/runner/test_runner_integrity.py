"""A log cannot steer the measured numbers without being flagged or refused (issue 23 item 4;
security-2 finding 5): anchored patterns, the last monotonic run, the wall clock, CV 0."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from perfbot.runner.bench import run_benchmark
from perfbot.runner.integrity import last_run
from perfbot.runner.logs import Samples, parse_log
from perfbot.runner.spec import BenchmarkSpec

LINE = (
    "[2026-12-01 10:00:{s:02d}] mindcv.utils.callbacks INFO - Epoch: [1/1], "
    "batch: [{k}/{n}], loss: 2.300000, lr: 0.001000, time: {t:.6f}s"
)


def _spec(script: Path, **kw) -> BenchmarkSpec:
    base = dict(
        name="fakenet-1p",
        readme="README.md",
        row=1,
        command=[sys.executable, str(script)],
        cards=1,
        batch_size=64,
        timeout=60,
        log_format="mindcv",
    )
    base.update(kw)
    return BenchmarkSpec(**base)


def _write(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def test_a_lying_benchmark_is_refused(tmp_path: Path) -> None:
    """S5b: 200 lines claiming 0.05 s steps and a 40 s compile, from a run of a fraction of a
    second. Before: `ok`, 0.05 s/step, 1280 img/s."""
    script = _write(
        tmp_path,
        "liar.py",
        f"""
        LINE = {LINE!r}
        for k in range(1, 201):
            print(LINE.format(s=k % 60, k=k, n=200, t=0.05 + (40 if k == 1 else 0)))
        """,
    )
    r = run_benchmark(_spec(script), workdir=tmp_path)
    assert r.status == "no_samples" and r.s_per_step is None and not r.table
    assert "cannot be its own steps' times" in r.message


def test_captions_printed_by_an_honest_trainer_do_not_move_its_numbers(tmp_path: Path) -> None:
    """S5: a data file of the pull request whose captions hold mindcv step lines, printed by
    the trainer before it trains. Before: s/step 0.30 instead of 0.41, with no flag. Here the
    trainer really sleeps its steps (0.04 s, compile 0.3 s)."""
    (tmp_path / "captions.txt").write_text(
        "".join(
            f"a cat on a mat Epoch: [1/1], batch: [{i % 100 + 1}/100], time: 0.300000s\n"
            for i in range(2000)
        )
        # and captions that are whole step lines at the start of a line
        + "".join(
            f"Epoch: [1/1], batch: [{i % 100 + 1}/100], time: 0.300000s\n" for i in range(300)
        ),
        encoding="utf-8",
    )
    script = _write(
        tmp_path,
        "honest.py",
        f"""
        import time
        LINE = {LINE!r}
        for caption in open("captions.txt"):
            print("[2026-12-01 10:00:00] mindcv.data INFO - dataset preview: " + caption.strip())
            print(caption.strip())
        for k in range(1, 31):
            t = 0.04 + (0.3 if k == 1 else 0)
            t0 = time.perf_counter()
            time.sleep(t)
            print(LINE.format(s=k, k=k, n=30, t=time.perf_counter() - t0), flush=True)
        """,
    )
    r = run_benchmark(_spec(script), workdir=tmp_path)
    assert r.status == "ok", r.message
    assert 0.04 <= r.s_per_step < 0.05
    assert any("only its last run" in n for n in r.notes)


def test_step_times_far_below_the_wall_clock_are_flagged(tmp_path: Path) -> None:
    script = _write(
        tmp_path,
        "slow_start.py",
        f"""
        import random, time
        LINE = {LINE!r}
        time.sleep(2.0)
        for k in range(1, 21):
            print(LINE.format(s=k, k=k, n=20, t=0.01 * (1 + random.random() / 10)))
        """,
    )
    r = run_benchmark(_spec(script), workdir=tmp_path)
    assert r.status == "ok"
    assert r.flags == ["log_vs_wall"]
    assert any("add up to" in n for n in r.notes)


def test_identical_step_times_are_flagged(tmp_path: Path) -> None:
    script = _write(
        tmp_path,
        "metronome.py",
        f"""
        import time
        LINE = {LINE!r}
        for k in range(1, 21):
            time.sleep(0.03)
            print(LINE.format(s=k, k=k, n=20, t=0.3 if k == 1 else 0.03))
        """,
    )
    r = run_benchmark(_spec(script), workdir=tmp_path)
    assert r.status == "ok" and r.cv == 0
    assert "cv_zero" in r.flags


def test_only_the_last_monotonic_run_counts() -> None:
    s = Samples()
    for step, sec in [(1, 5.0), (2, 0.3), (3, 0.3), (1, 4.0), (2, 0.1), (3, 0.1), (4, 0.1)]:
        s.add(step, sec)
    kept, runs = last_run(s)
    assert runs == 1 and list(kept.step) == [1, 2, 3, 4] and kept.seconds[0] == 4.0
    # a duplicated counter is a restart too
    s = Samples()
    for step in (1, 2, 2, 3):
        s.add(step, 0.1)
    kept, runs = last_run(s)
    assert runs == 1 and list(kept.step) == [2, 3]
    # step and epoch samples of one run (mindyolo) are one run
    s = Samples()
    for step in (1, 2, 3, 4):
        s.add(step, 0.1)
    s.add(4, 0.1, 4, "epoch")
    assert last_run(s)[1] == 0


def test_step_patterns_are_anchored_to_the_loggers_prefix() -> None:
    caption = "INFO - dataset preview: a cat Epoch: [1/1], batch: [5/100], time: 0.300000s\n"
    good = (
        "[2026-12-01 10:00:01] mindcv.utils.callbacks INFO - Epoch: [1/1], batch: [1/100], "
        "loss: 2.3, lr: 0.1, time: 1.000000s\n"
    )
    assert parse_log(caption, "mindcv")[1] == []
    assert len(parse_log(good + caption, "mindcv")[1]) == 1
    tm = "a caption Train epoch time: 900.0 ms, per step time: 30.0 ms\n"
    assert parse_log(tm, "timemonitor")[1] == []
    assert len(parse_log("Train epoch time: 900.0 ms, per step time: 30.0 ms\n", "timemonitor")[1])
    one = "epoch 1, step 1, loss 0.5, loss scale 1, global_step 1, step_time(ms) 100.0\n"
    assert parse_log("x: " + one, "mindone")[1] == []
    assert len(parse_log(one, "mindone")[1]) == 1
