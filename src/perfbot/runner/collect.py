"""Measuring a finished run: find the benchmark's log(s) in its workdir (one per rank when a
`log` glob names several), read and measure each, and fill the `BenchResult`; the reading runs in
a forked child under a deadline."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from perfbot.runner.hints import LOSS_ONLY, msrun_refusal, not_recognised, scan_hints
from perfbot.runner.integrity import check_cv, check_wall, last_run, run_note
from perfbot.runner.logs import LogFormatError, StepSample, read_log
from perfbot.runner.measure import format_compile, format_number, img_per_s, measure
from perfbot.runner.result import BenchResult, RankResult, StepTime
from perfbot.runner.spec import BenchmarkSpec

MAX_STEP_TIMES = 20_000
_LOG_MTIME_SLACK = 2.0  # seconds; a `log` file older than the run start minus this is stale


_RANK_RE = re.compile(r"(?:worker|rank)[_-]?(\d+)|[_-](\d+)\.(?:log|txt)$", re.I)


def _rank_of(path: Path) -> int | None:
    """Rank number in a log file name: `worker_3.log`, `rank0.log`, `x_rank_1.log`, `log_2.txt`."""
    m = _RANK_RE.search(path.name)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


MAX_LOG_ENTRIES = 100_000  # directory entries a `log` glob may visit


def _glob_in(cwd: Path, pattern: str, cap: int = MAX_LOG_ENTRIES) -> tuple[list[Path], bool]:
    """Files under `cwd` matching the relative glob `pattern` (`*`, `?`, `[...]` within one
    name, `**` for any folders), and whether the walk stopped at `cap` entries.

    Symlinked folders are never entered and a symlinked file counts only when it resolves
    inside `cwd`: the tree is the pull request's, and two committed links such as
    `cache/a -> ..` would make `glob.glob(..., recursive=True)` walk for hours."""
    parts = [x for x in pattern.replace("\\", "/").split("/") if x not in ("", ".")]
    if not parts or pattern.startswith("/") or ".." in parts:
        return [], False
    root = os.path.realpath(cwd)
    found: list[Path] = []
    visited = 0
    seen: set[tuple[str, int]] = set()
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        folder, i = stack.pop()
        if (folder, i) in seen:
            continue
        seen.add((folder, i))
        part, last = parts[i], i == len(parts) - 1
        if part == "**" and not last:  # `**/x`: x here too (zero folders); `a/**`: any file
            stack.append((folder, i + 1))
        try:
            it = os.scandir(folder)
        except OSError:
            continue
        with it:  # entry by entry: a folder of millions of files stops at the cap, unread
            for e in it:
                visited += 1
                if visited > cap:
                    return found, True
                _glob_entry(e, part, i, last, root, stack, found)
    return found, False


def _glob_entry(e: os.DirEntry, part: str, i: int, last: bool, root: str,
                stack: list[tuple[str, int]], found: list[Path]) -> None:  # fmt: skip
    """One directory entry of :func:`_glob_in`'s walk: a match, a folder to enter, or nothing."""
    hidden = e.name.startswith(".")
    try:
        is_dir = e.is_dir(follow_symlinks=False)
    except OSError:
        return
    if part == "**":
        if hidden:
            return
        if is_dir:
            stack.append((e.path, i))
        elif last and _file_inside(e, root):
            found.append(Path(e.path))
        return
    if hidden and not part.startswith("."):
        return
    if not fnmatch.fnmatchcase(e.name, part):
        return
    if last:
        if not is_dir and _file_inside(e, root):
            found.append(Path(e.path))
    elif is_dir:
        stack.append((e.path, i + 1))


def _file_inside(entry: os.DirEntry, root: str) -> bool:
    """A regular file, or a symlink to one inside `root`."""
    try:
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            return real.startswith(root + os.sep) and os.path.isfile(real)
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _find_logs(pattern: str, cwd: Path, since: float) -> tuple[list[Path], str]:
    """Files matching `pattern` (relative to `cwd`) written since `since` (epoch secs), newest
    first: one per rank when their names carry distinct rank numbers, else only the newest."""
    if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
        return [], f"log file '{pattern}' must be a path inside the benchmark's workdir"
    matches, capped = _glob_in(cwd, pattern, MAX_LOG_ENTRIES)
    if capped:
        return [], (
            f"log file '{pattern}': the search visited {MAX_LOG_ENTRIES:,} entries under {cwd} "
            "and stopped; name the log's folder in `log`"
        )
    files = []
    for p in matches:
        with contextlib.suppress(OSError):
            if p.is_file():
                files.append((p.stat().st_mtime, p))
    if not files:
        return [], f"log file '{pattern}' not found in {cwd}"
    fresh = sorted(((m, p) for m, p in files if m >= since - _LOG_MTIME_SLACK), reverse=True)
    if not fresh:
        return [], f"log file '{pattern}' was not written during this run (it is older)"
    paths = [p for _, p in fresh]
    ranked = [(rank, p) for p in paths if (rank := _rank_of(p)) is not None]
    if len(paths) > 1 and len(ranked) == len(paths) and len({r for r, _ in ranked}) == len(ranked):
        return [p for _, p in sorted(ranked)], ""
    return paths[:1], ""


