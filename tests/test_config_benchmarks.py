"""`benchmarks:` entries are checked by `perfbot check` and `perfbot config` with the runner's own
rule (perfbot.runner.spec), and typed in the JSON Schema, so a typo fails pre-commit and CI rather
than the first `/perfbot rerun` (issue 18)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from freshkit import run_perfbot
from perfbot.config_view import schema

ROOT = Path(__file__).resolve().parents[1]
GOOD = """\
benchmarks:
  - name: dit-8p
    readme: m/README.md
    row: {model name: dit, cards: 8, sink: ON}
    command: python train.py --config dit.yaml
    cards: 8
    batch_size: 4
    timeout: 90m
    runs_on: [self-hosted, ascend]
    env: {MS_ALLOC_CONF: "enable_vmm:True", RANK_SIZE: 8}
"""
TYPO = GOOD.replace("batch_size: 4", "batch_sise: 4")


def perfbot(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_perfbot(list(argv), {}, cwd)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "m").mkdir()
    shutil.copy(ROOT / "examples" / "clean" / "README.md", tmp_path / "m" / "README.md")
    return tmp_path


MEANT = "benchmarks[0] (dit-8p): batch_sise: unknown key; did you mean 'batch_size'?"


@pytest.mark.parametrize(
    "argv",
    [["config", "."], ["check", "."], ["fix", "--diff", "."], ["config", "m/README.md"]],
)
def test_a_typo_in_the_nearest_config_is_an_error(repo, argv):
    (repo / ".perfbot.yml").write_text(TYPO)
    got = perfbot(*argv, cwd=repo)
    out = got.stdout + got.stderr  # check reports a file's error with its findings, on stdout
    assert got.returncode == 2, out
    assert re.search(r"^(perfbot: error: )?\.perfbot\.yml: (error: )?benchmarks\[0\]", out, re.M)
    assert MEANT in out and "Traceback" not in out


@pytest.mark.parametrize("command", ["config", "check"])
def test_a_typo_in_an_explicit_config_is_a_usage_error(repo, command):
    (repo / "typo.yml").write_text(TYPO)
    got = perfbot(command, "--config", "typo.yml", ".", cwd=repo)
    assert got.returncode == 2
    assert got.stderr.startswith("perfbot: error: typo.yml: benchmarks[0]"), got.stderr
    assert MEANT in got.stderr


def test_a_parents_benchmarks_are_named_by_the_parents_file(repo):
    (repo / ".perfbot.yml").write_text(TYPO)
    (repo / "m" / ".perfbot.yml").write_text("rules: {PB202: 'off'}\n")
    got = perfbot("config", "m", cwd=repo)
    assert got.returncode == 2
    assert got.stderr.startswith("perfbot: error: .perfbot.yml: benchmarks[0]"), got.stderr


def test_good_benchmarks_pass(repo):
    (repo / ".perfbot.yml").write_text(GOOD)
    assert perfbot("config", ".", cwd=repo).returncode == 0
    got = perfbot("check", ".", cwd=repo)
    assert got.returncode == 0, got.stderr


def test_the_schema_types_benchmarks_as_bench_reads_them():
    validator = jsonschema.Draft202012Validator(schema())
    validator.validate(yaml.safe_load(GOOD))
    for block in re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "runner.md").read_text(), re.S):
        data = yaml.safe_load(block)
        if isinstance(data, dict) and "benchmarks" in data:
            validator.validate(data)
    with pytest.raises(jsonschema.ValidationError, match="batch_sise"):
        validator.validate(yaml.safe_load(TYPO))
    item = schema()["$defs"]["Benchmark"]
    assert item["additionalProperties"] is False
    assert set(item["required"]) >= {"name", "readme", "row", "command", "cards", "batch_size"}
    assert "enum" in schema()["$defs"]["LogFormat"]
