"""Safe and unsafe fixes (ruff's model): a fix that changes a measured or declared value is
applied only with `perfbot fix --unsafe-fixes`, counted apart, marked in JSON and in the review."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given

sys.path.insert(0, str(Path(__file__).parent / "github"))

from review_kit import BROKEN

from perfbot.cli import main
from perfbot.config import Config
from perfbot.engine import applicable, check_source, fix_source
from perfbot.github.review import comment_body, plan_file
from perfbot.registry import all_rules, get_rule
from perfbot.source import Source
from perfbot.spec.forms import parse_time
from test_hypothesis import CONFIGS, SETTINGS, document

# BROKEN has one safe-only row (17: `o2`), two rows whose img/s disagrees with the other cells
# (15, 16: a recomputed img/s is unsafe) and a driver spelled without its dot (7: safe).
WRONG_IMG_S = "| toynet-m | 8 | 16 | 256 x 256 | O2 | 3~5 mins | 0.80 | 99.99 |"


def test_rules_say_which_fixes_are_unsafe():
    all_rules()
    assert get_rule("PB401").fix_safety == "unsafe"  # a recomputed img/s
    assert get_rule("PB501").fix_safety == "unsafe"  # a CANN version
    assert get_rule("PB203").fix_safety == "unsafe"  # a row taken from the matrix
    assert get_rule("PB101").fix_safety == "unsafe"
    assert get_rule("PB301").fix_safety == "safe"  # a header's spelling
    assert get_rule("PB413").fix_safety == "safe"  # `o2` -> `O2`
    assert get_rule("PB201").fix_safety == "-"  # no fix at all


def test_fix_source_safe_only_keeps_measurements():
    src = Source.from_text(BROKEN, path="README.md")
    safe, fixed = fix_source(src, Config(), unsafe=False)
    assert WRONG_IMG_S.replace("256 x 256", "256x256") in safe  # the resolution is presentation
    assert "| 99.99 |" in safe and "| 0.50 | 20.00 |" in safe  # img/s untouched, 0.5 padded
    assert "| O2 | 5~8 mins |" in safe and "24.1.RC2" in safe
    assert all(f.fix is not None and f.fix.safe for f in fixed)
    left = check_source(Source.from_text(safe), Config()).findings
    assert {f.rule for f in left if f.fixable} == {"PB401"}
    assert all(f.unsafe_fix for f in left if f.fixable)
    assert fix_source(Source.from_text(safe), Config(), unsafe=False)[0] == safe  # idempotent
    everything, _ = fix_source(src, Config(), unsafe=True)
    assert "| 99.99 |" not in everything and "| 160.00 |" in everything


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text(BROKEN, encoding="utf-8")
    return tmp_path


def test_cli_fix_leaves_unsafe_fixes_and_says_how_many(repo, capsys):
    main(["fix", "README.md"])
    out = capsys.readouterr().out
    text = (repo / "README.md").read_text(encoding="utf-8")
    assert "| 99.99 |" in text and "| o2 |" not in text
    assert "2 unsafe fixes not applied" in out and "--unsafe-fixes" in out
    main(["check", "README.md"])
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert "2 fixable with `perfbot fix --unsafe-fixes`" in summary
    main(["fix", "--unsafe-fixes", "README.md"])
    out = capsys.readouterr().out
    text = (repo / "README.md").read_text(encoding="utf-8")
    assert "| 99.99 |" not in text and "unsafe fix" not in out


def test_check_summary_counts_safe_and_unsafe_apart(repo, capsys):
    main(["check", "README.md"])
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert "fixable with `perfbot fix`; 2 more with `perfbot fix --unsafe-fixes`" in summary


def test_json_says_which_fix_is_unsafe(repo, capsys):
    main(["check", "--format", "json", "README.md"])
    data = json.loads(capsys.readouterr().out)
    by_rule = {f["rule"]: f["fix"]["applicability"] for f in data["findings"] if f["fix"]}
    assert by_rule["PB401"] == "unsafe" and by_rule["PB413"] == "safe"


def test_review_offers_an_unsafe_fix_and_says_either_cell_may_be_wrong():
    src = Source.from_text(BROKEN, path="m/README.md")
    p = plan_file(check_source(src, Config()), Config())
    by_line = {it.start_line: it for it in p.items}
    unsafe_body = comment_body(by_line[16])  # img/s recomputed: still suggested
    assert "```suggestion" in unsafe_body
    assert "either may be the wrong one" in unsafe_body
    safe_body = comment_body(by_line[17])  # `o2` -> `O2` only
    assert "```suggestion" in safe_body and "either may be the wrong one" not in safe_body


def test_statistics_count_unsafe_fixes(repo, capsys):
    main(["check", "--statistics", "README.md"])
    lines = capsys.readouterr().out.splitlines()
    pb401 = next(ln for ln in lines if "PB401" in ln)
    assert pb401.endswith("(2 fixable, 2 unsafe)")
    pb413 = next(ln for ln in lines if "PB413" in ln)
    assert pb413.endswith("(1 fixable)")


# --- a property: safe fixes never change a number beyond its shown decimals ---------------------


@SETTINGS
@given(document(), CONFIGS)
def test_safe_fixes_keep_every_number_and_settle(text: str, config) -> None:
    src = Source.from_text(text)
    for f in check_source(src, config).findings:
        if f.fix is None or not f.fix.safe:
            continue
        for e in f.fix.edits:
            old, new = parse_time(src.line(e.line)[e.start : e.end]), parse_time(e.text)
            if old is not None and new is not None and "\n" not in e.text:
                assert abs(old[0] - new[0]) <= 0.005 + 1e-9 * abs(old[0]), (f, e)
    fixed, _ = fix_source(src, config, unsafe=False)
    again = Source.from_text(fixed)
    assert not [f for f in check_source(again, config).findings if applicable(f, False)]
    assert fix_source(again, config, unsafe=False)[0] == fixed
