"""Messages for logs that give no (or no clean) step times say what the log really holds
(issue 23 item 5)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from perfbot.runner.bench import run_benchmark
from perfbot.runner.spec import BenchmarkSpec


def _run(tmp_path: Path, body: str, **kw):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    base = dict(
        name="b",
        readme="README.md",
        row=1,
        command=[sys.executable, str(script)],
        cards=1,
        batch_size=32,
        timeout=60,
    )
    base.update(kw)
    return run_benchmark(BenchmarkSpec(**base), workdir=tmp_path)


def test_a_lossmonitor_only_log_is_told_to_add_a_timer(tmp_path: Path) -> None:
    r = _run(
        tmp_path,
        """
        for e in range(1, 3):
            for s in range(1, 31):
                print(f"epoch: {e} step: {s}, loss is 0.{s:02d}5195528864860535")
        """,
    )
    assert r.status == "no_samples"
    assert "LossMonitor" in r.message and "TimeMonitor" in r.message
    assert "set log_format" not in r.message


def test_the_msrun_refusal_names_the_rank_logs_the_console_names(tmp_path: Path) -> None:
    r = _run(
        tmp_path,
        """
        for rank in range(2):
            print(f"Start worker process with rank id:{rank}, log file:out/logs/worker_{rank}.log."
                  f" Environment variable [RANK_ID={rank}] is exported.")
        for e in range(1, 4):
            for rank in range(2):
                print(f"epoch: {e} step: 30, loss is 0.5")
                print(f"Train epoch time: {30 + rank:.3f} ms, per step time: 1.000 ms")
        """,
    )
    assert r.status == "no_samples"
    assert "log: out/logs/worker_*.log" in r.message
    assert "out/logs/worker_0.log, out/logs/worker_1.log" in r.message


def test_no_false_short_log_note_under_model_fit_with_valid_frequency(tmp_path: Path) -> None:
    """valid_frequency=2: the evaluated epochs' Train lines are dropped, but their steps ran.
    Before: "the log ends at step 150 of the expected 180"."""
    r = _run(
        tmp_path,
        """
        for e in range(1, 7):
            if e % 2 == 0:
                print("Eval epoch time: 5.000 ms, per step time: 0.500 ms")
            print(f"Train epoch time: {30.0 + e * 0.1:.3f} ms, per step time: 1.000 ms")
        """,
        steps=180,
    )
    assert r.status == "ok", r.message
    assert not any("the log ends at step" in n for n in r.notes)


def test_an_unrecognised_log_quotes_its_last_line(tmp_path: Path) -> None:
    """msrun 2.7.1 exits 0 when its workers cannot start: the worker logs hold only the error.
    "Set log_format" alone sends the user after the wrong thing; the log's last line says what
    happened."""
    r = _run(
        tmp_path,
        """
        print("loading the dataset")
        print("python: can't open file '/w/train.py': [Errno 2] No such file or directory")
        print("   ")
        """,
    )
    assert r.status == "no_samples"
    assert "its last line: `python: can't open file '/w/train.py'" in r.message
    assert "set log_format" in r.message


def test_an_empty_log_is_said_to_be_empty(tmp_path: Path) -> None:
    r = _run(tmp_path, "pass\n")
    assert r.status == "no_samples"
    assert "the log is empty" in r.message and "set log_format" not in r.message
