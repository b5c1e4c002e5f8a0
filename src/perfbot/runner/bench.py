"""`perfbot bench`: run one benchmark's training command and measure it.

The command runs without a shell, in its own session, with a timeout after which every process it
started is killed (`perfbot.runner.proctree`). Its stdout and stderr go (merged, in order) to an
output file and, with `echo`, to our stdout (tailed from that file). Then the log (that output,
or the benchmark's `log` file) is parsed, measured and written as a `BenchResult` JSON file.

The result model and results files are in `result`, finding and measuring the logs in
`collect`, the guard of the Actions job (environment, file commands) in `jobguard`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from perfbot.display import no_command
from perfbot.runner.collect import _measure_with_deadline
from perfbot.runner.envinfo import detect_environment
from perfbot.runner.jobguard import (
    _file_command_paths,
    _restore_file_commands,
    _snapshot,
    benchmark_env,
    stop_commands_token,
)
from perfbot.runner.logs import clean_lines
from perfbot.runner.msversion import benchmark_interpreter
from perfbot.runner.proctree import run_tree
from perfbot.runner.result import BenchResult, ResultsError, StepTime, load_results, write_result
from perfbot.runner.spec import BenchmarkSpec, SpecError, load_benchmarks

__all__ = [
    "BenchResult",
    "ResultsError",
    "StepTime",
    "bench_main",
    "load_results",
    "run_benchmark",
    "write_result",
]

TAIL_LINES = 50


# ---- running ------------------------------------------------------------------------------


def _tail(path: Path, n: int = TAIL_LINES) -> list[str]:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            start = max(0, fh.tell() - 256 * 1024)
            fh.seek(start)
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", errors="replace")
    if not text.endswith(("\n", "\r")):
        text += "\n"  # keep an unfinished last line: it may be the error
    lines = clean_lines(text)
    if start > 0 and lines:
        lines = lines[1:]  # cut mid-line
    return lines[-n:]


def _python_of(spec: BenchmarkSpec, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The benchmark's interpreter (its `python:`, the command's `python`, or a console script's
    `#!` interpreter), whose installed MindSpore is the benchmark's."""
    return benchmark_interpreter(spec.command, env, explicit=spec.python, cwd=cwd)


def run_benchmark(
    spec: BenchmarkSpec,
    *,
    workdir: str | Path,
    root: str | Path = "/",
    env: Mapping[str, str] | None = None,
    output_path: str | Path | None = None,
    echo: bool = False,
    kill_grace: float = 5.0,
) -> BenchResult:
    """Run `spec`'s command and measure it.

    `workdir` is the directory of `.perfbot.yml` (the benchmark's `workdir`, `readme` and `log`
    are relative to it); `root` is where the Ascend install is looked up (tests use a fake tree);
    `env` replaces `os.environ` as the base environment; `output_path` is where stdout+stderr
    are saved (default: a temporary file); `echo` also copies them to our stdout.
    """
    base = Path(workdir)
    cwd = (base / spec.workdir).resolve()
    job_env = os.environ if env is None else env
    proc_env = benchmark_env(job_env)
    proc_env.setdefault("PYTHONUNBUFFERED", "1")
    proc_env["MS_COMPILER_CACHE_ENABLE"] = "0"  # measure graph compile from scratch
    proc_env.update(spec.env)

    if output_path is None:
        fd, tmp = tempfile.mkstemp(prefix=f"perfbot-{spec.name}-", suffix=".log")
        os.close(fd)
        out_path = Path(tmp)
    else:
        out_path = Path(output_path)
        out_path.parent.mkdir(parents=True, exist_ok=True)

    started_wall = time.time()
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    result = BenchResult(
        name=spec.name,
        readme=spec.readme,
        row=spec.row,
        status="failed",
        started_at=started_at,
        command=list(spec.command),
        cards=spec.cards,
        batch_size=spec.batch_size,
        inference=spec.inference,
        sampling_steps=spec.sampling_steps,
        sink_mode=spec.sink_mode,
        output_path=str(out_path),
    )
    # the runner's own environment, not the benchmark's `env` (the pull request's choice): a
    # CANN path, a runner name or a commit are read from where the job runs
    environment = detect_environment(
        root,
        workdir=cwd,
        environ=job_env,  # the runner's CANN: never the benchmark's env
        python=_python_of(spec, proc_env, cwd),
        checkout=base.resolve(),
    )
    result.environment = environment
    result.commit = environment.commit
    result.runner = environment.runner

    if not cwd.is_dir():
        result.message = f"workdir {cwd} does not exist"
        return result

    t0 = time.monotonic()
    echo_to = getattr(sys.stdout, "buffer", None) if echo else None
    token = stop_commands_token() if echo_to is not None else None
    if token:
        sys.stdout.write(f"::stop-commands::{token}\n")
        sys.stdout.flush()
    commands_before = _snapshot(_file_command_paths(job_env))
    try:
        outcome = run_tree(
            spec.command,
            cwd=cwd,
            env=proc_env,
            output=out_path,
            timeout=spec.timeout,
            kill_grace=kill_grace,
            echo_to=echo_to,
            max_output=int(spec.max_output_mb * 1024 * 1024),
        )
    except OSError as exc:
        msg = f"cannot run '{spec.command[0]}': {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            out_path.write_text(msg + "\n", encoding="utf-8")
        result.message = msg
        result.log_tail = [msg]
        return result
    finally:
        if token:
            sys.stdout.write(f"\n::{token}::\n")
            sys.stdout.flush()
        tampered = _restore_file_commands(commands_before, job_env)
    timed_out = outcome.timed_out
    result.notes.extend(outcome.notes)
    result.duration = round(time.monotonic() - t0, 3)
    result.returncode = outcome.returncode

    _measure_with_deadline(result, spec, cwd, out_path, started_wall)

    if tampered:
        result.status = "failed"
        result.message = (
            "the benchmark wrote to the job's file-command files ("
            + ", ".join(tampered[:5])
            + "), through which a step sets the environment, PATH and outputs of the job's "
            "later steps; perfbot restored them and does not report this run"
        )
    elif timed_out:
        result.status = "timeout"
        result.message = f"killed after the {spec.timeout:g} s timeout" + _measured(result)
    elif outcome.output_capped:
        result.status = "failed"
        result.message = (
            f"killed: its output passed max_output_mb ({spec.max_output_mb:g} MiB)"
            + _measured(result)
        )
    elif outcome.returncode != 0:
        result.status = "failed"
        result.message = f"the command exited with code {outcome.returncode}" + _measured(result)
    elif result.s_per_step is None:
        result.status = "no_samples"
        if not result.message:
            result.message = "no step times found in the log"
    else:
        result.status = "ok"
        result.message = _summary(result)
    if result.status != "ok":
        result.log_tail = _tail(out_path)
    return result


