"""`perfbot` as a workflow step runs it: a fresh process, with none of the runner's GITHUB_*,
GH_* or RUNNER_* variables but those a test gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# `perfbot bench` with the check of a log's step times against the command's wall clock off: the
# fake trainers print step times they do not spend (tests/runner/test_runner_integrity.py checks
# the wall clock)
SIMULATED_CLOCK = (
    "import sys; from perfbot.runner import integrity; integrity.WALL_CHECK = False; "
    "from perfbot.cli import main; sys.exit(main(sys.argv[1:]))"
)


def run_perfbot(
    argv: list[str], env: dict[str, str], cwd: Path | str, timeout: float = 120
) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "RUNNER_"))}
    program = ["-c", SIMULATED_CLOCK] if argv[:1] == ["bench"] else ["-m", "perfbot"]
    return subprocess.run(
        [sys.executable, *program, *argv],
        env={**base, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
