"""Run a command so that nothing it starts can outlive it or hang perfbot.

- Output goes to a **file** (never a pipe): a descendant that keeps stdout open cannot block us,
  and the echo to our stdout tails that file.
- On Linux perfbot becomes a **child subreaper** (`prctl(PR_SET_CHILD_SUBREAPER)`) for the run, so a
  descendant that double-forks or calls `setsid()` is re-parented to perfbot instead of init and
  stays findable. Descendants are walked with `psutil` (the `runner` extra:
  `pip install 'perfbot[runner]'`); without it only the command's process group can be killed.
- When the command ends, times out or is interrupted, every descendant (other sessions and process
  groups included) gets SIGTERM, then SIGKILL after a grace period, and is reaped.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["RunOutcome", "run_tree"]

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_POLL = 0.5  # seconds between descendant snapshots while the command runs
_SIZE_POLL = 0.05  # seconds between looks at the output's size (with `max_output`)


@dataclass
class RunOutcome:
    returncode: int | None
    timed_out: bool
    leftovers_killed: int = 0  # descendants still running after the command ended
    output_capped: bool = False  # its output passed `max_output` bytes: it was killed
    notes: list[str] = field(default_factory=list)


def _prctl() -> Any | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


@contextlib.contextmanager
def _subreaper():
    """Be a child subreaper while the block runs (Linux); restores the previous setting."""
    prctl = _prctl()
    if prctl is None:
        yield False
        return
    old = ctypes.c_int(0)
    got = prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(old), 0, 0, 0) == 0
    ok = prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield ok
    finally:
        if ok and got and not old.value:
            prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


class _Tree:
    """The descendants of one command: everything below us that was not there before it."""

    def __init__(self) -> None:
        # the command itself: subprocess waits for it (reaping it here would take its exit
        # status: Popen then reads 0, and a crashed run would look like a clean one)
        self.leader: int | None = None
        self.psutil: Any = None
        try:
            import psutil
        except ImportError:
            self.before: set[tuple[int, float]] = set()
            self.seen: dict[tuple[int, float], Any] = {}
            return
        self.psutil = psutil
        self.me = psutil.Process()
        self.before = {self._key(p) for p in self._children()}
        self.seen = {}

    def _children(self) -> list[Any]:
        try:
            return self.me.children(recursive=True)
        except self.psutil.Error:
            return []

    @staticmethod
    def _key(p: Any) -> tuple[int, float]:
        try:
            return (p.pid, p.create_time())
        except Exception:
            return (p.pid, 0.0)

    def snapshot(self) -> list[Any]:
        """Living descendants started since the command (also ones seen earlier that left the
        tree, when there is no subreaper to bring them back)."""
        if self.psutil is None:
            return []
        for p in self._children():
            k = self._key(p)
            if k not in self.before and p.pid != self.leader:
                self.seen.setdefault(k, p)
        alive = []
        for k, p in list(self.seen.items()):
            try:
                running = p.is_running() and p.status() != self.psutil.STATUS_ZOMBIE
            except self.psutil.Error:
                running = False
            if running:
                alive.append(p)
            else:
                self._reap(p)
                del self.seen[k]
        return alive

    def _reap(self, p: Any) -> None:
        # A zombie child of ours (the subreaper adopted it): collect its exit status.
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(p.pid, os.WNOHANG)

    def kill(self, leader: subprocess.Popen[bytes], grace: float) -> int:
        """SIGTERM every descendant and the leader's process group, SIGKILL what is left after
        `grace` seconds; returns how many processes were signalled."""
        signalled: set[int] = set()

        def send(sig: int) -> list[Any]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(leader.pid, sig)
            procs = self.snapshot()
            for p in procs:
                with contextlib.suppress(Exception):
                    p.send_signal(sig)
                    signalled.add(p.pid)
            return procs

        procs = send(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if leader.poll() is not None and not self.snapshot():
                break
            time.sleep(0.05)
        for _ in range(10):  # SIGKILL until nothing is left (a process may fork meanwhile)
            procs = send(signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                leader.wait(timeout=2.0)
            if self.psutil is not None and procs:
                self.psutil.wait_procs(procs, timeout=2.0)
            if not self.snapshot():
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            leader.wait(timeout=2.0)
        return len(signalled - {leader.pid})


def _echo(path: Path, stop: threading.Event, sink: IO[bytes]) -> None:
    """Copy what is appended to `path` to `sink` until `stop` is set (then drain and return)."""
    try:
        fh = path.open("rb")
    except OSError:
        return
    with fh:
        while True:
            chunk = fh.read(65536)
            if chunk:
                with contextlib.suppress(OSError, ValueError):
                    sink.write(chunk)
                    sink.flush()
                continue
            if stop.is_set():
                return
            stop.wait(0.1)


def run_tree(
    command: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    output: Path,
    timeout: float,
    kill_grace: float = 5.0,
    echo_to: IO[bytes] | None = None,
    max_output: int | None = None,
) -> RunOutcome:
    """Run `command` with stdout+stderr written to the file `output`; kill its whole tree on
    timeout, on an exception (Ctrl-C), when `output` grows past `max_output` bytes (looked at
    every `_SIZE_POLL` s: a runaway trainer must not fill the runner's disk) and, when it
    exits, whatever it left running.

    Raises OSError when the command cannot be started.
    """
    with _subreaper(), output.open("wb") as out_fh:
        tree = _Tree()
        proc = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out_fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        tree.leader = proc.pid
        stop = threading.Event()
        echo = None
        if echo_to is not None:
            echo = threading.Thread(target=_echo, args=(output, stop, echo_to), daemon=True)
            echo.start()
        outcome = RunOutcome(returncode=None, timed_out=False)
        deadline = time.monotonic() + timeout
        poll = _POLL if max_output is None else _SIZE_POLL
        next_snapshot = 0.0
        try:
            while True:
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    outcome.timed_out = True
                    tree.kill(proc, kill_grace)
                    break
                if max_output is not None and os.fstat(out_fh.fileno()).st_size > max_output:
                    outcome.output_capped = True
                    tree.kill(proc, kill_grace)
                    break
                try:
                    proc.wait(timeout=min(poll, left))
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= next_snapshot:
                        tree.snapshot()  # remember descendants before they can escape
                        next_snapshot = time.monotonic() + _POLL
            if not outcome.timed_out and tree.snapshot():
                outcome.leftovers_killed = tree.kill(proc, min(kill_grace, 2.0))
                outcome.notes.append(
                    f"killed {outcome.leftovers_killed} process(es) the command left running"
                )
        except BaseException:  # Ctrl-C: do not leave the trainer running
            tree.kill(proc, kill_grace)
            raise
        finally:
            stop.set()
            if echo is not None:
                echo.join(timeout=5.0)
        if tree.psutil is None and outcome.timed_out:
            outcome.notes.append(
                "psutil is not installed (pip install 'perfbot[runner]'): only the command's "
                "process group was killed"
            )
        outcome.returncode = proc.returncode
        return outcome