def _measured(result: BenchResult) -> str:
    if result.s_per_step is None:
        return ""
    return f" (partial: {result.s_per_step:.4f} s/step over {result.steps_measured} steps)"


def _summary(r: BenchResult) -> str:
    parts = [f"{r.s_per_step:.4f} s/step over {r.steps_measured} steps"]
    if r.cv is not None:
        parts.append(f"CV {r.cv * 100:.1f}%")
    if r.graph_compile_s is not None:
        parts.append(f"graph compile {r.graph_compile_s:.1f} s")
    if r.img_per_s is not None:
        parts.append(f"{r.img_per_s:.2f} img/s")
    return ", ".join(parts)


# ---- CLI ----------------------------------------------------------------------------------


def _bench_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfbot bench",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Run one benchmark from .perfbot.yml and write its measured result as JSON.",
    )
    p.add_argument("--config", default=".perfbot.yml", help="config file (default .perfbot.yml)")
    p.add_argument("--name", help="benchmark to run (may be omitted if there is only one)")
    p.add_argument("--out", help="results JSON to write (default perfbot-bench-NAME.json)")
    p.add_argument(
        "--output", help="where to save the command's stdout+stderr (default: --out with .log)"
    )
    p.add_argument("--root", default="/", help="filesystem root for Ascend version files")
    p.add_argument("--quiet", action="store_true", help="do not echo the command's output")
    return p


def _err(msg: str) -> None:
    for line in msg.splitlines() or [msg]:
        print(f"perfbot bench: error: {line}", file=sys.stderr)


def bench_main(argv: list[str]) -> int:
    """`perfbot bench`: 0 measured, 1 failed/timeout/no samples, 2 usage or config error."""
    try:
        args = _bench_parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage/help
        return int(exc.code) if isinstance(exc.code, int) else 2
    config = Path(args.config)
    try:
        specs = load_benchmarks(config)
    except SpecError as exc:
        _err(str(exc))
        return 2
    names = [s.name for s in specs]
    if args.name is None:
        if len(specs) != 1:
            _err(f"--name is required: {config} has benchmarks {', '.join(names)}")
            return 2
        spec = specs[0]
    else:
        matching = [s for s in specs if s.name == args.name]
        if not matching:
            _err(f"no benchmark named '{args.name}' in {config}; there are: {', '.join(names)}")
            return 2
        spec = matching[0]
    out = Path(args.out) if args.out else Path(f"perfbot-bench-{spec.name}.json")
    output = Path(args.output) if args.output else out.with_suffix(".log")
    if output.resolve() == out.resolve():
        _err("--output must differ from --out")
        return 2
    print(f"perfbot bench: running {spec.name}: {' '.join(spec.command)}", file=sys.stderr)
    sys.stdout.flush()
    result = run_benchmark(
        spec,
        workdir=config.parent,
        root=args.root,
        output_path=output,
        echo=not args.quiet,
    )
    try:
        write_result(result, out)
    except OSError as exc:
        _err(f"cannot write {out}: {exc.strerror or exc}")
        return 2
    sys.stdout.flush()
    print(no_command(f"perfbot bench: {spec.name}: {result.status}: {result.message}"),
          file=sys.stderr)  # fmt: skip
    for note in result.notes:
        print(no_command(f"  note: {note}"), file=sys.stderr)
    if result.table:
        cells = ", ".join(f"{k} {v}" for k, v in result.table.items())
        print(f"  row: {cells}", file=sys.stderr)
    if result.status in ("failed", "timeout") and result.log_tail and args.quiet:
        print("  last lines of the output:", file=sys.stderr)
        for line in result.log_tail[-20:]:
            print(no_command(f"    {line}"), file=sys.stderr)
    print(f"  wrote {out} (output in {output})", file=sys.stderr)
    return 0 if result.status == "ok" else 1
