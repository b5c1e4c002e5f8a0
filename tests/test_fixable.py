"""``fixable`` / ``unfixable`` in .perfbot.yml (ruff's settings): which rules offer fixes at all;
`check`, `fix` and the JSON agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from perfbot.cli import main
from perfbot.config import Config, ConfigError, load_config
from perfbot.rules import check_names

BROKEN = Path(__file__).resolve().parents[1] / "examples" / "broken" / "README.md"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    shutil.copy(BROKEN, tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fixable_rules(capsys, *argv: str) -> set[str]:
    main(["check", "--format", "json", *argv, "README.md"])
    return {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"] if f["fixable"]}


def test_unfixable_by_prefix_and_slug(repo, capsys):
    every = fixable_rules(capsys)
    assert {"PB301", "PB401", "PB412"} <= every
    (repo / "u.yml").write_text("unfixable: [PB4, header-case]\n")
    got = fixable_rules(capsys, "--config", "u.yml")
    assert got == {r for r in every if not r.startswith("PB4") and r != "PB301"}
    # fix applies exactly those
    before = (repo / "README.md").read_text()
    main(["fix", "--unsafe-fixes", "--config", "u.yml", "README.md"])
    capsys.readouterr()
    after = (repo / "README.md").read_text()
    assert "| MindSpore |" in after and "95.10" in after  # PB301 and PB401 untouched
    assert after != before
    assert fixable_rules(capsys, "--config", "u.yml") == set()


def test_fixable_only(repo, capsys):
    (repo / "f.yml").write_text("fixable: [PB3]\nunfixable: [PB304]\n")
    got = fixable_rules(capsys, "--config", "f.yml")
    assert got and all(r.startswith("PB3") and r != "PB304" for r in got)


def test_bad_names_are_config_errors(tmp_path):
    p = tmp_path / ".perfbot.yml"
    p.write_text("unfixable: [PB9]\n")
    with pytest.raises(ConfigError, match=r"\.perfbot\.yml: unfixable: unknown rule 'PB9'"):
        check_names(load_config(p))
    assert Config(unfixable=["all"]).can_fix("PB401") is False
    assert Config().can_fix("PB401") is True