_MODE_KEYS = {"mode", "ms_mode", "environment.mode", "system.mode"}


def _pynative_in_command(command: Sequence[str]) -> bool | None:
    """True/False when the command sets MindSpore's mode (`--mode 1`, `--ms_mode=0`,
    `system.mode=1`, ...), None when it does not say."""
    for i, arg in enumerate(command):
        key, eq, value = arg.partition("=")
        if key.lstrip("-") not in _MODE_KEYS:
            continue
        if not eq:
            value = command[i + 1] if i + 1 < len(command) else ""
        value = value.strip().lower()
        if value in ("1", "pynative", "pynative_mode"):
            return True
        if value in ("0", "graph", "graph_mode"):
            return False
    return None


_MEASURED_FIELDS = (
    "log_format",
    "log_path",
    "s_per_step",
    "iqr",
    "cv",
    "graph_compile_s",
    "first_step_s",
    "img_per_s",
    "steps_measured",
    "outliers_dropped",
    "measure_mode",
    "table",
    "step_times",
    "run_mode",
    "graph_compile_note",
    "flags",
)


PARSE_DEADLINE = 600.0  # seconds for reading and measuring the log(s) after the command


def _measure_with_deadline(
    result: BenchResult, spec: BenchmarkSpec, cwd: Path, out_path: Path, since: float
) -> None:
    """:func:`_measure_into` in a forked child killed after `PARSE_DEADLINE` seconds: the log and
    the `regex` are the pull request's, and a match that backtracks, or a huge log, must not hold
    the runner after the benchmark's own timeout is over. Without fork (not Linux/macOS) it
    runs in this process."""
    if not hasattr(os, "fork"):
        _measure_into(result, spec, cwd, out_path, since)
        return
    fd, tmp = tempfile.mkstemp(prefix="perfbot-measure-", suffix=".json")
    os.close(fd)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: measure, write the result, leave without cleanup handlers
        code = 1
        try:
            _measure_into(result, spec, cwd, out_path, since)
            Path(tmp).write_text(result.model_dump_json(), encoding="utf-8")
            code = 0
        except BaseException:
            if os.environ.get("PERFBOT_DEBUG"):
                import traceback

                traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + PARSE_DEADLINE
    status = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                status = None
                break
            time.sleep(0.02)
        if status is not None and os.waitstatus_to_exitcode(status) == 0:
            got = BenchResult.model_validate_json(Path(tmp).read_text(encoding="utf-8"))
            for name in BenchResult.model_fields:  # the child began as a copy of `result`
                setattr(result, name, getattr(got, name))
        elif status is None:
            result.message = (
                f"reading the log took longer than {PARSE_DEADLINE:g} s and was stopped (a "
                "`regex` or `log` glob too slow for this log?)"
            )
        else:
            result.message = "reading the log failed (a perfbot bug: PERFBOT_DEBUG=1 says more)"
    except BaseException:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _measure_into(
    result: BenchResult, spec: BenchmarkSpec, cwd: Path, out_path: Path, since: float
) -> None:
    """Parse the log(s) and fill the measurement fields of `result` (and its message if none).

    With one log per rank (a `log` glob such as `msrun_log/worker_*.log`), every rank is measured
    and the result is the slowest rank's, with each rank's figures in `ranks`."""
    if spec.log:
        paths, problem = _find_logs(spec.log, cwd, since)
        if not paths:
            result.message = problem
            return
    else:
        paths = [out_path]
    pynative = None if spec.mode == "auto" else spec.mode == "pynative"
    if pynative is None:
        pynative = _pynative_in_command(spec.command)
    if len(paths) == 1:
        _measure_log(result, spec, paths[0], pynative)
        return
    per_rank: list[tuple[int, BenchResult]] = []
    for path in paths:
        rank = _rank_of(path)
        sub = result.model_copy(deep=True)
        sub.notes = []
        _measure_log(sub, spec, path, pynative)
        result.ranks.append(
            RankResult(
                rank=rank,
                log_path=str(path),
                log_format=sub.log_format,
                s_per_step=sub.s_per_step,
                graph_compile_s=sub.graph_compile_s,
                steps_measured=sub.steps_measured,
                message="" if sub.s_per_step is not None else sub.message,
            )
        )
        per_rank.append((rank if rank is not None else -1, sub))
    measured = [(r, sub) for r, sub in per_rank if sub.s_per_step is not None]
    if not measured:
        first = per_rank[0][1]
        result.log_path, result.log_format = first.log_path, first.log_format
        result.message = f"no rank log gave step times ({len(paths)} read): {first.message}"
        return
    rank, slowest = max(measured, key=lambda item: item[1].s_per_step or 0.0)
    for name in _MEASURED_FIELDS:
        setattr(result, name, getattr(slowest, name))
    figures = ", ".join(
        f"rank {r.rank}: {r.s_per_step:.4f}" if r.s_per_step is not None else f"rank {r.rank}: -"
        for r in result.ranks
    )
    result.notes.append(
        f"read {len(paths)} rank logs; s/step is the slowest rank's (rank {rank}): {figures}"
    )
    result.notes.extend(slowest.notes)
    silent = [r.rank for r in result.ranks if r.s_per_step is None]
    if silent:
        result.notes.append(f"no step times in the log of rank(s) {silent}")


