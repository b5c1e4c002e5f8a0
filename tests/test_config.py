""".perfbot.yml: loading, errors that name the file and the key, rule settings, discovery,
paths/exclude."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot.config import (
    Allow,
    Config,
    ConfigError,
    config_for,
    find_config_file,
    load_config,
)
from perfbot.engine import check_source
from perfbot.rules import check_names
from perfbot.source import Source

GOOD = """\
paths: ["configs/**/README.md", "examples/*/README.md"]
exclude: ["**/README_CN.md"]
allow:
  ms_per_step: true
  compile_seconds: true
columns:
  - name: acc@top1
    aliases: [top-1]
    form: decimal2
aliases:
  img/s: [imgs/sec]
matrix:
  - {mindspore: "2.5.0", driver: "24.1.0", firmware: "7.5.0.3.220", cann: "8.0.0.beta1"}
rules:
  PB203: off
  img-s-mismatch: warning
review:
  filter_mode: added
  max_comments: 10
"""

README = """\
# DiT

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rules_found(config: Config) -> dict[str, str]:
    return {f.rule: f.severity for f in check_source(Source.from_text(README), config).findings}


# --- loading -------------------------------------------------------------------------------------


def test_load_a_good_config(tmp_path: Path) -> None:
    c = load_config(write(tmp_path / ".perfbot.yml", GOOD))
    assert c.allow == Allow(ms_per_step=True, compile_seconds=True)
    assert c.paths == ["configs/**/README.md", "examples/*/README.md"]
    assert [(col.name, col.aliases, col.form) for col in c.columns] == [
        ("acc@top1", ["top-1"], "decimal2")
    ]
    assert c.aliases == {"img/s": ["imgs/sec"]}
    assert c.matrix[0].mindspore == "2.5.0" and c.matrix[0].cann == "8.0.0.beta1"
    assert c.rules == {"PB203": "off", "img-s-mismatch": "warning"}  # names as written
    assert (c.setting("PB203"), c.setting("PB401", "img-s-mismatch")) == ("off", "warning")
    assert (c.review.filter_mode, c.review.max_comments) == ("added", 10)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "{}\n"])
