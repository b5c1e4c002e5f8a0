"""End-to-end tests of `run_benchmark` / `perfbot bench` on fake trainers (no Ascend needed).

The fake trainers print synthetic step times (true step time + seeded 5 % Gaussian noise + a
slow compile step) instead of sleeping, so these tests are fast. Nothing asserts wall-clock time.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfbot.runner import integrity
from perfbot.runner.bench import (
    BenchResult,
    ResultsError,
    bench_main,
    load_results,
    run_benchmark,
    write_result,
)
from perfbot.runner.spec import BenchmarkSpec

FAKE = Path(__file__).parent / "fake_trainers"
TRAINER = str(FAKE / "fake_trainer.py")
PY = sys.executable
TRUE_STEP = 0.1
COMPILE = 3.0


@pytest.fixture(autouse=True)
def simulated_clock(monkeypatch):
    """The fake trainer prints step times on a simulated clock (it does not sleep them), so the
    check of the log's step times against the command's wall clock is off here (it is tested
    in test_runner_integrity.py)."""
    monkeypatch.setattr(integrity, "WALL_CHECK", False)


def spec(**kw) -> BenchmarkSpec:
    base = {
        "name": "fake",
        "readme": "examples/fake/README.md",
        "row": {"model name": "fake", "cards": 8},
        "command": [PY, TRAINER],
        "cards": 8,
        "batch_size": 16,
    }
    base.update(kw)
    return BenchmarkSpec.model_validate(base)


def trainer(*args: str) -> list[str]:
    return [PY, TRAINER, "--step-time", str(TRUE_STEP), "--compile", str(COMPILE), *args]


EPOCHS = ["--steps", "300", "--steps-per-epoch", "25"]  # 12 epochs of 25 steps

# (id, trainer args, extra spec fields); every case prints 5 % noise around 0.1 s/step.
CASES = [
    ("mindone", ["--format", "mindone"], {}),
    ("mindone-interval", ["--format", "mindone", "--log-interval", "5", "--steps", "100"], {}),
    (
        "mindone_result",
        ["--format", "mindone_result", "--result", "out/result.log"],
        {"log": "out/result.log"},
    ),
    (
        "perf_recorder",
        ["--format", "perf_recorder", "--step-time", "0.2", "--result", "out/result.log"],
        {"log": "out/*.log", "_truth": 0.2},
    ),
    ("mindcv", ["--format", "mindcv", "--log-interval", "10", "--steps", "100"], {}),
    (
        "mindcv-sink",
        ["--format", "mindcv", "--sink", "--steps", "300", "--steps-per-epoch", "25"],
        {"sink_mode": True},
    ),
    (
        "mindcv_result",
        ["--format", "mindcv_result", *EPOCHS, "--result", "result.log"],
        {"log": "result.log", "steps_per_epoch": 25},
    ),
    (
        "mindocr_result",
        ["--format", "mindocr_result", *EPOCHS, "--result", "result.log"],
        {"log": "result.log", "steps_per_epoch": 25, "log_format": "mindocr_result"},
    ),
    ("mindyolo", ["--format", "mindyolo", "--log-interval", "5", "--steps", "100"], {}),
    (
        "mindyolo-sink",
        ["--format", "mindyolo", "--sink", "--steps", "300", "--steps-per-epoch", "25"],
        {"sink_mode": True},
    ),
    ("mindocr", ["--format", "mindocr", "--ansi", "--crlf"], {}),
    ("timemonitor", ["--format", "timemonitor", "--steps", "300", "--steps-per-epoch", "25"], {}),
    ("mindaudio", ["--format", "mindaudio", "--ansi"], {"log_format": "mindaudio"}),
    ("regex", ["--format", "regex"], {"regex": r"iter (?P<step>\d+) took (?P<ms>[\d.]+) ms"}),
]


@pytest.mark.parametrize(("args", "extra"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_measures_every_format_within_1_percent(tmp_path, args, extra):
    extra = dict(extra)
    truth = extra.pop("_truth", TRUE_STEP)
    if "--step-time" in args:
        cmd = [PY, TRAINER, "--compile", str(COMPILE), *args]
    else:
        cmd = trainer(*args)
    (tmp_path / "out").mkdir()
    result = run_benchmark(
        spec(command=cmd, **extra), workdir=tmp_path, root=tmp_path, env=dict(os.environ)
    )
    assert result.status == "ok", (result.message, result.log_tail)
    assert abs(result.s_per_step - truth) / truth < 0.01
    assert abs(result.graph_compile_s - COMPILE) < 0.5
    assert result.img_per_s == pytest.approx(8 * 16 / result.s_per_step, rel=1e-5)
    assert result.table["s/step"] == f"{result.s_per_step:.2f}"
    assert result.table["graph compile"] == f"{result.graph_compile_s:.2f}s"
    assert result.steps_measured >= 40
    assert result.returncode == 0
    assert result.log_tail == []
    assert result.step_times


def test_really_sleeping_trainer_is_streamed_and_measured(tmp_path):
    cmd = trainer("--format", "mindone", "--steps", "8", "--sleep", "--noise", "0")
    cmd[cmd.index("--compile") + 1] = "0.05"
    cmd[cmd.index("--step-time") + 1] = "0.02"
    result = run_benchmark(spec(command=cmd, warmup=1), workdir=tmp_path, root=tmp_path)
    assert result.status == "ok"
    assert result.s_per_step == pytest.approx(0.02)
    assert "training finished" in Path(result.output_path).read_text()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_hanging_trainer_times_out_and_its_process_group_is_killed(tmp_path):
    pidfile = tmp_path / "child.pid"
    s = spec(command=[PY, str(FAKE / "hang.py"), str(pidfile)], timeout=1, warmup=0)
    result = run_benchmark(s, workdir=tmp_path, root=tmp_path, kill_grace=1.0)
    assert result.status == "timeout"
    assert "timeout" in result.message
    child = int(pidfile.read_text())
    for _ in range(50):  # the orphaned child is reaped by init asynchronously
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)
    assert any("step_time(ms)" in line for line in result.log_tail)
    assert result.s_per_step == pytest.approx(0.1)  # partial measurement is kept


def test_runaway_output_is_stopped_before_it_fills_the_disk(tmp_path):
    """A trainer that logs its steps and then writes without end (here about 20 MB/s) is killed
    once its output passes max_output_mb, long before its timeout; the steps are measured."""
    code = (
        "import sys, time\n"
        "for g in range(1, 30):\n"
        "    print(f'epoch 1, step {g}, loss 0.5, global_step {g}, step_time(ms) 100.0')\n"
        "line = 'x' * 9999 + '\\n'\n"
        "while True:\n"
        "    sys.stdout.write(line); sys.stdout.flush(); time.sleep(0.0005)\n"
    )
    out = tmp_path / "out.log"
    s = spec(command=[PY, "-c", code], warmup=1, timeout=20, max_output_mb=1)
    result = run_benchmark(s, workdir=tmp_path, root=tmp_path, output_path=out, kill_grace=1.0)
    assert result.status == "failed", result.message  # not "timeout": stopped by the cap
    assert result.message.startswith("killed: its output passed max_output_mb (1 MiB)")
    assert 1024 * 1024 < out.stat().st_size < 8 * 1024 * 1024
    assert result.s_per_step == pytest.approx(0.1)  # what the output holds is measured


def test_max_output_mb_must_be_positive_and_finite():
    for bad in (0, -1, float("inf")):
        with pytest.raises(ValueError, match="max_output_mb"):
            spec(max_output_mb=bad)
    assert spec().max_output_mb == 2048


def test_crashing_trainer_keeps_the_log_tail(tmp_path):
    result = run_benchmark(
        spec(command=[PY, str(FAKE / "crash.py")]), workdir=tmp_path, root=tmp_path
    )
    assert result.status == "failed"
    assert result.returncode == 1
    assert "exited with code 1" in result.message
    assert any("Out of memory" in line for line in result.log_tail)
    assert 0 < len(result.log_tail) <= 50


def test_missing_program_is_a_failure_not_a_crash(tmp_path):
    result = run_benchmark(
        spec(command=["perfbot-no-such-program-xyz"]), workdir=tmp_path, root=tmp_path
    )
    assert result.status == "failed"
    assert result.returncode is None
    assert "cannot run" in result.message


def test_missing_workdir(tmp_path):
    result = run_benchmark(spec(workdir="nope"), workdir=tmp_path, root=tmp_path)
    assert result.status == "failed"
    assert "does not exist" in result.message


def test_no_samples_when_the_log_has_no_step_times(tmp_path):
    result = run_benchmark(
        spec(command=[PY, "-c", "print('hello')"]), workdir=tmp_path, root=tmp_path
    )
    assert result.status == "no_samples"
    assert "not recognised" in result.message
    assert result.log_tail == ["hello"]


def test_stale_log_file_is_not_used(tmp_path):
    old = tmp_path / "result.log"
    old.write_text("step\tloss\tlr\ttrain_time(s)\n1\t0.5\t0.0\t5.0\n2\t0.5\t0.0\t0.1\n")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    result = run_benchmark(
        spec(command=[PY, "-c", "pass"], log="result.log"), workdir=tmp_path, root=tmp_path
    )
    assert result.status == "no_samples"
    assert "not written during this run" in result.message


def test_no_shell_and_environment(tmp_path):
    code = (
        "import os, sys; print(sys.argv[1:]); "
        "print(os.environ['MS_COMPILER_CACHE_ENABLE'], os.environ['X'])"
    )
    s = spec(command=[PY, "-c", code, "a && rm -rf x", "$HOME"], env={"X": 7})
    result = run_benchmark(s, workdir=tmp_path, root=tmp_path, env={"PATH": os.environ["PATH"]})
    out = Path(result.output_path).read_text()
    assert "['a && rm -rf x', '$HOME']" in out
    assert "0 7" in out


def test_environment_comes_from_root(tmp_path):
    (tmp_path / "usr/local/Ascend/driver").mkdir(parents=True)
    (tmp_path / "usr/local/Ascend/driver/version.info").write_text("Version=24.1.rc2\n")
    result = run_benchmark(
        spec(command=trainer("--format", "mindone")),
        workdir=tmp_path,
        root=tmp_path,
        env={"PATH": os.environ["PATH"], "RUNNER_NAME": "npu-01", "GITHUB_SHA": "c" * 40},
    )
    assert result.environment.driver == "24.1.rc2"
    assert result.runner == "npu-01"
    assert result.commit == "c" * 40


def test_inference_img_per_s(tmp_path):
    s = spec(
        command=trainer("--format", "mindone"), inference=True, sampling_steps=40, batch_size=1
    )
    result = run_benchmark(s, workdir=tmp_path, root=tmp_path)
    assert result.img_per_s == pytest.approx(8 / (40 * result.s_per_step), rel=1e-5)
    assert result.table["steps"] == "40"


# ---- results files ------------------------------------------------------------------------


def test_write_and_load_results(tmp_path):
    result = run_benchmark(
        spec(command=trainer("--format", "mindone")), workdir=tmp_path, root=tmp_path
    )
    p = write_result(result, tmp_path / "res" / "a.json")
    loaded = load_results([p])
    assert loaded == [result]
    (tmp_path / "res" / "list.json").write_text(json.dumps([result.model_dump(mode="json")] * 2))
    assert len(load_results([tmp_path / "res"])) == 3


def test_load_results_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ResultsError, match=r"bad\.json: not valid JSON"):
        load_results([bad])
    bad.write_text('{"name": "x"}')
    with pytest.raises(ResultsError, match="not a perfbot bench result"):
        load_results([bad])
    with pytest.raises(ResultsError, match="no such file"):
        load_results([tmp_path / "missing.json"])


# ---- CLI ----------------------------------------------------------------------------------


def write_config(tmp_path: Path, benchmarks: list[dict]) -> Path:
    import yaml

    cfg = tmp_path / ".perfbot.yml"
    cfg.write_text(yaml.safe_dump({"benchmarks": benchmarks}))
    return cfg


def bench_entry(name: str, command: list[str], **kw) -> dict:
    return {
        "name": name,
        "readme": "README.md",
        "row": 1,
        "command": command,
        "cards": 1,
        "batch_size": 64,
        **kw,
    }


def test_bench_main_ok_and_failed(tmp_path, capsys):
    cfg = write_config(
        tmp_path,
        [
            bench_entry("good", trainer("--format", "mindone")),
            bench_entry("bad", [PY, str(FAKE / "crash.py")]),
        ],
    )
    out = tmp_path / "r" / "good.json"
    rc = bench_main(["--config", str(cfg), "--name", "good", "--out", str(out), "--quiet"])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["status"] == "ok" and data["name"] == "good"
    assert set(data["table"]) == {"cards", "batch size", "graph compile", "s/step", "img/s"}
    assert (tmp_path / "r" / "good.log").exists()
    rc = bench_main(
        ["--config", str(cfg), "--name", "bad", "--out", str(tmp_path / "b.json"), "--quiet"]
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert "failed" in err and "Out of memory" in err


def test_bench_main_user_errors_exit_2_without_traceback(tmp_path, capsys):
    cfg = write_config(tmp_path, [bench_entry("good", ["true"])])
    assert bench_main(["--config", str(cfg), "--name", "other"]) == 2
    assert "no benchmark named 'other'" in capsys.readouterr().err
    assert bench_main(["--config", str(tmp_path / "missing.yml"), "--name", "x"]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = write_config(tmp_path, [bench_entry("good", ["true"], cards=0, runs_on_x=1)])
    assert bench_main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cards" in err and "unknown key" in err and "Traceback" not in err
    assert bench_main(["--bogus"]) == 2


def test_result_model_round_trips_as_json():
    r = BenchResult(name="n", readme="R.md", row=2, status="no_samples", cards=1, batch_size=2)
    assert BenchResult.model_validate_json(r.model_dump_json()) == r


# ---- nothing hangs, nothing is left behind (security audit item 4) -----------------------


def _pids_alive(pidfile: Path) -> list[int]:
    if not pidfile.exists():
        return []
    pids = [int(x) for x in pidfile.read_text().split()]
    return [p for p in pids if _alive(p)]


def test_trainer_that_ignores_sigterm_and_leaves_setsid_children_ends_and_leaves_nothing(
    tmp_path,
):
    """`perfbot bench` as a separate process: it must end (guard: timeout + 30 s) with a result,
    and no process of the trainer's tree may survive, `setsid` and double-forked ones included."""
    pidfile = tmp_path / "pids"
    cfg = write_config(
        tmp_path,
        [bench_entry("evil", [PY, str(FAKE / "evil.py"), str(pidfile)], timeout=3, warmup=1)],
    )
    out = tmp_path / "evil.json"
    cmd = [PY, "-m", "perfbot", "bench", "--config", str(cfg), "--out", str(out)]
    err = tmp_path / "stderr"
    try:
        with err.open("wb") as err_fh:  # files, not pipes: an escaped child may hold them
            proc = subprocess.run(
                cmd, stdout=subprocess.DEVNULL, stderr=err_fh, timeout=3 + 30, check=False
            )
    except subprocess.TimeoutExpired:
        pytest.fail("perfbot bench hung past its timeout + 30 s")
    finally:
        time.sleep(0.5)
        leftovers = _pids_alive(pidfile)
        for pid in leftovers:  # clean up after a failing run
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 1, err.read_text()
    data = json.loads(out.read_text())
    assert data["status"] == "timeout"
    assert data["s_per_step"] == pytest.approx(0.1)
    assert len(pidfile.read_text().split()) == 4  # the trainer and its three escapees
    assert leftovers == []
    assert "late line from a daemon" in (tmp_path / "evil.log").read_text()


