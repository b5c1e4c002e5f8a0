"""Config that composes: nested .perfbot.yml files, `perfbot config`, the shipped JSON Schema,
.gitignore in the walk, and a `paths:` that matches nothing."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from perfbot.cli import main
from perfbot.config import Config, config_for
from perfbot.config_view import SCHEMA_FILE, schema

# a README whose Performance table writes ms/step and seconds of graph compile (mindcv style)
README = """\
# resnet

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | ms/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| resnet50 | 8 | 32 | 224x224 | O2 | 77s | 33.09 | 7736.48 |
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def fresh_caches():
    """Configs are cached per path for one run; these tests rewrite them in place."""
    from perfbot.config import clear_caches

    yield
    clear_caches()


def rewrite(path: Path, text: str) -> Path:
    from perfbot.config import clear_caches

    clear_caches()
    return write(path, text)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".perfbot.yml", "allow: {ms_per_step: true, compile_seconds: true}\n")
    write(tmp_path / "configs" / "resnet" / "README.md", README)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rules_found(capsys, *argv: str) -> list[str]:
    main(["check", "--format", "json", *argv])
    return [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_nested_config_extends_its_parent(repo, capsys):
    assert rules_found(capsys, ".") == []
    rewrite(repo / "configs" / ".perfbot.yml", "rules: {PB202: off}\n")
    # the child only turns PB202 off: the parent's allow still holds (audit item 8)
    assert rules_found(capsys, ".") == []
    config, found = config_for(repo / "configs" / "resnet" / "README.md")
    assert found == repo / "configs" / ".perfbot.yml"
    assert config.allow.ms_per_step and config.rules == {"PB202": "off"}


def test_root_true_stops_the_walk(repo, capsys):
    write(repo / "configs" / ".perfbot.yml", "root: true\nrules: {PB202: off}\n")
    assert sorted(rules_found(capsys, ".")) == ["PB306", "PB414"]


def test_merge_rules_keywise_and_child_wins(repo):
    write(
        repo / ".perfbot.yml", "rules: {PB301: warning, PB302: info}\nallow: {ms_per_step: true}\n"
    )
    write(repo / "configs" / ".perfbot.yml", "rules: {header-alias: off}\n")
    config, _ = config_for(repo / "configs" / "resnet" / "README.md")
    assert config.rules == {"PB301": "warning", "PB302": "info", "header-alias": "off"}
    assert [config.setting(r, s) for r, s in [("PB301", ""), ("PB302", "header-alias")]] == [
        "warning",
        "off",
    ]
    assert config.allow.ms_per_step and not config.allow.compile_seconds


def test_parent_paths_stay_relative_to_the_parent(repo, capsys):
    write(repo / ".perfbot.yml", 'paths: ["configs/**/README.md"]\n')
    write(repo / "configs" / ".perfbot.yml", "allow: {ms_per_step: true, compile_seconds: true}\n")
    write(repo / "other" / "README.md", README)  # not under configs/: not checked
    main(["check", "--format", "json", "."])
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == 1 and data["findings"] == []


def test_config_command_names_the_origin_of_each_value(repo, capsys):
    write(repo / "configs" / ".perfbot.yml", "rules: {PB202: off}\n")
    assert main(["config", "configs/resnet"]) == 0
    out = capsys.readouterr().out
    assert "# effective config: configs/.perfbot.yml, extending .perfbot.yml" in out
    assert "  ms_per_step: true  # .perfbot.yml" in out
    assert "  PB202: 'off'  # configs/.perfbot.yml" in out
    assert "max_comments: 50  # default" in out
    # the printed YAML (comments aside) is itself a valid config with the same values
    config, _ = config_for(repo / "configs" / "resnet" / "README.md")
    assert Config.model_validate(yaml.safe_load(out)) == config
    assert main(["config", "no/such/folder"]) == 2


def test_config_json(repo, capsys):
    assert main(["config", "--format", "json", "configs"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == [str(repo / ".perfbot.yml")]
    assert data["origins"]["allow.ms_per_step"] == str(repo / ".perfbot.yml")


def test_shipped_schema_is_up_to_date_and_validates(capsys):
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == schema(), (
        "run `perfbot config --schema > src/perfbot/perfbot.schema.json`"
    )
    assert main(["config", "--schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema()
    good = yaml.safe_load(
        "root: true\nallow: {ms_per_step: true}\nrules: {PB202: 'off', PB401: warning}\n"
        "columns: [{name: acc@top1, aliases: [top-1]}]\n"
    )
    jsonschema.Draft202012Validator(schema()).validate(good)
    for bad in ({"alow": {}}, {"rules": {"PB202": "disabled"}}, {"paths": "x"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(schema()).validate(bad)


def test_gitignore_is_respected(repo, capsys):
    write(repo / ".gitignore", "build/\n/vendor\n*.tmp.md\n")
    write(repo / "models" / ".gitignore", "gen/\n!keep/\n")
    for d in ("build", "vendor", "models/gen", "models/a", "models/keep", "x/vendor"):
        write(repo / d / "README.md", README)
    write(repo / "models" / "a" / "README.tmp.md", README)
    main(["check", "--format", "json", "."])
    data = json.loads(capsys.readouterr().out)
    assert (
        data["files"] == 4
    )  # configs/resnet, models/a, models/keep, x/vendor (/vendor is top only)
    # a file named on the command line is checked even if ignored
    main(["check", "--format", "json", "build/README.md"])
    assert json.loads(capsys.readouterr().out)["files"] == 1


def test_a_paths_that_matches_nothing_says_so(repo, capsys):
    write(repo / ".perfbot.yml", 'paths: ["models/**/README.md"]\n')
    assert main(["check", "."]) == 0
    err = capsys.readouterr().err
    assert "matched no README file" in err and "models/**/README.md" in err
    # files named on the command line (pre-commit) are not a search: no warning
    assert main(["check", "--force-exclude", "configs/resnet/README.md"]) == 0
    assert "matched no" not in capsys.readouterr().err


def test_exclude_with_gitignore_negation(repo):
    c = Config(exclude=["**/README_*.md", "!**/README_en.md"])
    assert c.is_model_readme("a/README_CN.md") is False
    assert c.is_model_readme("a/README_en.md") is None


def test_globs_too_complex_for_bounded_time_are_refused(repo, capsys):
    from perfbot.config import ConfigError, load_config

    evil = "a/" + "/".join(["**/x"] * 8) + "/y"
    write(repo / "bad.yml", f"paths: [{evil!r}]\n")
    with pytest.raises(ConfigError, match="wildcards"):
        load_config(repo / "bad.yml")
    assert load_config(write(repo / "ok.yml", 'exclude: ["**/**/**/configs/*/README*.md"]\n'))
    # the same patterns in a .gitignore are left out (they would take exponential time)
    from perfbot.walk import _read_spec

    deep = repo / "/".join(["x"] * 40)
    write(deep / "README.md", README)
    write(repo / ".gitignore", "*a*a*a*a*a*a*b\n" + evil + "\nnothing/\n")
    spec = _read_spec(str(repo / ".gitignore"))
    assert len(spec.patterns) == 1
    main(["check", "--format", "json", "."])
    assert json.loads(capsys.readouterr().out)["files"] == 2


@pytest.mark.parametrize("bad", ["!", "x\\"])
def test_a_glob_git_cannot_read_is_the_configs_error_not_a_crash(repo, bad):
    """``paths: ["!"]`` was accepted and then crashed the walk ("internal error") when the first
    path was matched; it is now refused where the config is read, naming the pattern, in a fresh
    process as users run it, and the plain (no pydantic) reading refuses it too."""
    import subprocess
    import sys

    from perfbot.config import ConfigError, load_config

    write(repo / ".perfbot.yml", f"paths: {json.dumps([bad])}\n")
    with pytest.raises(ConfigError, match="not a valid glob"):
        load_config(repo / ".perfbot.yml")
    r = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", "."], cwd=repo, capture_output=True, text=True
    )
    assert r.returncode == 2
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    assert ".perfbot.yml: error: paths:" in r.stdout + r.stderr
    assert "not a valid glob" in r.stdout + r.stderr
