"""`check --min-severity`: the text (and every other) output narrowed to errors, as an adopter asks
for on a repository's first run (newcomer-2 item 6), each run a fresh `perfbot` process."""

from __future__ import annotations

import json
from pathlib import Path

from freshkit import run_perfbot

ROOT = Path(__file__).resolve().parent.parent
BROKEN = str(ROOT / "examples" / "broken")


def test_errors_only_shows_errors_and_says_what_it_left_out() -> None:
    every = run_perfbot(["check", BROKEN, "--format", "json"], {}, ROOT)
    findings = json.loads(every.stdout)["findings"]
    severities = [f["severity"] for f in findings]
    assert "error" in severities and "warning" in severities
    errors = severities.count("error")

    p = run_perfbot(["check", BROKEN, "--min-severity", "error"], {}, ROOT)
    lines = [ln for ln in p.stdout.splitlines() if "README.md:" in ln]
    assert len(lines) == errors and all(" error PB" in ln for ln in lines)
    assert f"{len(severities) - errors} finding(s) below error not shown" in p.stderr
    assert p.returncode == 1  # the errors still fail the run

    w = run_perfbot(
        ["check", BROKEN, "--min-severity", "warning", "--fail-on", "warning"], {}, ROOT
    )
    assert " info PB" not in w.stdout and w.returncode == 1


def test_a_bad_level_is_a_usage_error() -> None:
    p = run_perfbot(["check", BROKEN, "--min-severity", "errors"], {}, ROOT)
    assert p.returncode == 2 and "invalid choice" in p.stderr and "Traceback" not in p.stderr