def test_daemon_left_behind_by_a_finished_trainer_is_killed(tmp_path):
    pidfile = tmp_path / "pid"
    code = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
        " start_new_session=True)\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "for g in range(1, 12):\n"
        "    ms = 3000.0 if g == 1 else 100.0\n"
        "    print(f'epoch 1, step {g}, loss 0.5, loss scale 1, global_step {g}, "
        "step_time(ms) {ms}')\n"
    )
    result = run_benchmark(
        spec(command=[PY, "-c", code], warmup=1, timeout=60), workdir=tmp_path, root=tmp_path
    )
    try:
        assert result.status == "ok"
        assert any("left running" in n for n in result.notes)
        assert _pids_alive(pidfile) == []
    finally:
        for pid in _pids_alive(pidfile):
            os.kill(pid, signal.SIGKILL)


# ---- real-run shapes (issue 9) ------------------------------------------------------------

MSRUN = str(FAKE / "msrun_like.py")


def test_msrun_rank_logs_are_all_read_and_the_slowest_rank_is_reported(tmp_path):
    s = spec(command=[PY, MSRUN], log="msrun_log/worker_*.log", cards=2, warmup=0)
    result = run_benchmark(s, workdir=tmp_path, root=tmp_path)
    assert result.status == "ok", result.message
    assert [r.rank for r in result.ranks] == [0, 1]
    assert [r.s_per_step for r in result.ranks] == [pytest.approx(0.2), pytest.approx(0.25)]
    assert result.s_per_step == pytest.approx(0.25)  # the slowest rank
    assert result.log_path.endswith("worker_1.log")
    assert result.img_per_s == pytest.approx(2 * 16 / 0.25)
    assert any("slowest rank's (rank 1)" in n for n in result.notes)


