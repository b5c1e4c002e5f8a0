"""`perfbot init` proposes a repository's conventions (issue 22, item 3): a rule that fires the same
way in at least a third of the READMEs is a commented `rules:` line with its count; an `allow:`
key a third to a half of the READMEs follow is a commented line too. Wrong numbers, errors and
what `perfbot fix` repairs are never proposed."""

from __future__ import annotations

import pytest
import yaml

from perfbot.cli import main

# the test machine's HDK (driver 24.1.0, firmware 7.5.0.3.220) beside MindSpore 2.3.1's CANN
README = """\
# {name}

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | {driver} | {firmware} | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | {step} | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| {name} | 8 | 32 | 224x224 | O2 | 3 mins | {time} | {img_s} |
"""
HDK = {"driver": "24.1.0", "firmware": "7.5.0.3.220"}
MATRIX = {"driver": "24.1.RC2", "firmware": "7.3.0.1.231"}
GOOD = {"step": "s/step", "time": "0.50", "img_s": "512.00"}
MS = {"step": "ms/step", "time": "500.00", "img_s": "512.00"}
WRONG = {"step": "s/step", "time": "0.50", "img_s": "600.00"}  # 8 × 32 / 0.50 = 512


def _repo(tmp_path, monkeypatch, readmes: list[dict]) -> None:
    (tmp_path / ".git").mkdir()
    for i, kw in enumerate(readmes):
        p = tmp_path / "configs" / f"net{i}" / "README.md"
        p.parent.mkdir(parents=True)
        p.write_text(README.format(name=f"net{i}", **kw), encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def _init(capsys) -> str:
    assert main(["init", "--stdout"]) == 0
    return capsys.readouterr().out


def test_a_rule_firing_the_same_way_in_a_third_of_the_readmes_is_proposed(
    tmp_path, monkeypatch, capsys
):
    _repo(tmp_path, monkeypatch, [{**HDK, **GOOD}] * 2 + [{**MATRIX, **GOOD}] * 4)
    out = _init(capsys)
    assert "# rules:" in out
    assert "#   PB502: off  # hdk-mismatch: the same way in 2 of 6 READMEs, e.g. " in out
    assert yaml.safe_load(out) in (None, {})  # commented: nothing is set until a person says so
    # uncommented, it loads and silences the convention
    adopted = out.replace("# rules:", "rules:").replace("#   PB502: off", "  PB502: off")
    (tmp_path / ".perfbot.yml").write_text(adopted, encoding="utf-8")
    assert main(["check", "--select", "PB502", "."]) == 0


def test_below_a_third_nothing_is_proposed(tmp_path, monkeypatch, capsys):
    # near miss: 2 of 7 READMEs (less than a third)
    _repo(tmp_path, monkeypatch, [{**HDK, **GOOD}] * 2 + [{**MATRIX, **GOOD}] * 5)
    assert "PB502" not in _init(capsys)


def test_an_allow_key_a_third_of_the_readmes_follow_is_a_commented_line(
    tmp_path, monkeypatch, capsys
):
    _repo(tmp_path, monkeypatch, [{**MATRIX, **MS}] * 2 + [{**MATRIX, **GOOD}] * 4)
    out = _init(capsys)
    assert "#   ms_per_step: true  # 2 of 6 READMEs with a step time write ms/step" in out
    assert "PB306" not in out  # the allow key is the way to accept it, not turning the rule off


@pytest.mark.parametrize("kw", [WRONG])
def test_wrong_numbers_are_never_a_convention(tmp_path, monkeypatch, capsys, kw):
    _repo(tmp_path, monkeypatch, [{**MATRIX, **kw}] * 3)
    out = _init(capsys)
    assert "PB401" not in out and "# rules:" not in out


def test_what_fix_repairs_is_never_a_convention(tmp_path, monkeypatch, capsys):
    # near miss: left-aligned columns in every README: `perfbot fix` centres them
    _repo(tmp_path, monkeypatch, [{**MATRIX, **GOOD}] * 3)
    for p in tmp_path.rglob("README.md"):
        p.write_text(p.read_text().replace("|:--:", "|:--"), encoding="utf-8")
    out = _init(capsys)
    assert "PB305" not in out and "# rules:" not in out


def test_a_commented_allow_key_sits_under_the_allow_keys_set(tmp_path, monkeypatch, capsys):
    # 4 of 6 write ms/step (set), 2 of 6 compile in seconds (commented, under the same `allow:`)
    readmes = [{**MATRIX, **MS}] * 4 + [{**MATRIX, **GOOD}] * 2
    _repo(tmp_path, monkeypatch, readmes)
    for p in sorted(tmp_path.rglob("README.md"))[:2]:
        p.write_text(p.read_text().replace("| 3 mins |", "| 180s |"), encoding="utf-8")
    out = _init(capsys)
    assert "allow:\n  ms_per_step: true  # 4 of 6" in out
    assert "\n  # compile_seconds: true  # 2 of 6 READMEs" in out
    uncommented = out.replace("  # compile_seconds: true", "  compile_seconds: true")
    assert yaml.safe_load(uncommented)["allow"] == {"ms_per_step": True, "compile_seconds": True}