def test_empty_config_is_the_default(tmp_path: Path, text: str) -> None:
    assert load_config(write(tmp_path / ".perfbot.yml", text)) == Config()


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("allow:\n  ms_per_stp: true\n", ["allow.ms_per_stp", "unknown key"]),
        ("colums: []\n", ["colums", "unknown key"]),
        ("rules:\n  PB999: off\n", ["rules", "unknown rule 'PB999'"]),
        ("rules:\n  not-a-rule: warning\n", ["rules", "'not-a-rule'"]),
        ("rules:\n  PB401: loud\n", ["rules.PB401", "'error', 'warning', 'info' or 'off'"]),
        ("columns:\n  - name: x\n    form: fancy\n", ["columns.0.form", "unknown form 'fancy'"]),
        ("matrix:\n  - {mindspore: 2.10}\n", ["matrix.0.mindspore", "quoted strings"]),
        ("review:\n  max_comments: -1\n", ["review.max_comments"]),
        ("allow: [\n", ["not valid YAML"]),
        ("key: value: other\n", ["not valid YAML"]),
        ("- a\n- b\n", ["expected a mapping"]),
        ("just a string\n", ["expected a mapping"]),
    ],
)
def test_bad_config_is_a_config_error_naming_file_and_key(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    p = write(tmp_path / ".perfbot.yml", text)
    with pytest.raises(ConfigError) as e:
        # the rule names are read against the rules where the engine plans (and targets asks)
        check_names(load_config(p))
    msg = str(e.value)
    assert msg.startswith(f"{p}: "), msg
    for frag in fragments:
        assert frag in msg, msg
    assert "Traceback" not in msg


def test_unreadable_config_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yml")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path)  # a directory


# --- rule settings ----------------------------------------------------------------------------


def test_defaults_report_the_readme() -> None:
    assert rules_found(Config()) == {"PB101": "error", "PB401": "error"}


@pytest.mark.parametrize("key", ["PB401", "pb401", "img-s-mismatch"])
def test_rule_off_with_bare_yaml_off(tmp_path: Path, key: str) -> None:
    c = load_config(write(tmp_path / ".perfbot.yml", f"rules:\n  {key}: off\n"))
    assert c.rules == {key: "off"}  # YAML reads bare `off` as False; names as written
    assert c.setting("PB401", "img-s-mismatch") == "off"
    assert "PB401" not in rules_found(c)


@pytest.mark.parametrize("value", ["false", "'off'", "no"])
def test_other_spellings_of_off(tmp_path: Path, value: str) -> None:
    c = load_config(write(tmp_path / ".perfbot.yml", f"rules:\n  PB401: {value}\n"))
    assert "PB401" not in rules_found(c)


def test_severity_override(tmp_path: Path) -> None:
    c = load_config(
        write(tmp_path / ".perfbot.yml", "rules:\n  PB401: info\n  requirements-missing: warning\n")
    )
    assert rules_found(c) == {"PB101": "warning", "PB401": "info"}


@pytest.mark.parametrize("key", ["Pb401", "IMG-S-MISMATCH"])
def test_rule_keys_in_any_case_take_effect(key: str) -> None:
    c = Config.model_validate({"rules": {key: "off"}})
    assert "PB401" not in rules_found(c)


def test_config_columns_and_allowances_reach_the_rules() -> None:
    text = README.replace("| s/step |", "| ms/step |").replace("| 0.93 |", "| 930.00 |")
    text = text.replace("| 515.61 |", "| 550.54 |")
    src = Source.from_text(text)
    assert "PB306" in {f.rule for f in check_source(src).findings}
    found = {f.rule for f in check_source(src, Config(allow=Allow(ms_per_step=True))).findings}
    assert "PB306" not in found and "PB401" not in found


# --- discovery -----------------------------------------------------------------------------------


def test_config_found_by_walking_up(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cfg = write(repo / ".perfbot.yml", "rules:\n  PB401: off\n")
    readme = write(repo / "examples" / "dit" / "README.md", README)
    config, found = config_for(readme)
    assert found == cfg
    assert config.rules == {"PB401": "off"}
    assert find_config_file(readme.parent.resolve()) == cfg


def test_nearest_config_wins_and_yaml_extension_works(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / ".perfbot.yml", "rules:\n  PB401: off\n")
    near = write(repo / "examples" / ".perfbot.yaml", "rules:\n  PB401: info\n")
    readme = write(repo / "examples" / "dit" / "README.md", README)
    config, found = config_for(readme)
    assert found == near and config.rules == {"PB401": "info"}


def test_walk_stops_at_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path / ".perfbot.yml", "rules:\n  PB401: off\n")  # above the repository
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    readme = write(repo / "docs" / "README.md", README)
    assert config_for(readme) == (Config(), None)


def test_explicit_config_wins(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / ".perfbot.yml", "rules:\n  PB401: off\n")
    explicit = write(tmp_path / "other.yml", "rules:\n  PB401: warning\n")
    readme = write(repo / "README.md", README)
    config, found = config_for(readme, explicit)
    assert found == explicit and config.rules == {"PB401": "warning"}


def test_bad_config_found_by_walking_up_raises_config_error(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cfg = write(repo / ".perfbot.yml", "alow: {}\n")
    readme = write(repo / "README.md", README)
    with pytest.raises(ConfigError, match="alow: unknown key") as e:
        config_for(readme)
    assert str(cfg) in str(e.value)


# --- paths / exclude -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "decided"),
    [
        ("configs/resnet/README.md", True),
        ("configs/a/b/c/README.md", True),
        ("configs/README.md", True),  # ** matches no folder too
        ("examples/dit/README.md", True),
        ("examples/dit/README_CN.md", False),
        ("configs/resnet/README_CN.md", False),  # excluded wins over paths
        ("README.md", False),
        ("docs/README.md", False),
        ("configs\\resnet\\README.md", True),  # Windows separators
    ],
)
def test_paths_and_exclude_globs(rel: str, decided: bool) -> None:
    c = Config(
        paths=["configs/**/README.md", "examples/*/README.md"],
        exclude=["**/README_CN.md"],
    )
    assert c.is_model_readme(rel) is decided


def test_star_matches_one_folder_only() -> None:
    assert Config(paths=["examples/*/README.md"]).is_model_readme("examples/a/b/README.md") is False


def test_without_paths_the_content_decides() -> None:
    c = Config(exclude=["tests/**"])
    assert c.is_model_readme("tests/fixtures/README.md") is False
    assert c.is_model_readme("anything/README.md") is None
    assert Config().is_model_readme("README.md") is None