def test_msrun_console_with_interleaved_ranks_is_refused(tmp_path):
    result = run_benchmark(spec(command=[PY, MSRUN], cards=2), workdir=tmp_path, root=tmp_path)
    assert result.status == "no_samples"
    assert result.s_per_step is None
    assert "interleaves the output of 2 ranks" in result.message


def test_timemonitor_under_fit_is_refused_not_ten_times_too_fast(tmp_path):
    code = (
        "for e in range(1, 6):\n"
        "    print(f'epoch: {e} step: 30, loss is 2.2989187240600586')\n"
        "    print('Eval epoch time: 213.074 ms, per step time: 42.615 ms')\n"
        "    print('Train epoch time: 213.574 ms, per step time: 7.119 ms')\n"
        "    print(f\"Eval result: epoch {e}, metrics: {{'acc': 0.1125}}\")\n"
    )
    result = run_benchmark(spec(command=[PY, "-c", code]), workdir=tmp_path, root=tmp_path)
    assert result.status == "no_samples"
    assert result.s_per_step is None and result.img_per_s is None
    assert "Model.fit" in result.message and "Model.train" in result.message


@pytest.mark.parametrize("how", ["command", "banner", "spec"])
def test_pynative_run_reports_no_graph_compile(tmp_path, how):
    code = (
        "import sys\n"
        "if 'banner' in sys.argv: print('MindSpore mode[GRAPH(0)/PYNATIVE(1)]: 1')\n"
        "for b in range(1, 17):\n"
        "    t = 3.04 if b == 1 else 0.774\n"
        "    print(f'[2026-12-01 05:54:06] mindcv.utils.callbacks INFO - Epoch: [1/1], '\n"
        "          f'batch: [{b}/16], loss: 1.003487, lr: 0.000000, time: {t:.6f}s')\n"
    )
    cmd = [PY, "-c", code]
    extra = {}
    if how == "command":
        cmd += ["--mode", "1"]
    elif how == "banner":
        cmd += ["banner"]
    else:
        extra["mode"] = "pynative"
    result = run_benchmark(spec(command=cmd, **extra), workdir=tmp_path, root=tmp_path)
    assert result.status == "ok", result.message
    assert result.run_mode == "pynative"
    assert result.graph_compile_s is None
    assert "PyNative" in result.graph_compile_note
    assert "graph compile" not in result.table
    assert result.s_per_step == pytest.approx(0.774)


def test_first_window_not_slower_gives_no_compile_and_a_reason(tmp_path):
    code = (
        "for e, per in enumerate([209.0, 279.6, 280.0, 279.0, 279.6], 1):\n"
        "    print(f'Train epoch time: {per * 20:.3f} ms, per step time: {per:.3f} ms')\n"
    )
    result = run_benchmark(spec(command=[PY, "-c", code]), workdir=tmp_path, root=tmp_path)
    assert result.status == "ok"
    assert result.run_mode == "graph"
    assert result.graph_compile_s is None and result.first_step_s is None
    assert "could not be measured" in result.graph_compile_note
    assert "graph compile" not in result.table
