"""The process tree of a benchmark: watching the command's descendants must never take the
command's own exit status, which `subprocess` reads (a crashed run reported as `ok`)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from perfbot.runner import proctree

psutil = pytest.importorskip("psutil")


def _zombie(pid: int) -> None:
    """Wait until ``pid`` has exited and not been waited for."""
    p = psutil.Process(pid)
    for _ in range(400):
        if p.status() == psutil.STATUS_ZOMBIE:
            return
        time.sleep(0.01)
    raise AssertionError(f"{pid} did not exit")


def test_a_snapshot_after_the_command_exits_leaves_its_exit_status_to_subprocess():
    """The race behind a crashed trainer reported `ok`: the command exits between two looks,
    the tree's snapshot sees a zombie child of ours and reaped it, and Popen then read 0."""
    tree = proctree._Tree()
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"], start_new_session=True)
    tree.leader = proc.pid
    _zombie(proc.pid)
    assert tree.snapshot() == []
    assert proc.wait(timeout=10) == 3


def test_run_tree_reports_the_exit_code_of_a_command_that_ends_at_once(tmp_path):
    """Many short runs (they end around the first look at the output's size): every one keeps
    its exit code."""
    codes = set()
    for i in range(12):
        out = tmp_path / f"out{i}.log"
        outcome = proctree.run_tree(
            [sys.executable, "-c", "raise SystemExit(5)"],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin"},
            output=out,
            timeout=60,
            max_output=1 << 20,
        )
        codes.add(outcome.returncode)
    assert codes == {5}