def _measure_log(
    result: BenchResult, spec: BenchmarkSpec, log_path: Path, pynative: bool | None
) -> None:
    """Parse one log (streamed) and fill the measurement fields of `result`."""
    result.log_path = str(log_path)
    try:
        read = read_log(
            log_path,
            spec.log_format.value,
            regex=spec.regex,
            steps_per_epoch=spec.steps_per_epoch,
            regex_times=spec.regex_times,
        )
    except LogFormatError as exc:
        result.message = str(exc)
        return
    except OSError as exc:
        result.message = f"cannot read the log {log_path}: {exc.strerror or exc}"
        return
    fmt, samples = read.fmt, read.samples
    result.log_format = fmt
    if fmt is None:
        hints = scan_hints(log_path)
        result.message = LOSS_ONLY if hints.loss_lines else not_recognised(hints)
        return
    result.notes.extend(read.notes)
    result.step_times = [StepTime(**_sample_dict(s)) for s in samples[:MAX_STEP_TIMES]]
    if len(samples) > MAX_STEP_TIMES:
        result.notes.append(f"step_times keeps the first {MAX_STEP_TIMES} of {len(samples)}")
    if read.refusal:
        result.message = read.refusal
        if read.ranks or "interleaves" in read.refusal:
            result.message = msrun_refusal(read.refusal, scan_hints(log_path))
        return
    if not samples:
        result.message = f"no step times found in the log (read as {fmt})"
        return
    samples, runs = last_run(samples)
    if runs:
        result.notes.append(run_note(samples, runs))
    if pynative is None:
        pynative = read.pynative
    result.run_mode = "pynative" if pynative else "graph"
    m = measure(
        samples,
        warmup=spec.warmup,
        sink_mode=spec.sink_mode,
        outlier_seconds=spec.outlier_seconds,
        outlier_factor=spec.outlier_factor,
        pynative=bool(pynative),
    )
    result.notes.extend(m.notes)
    result.measure_mode = m.mode
    result.steps_measured = m.steps_measured
    result.outliers_dropped = m.outliers_dropped
    result.graph_compile_s = _r(m.graph_compile_s)
    result.graph_compile_note = m.compile_note
    result.first_step_s = _r(m.first_step_s)
    # the steps the parser counted, lines it dropped included (TimeMonitor under Model.fit)
    last_step = max(max(samples.step), read.last_step)
    if spec.steps and last_step < spec.steps:
        result.notes.append(f"the log ends at step {last_step} of the expected {spec.steps}")
    if m.s_per_step is None or m.s_per_step <= 0:
        result.message = "not enough step times after the first step to measure s/step"
        return
    checks = [
        check_wall(samples, "epoch" if m.mode == "epoch" else "step", result.duration),
        check_cv(m.cv, m.steps_measured),
    ]
    for check in checks:
        result.notes.extend(check.notes)
        result.flags.extend(check.flags)
        if check.refusal:
            result.message = check.refusal
            return
    result.s_per_step = _r(m.s_per_step)
    result.iqr = _r(m.iqr)
    result.cv = _r(m.cv)
    ips = img_per_s(
        m.s_per_step,
        spec.cards,
        spec.batch_size,
        inference=spec.inference,
        sampling_steps=spec.sampling_steps,
    )
    result.img_per_s = _r(ips)
    table = {"cards": str(spec.cards), "batch size": str(spec.batch_size)}
    if spec.inference and spec.sampling_steps:
        table["steps"] = str(spec.sampling_steps)
    if m.graph_compile_s is not None:
        table["graph compile"] = format_compile(m.graph_compile_s)
    table["s/step"] = format_number(m.s_per_step)
    table["img/s"] = format_number(ips)
    result.table = table


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _sample_dict(s: StepSample) -> dict[str, object]:
    return {"step": s.step, "seconds": round(s.seconds, 6), "span": s.span, "kind": s.kind}
