"""Config errors talk to the person who made the typo (issue 18; `2026-12-newcomer-2.md`
items 13 and 20): the key or rule meant, one line for a YAML error, the file that is wrong (a
parent's, not the child's), no pydantic wording, and the value forms a column may have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from perfbot.config_view import schema
from perfbot.spec.forms import FORMS

ROOT = Path(__file__).resolve().parents[1]


def config_error(tmp_path: Path, text: str) -> str:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / ".perfbot.yml").write_text(text, encoding="utf-8")
    got = subprocess.run(
        [sys.executable, "-m", "perfbot", "config", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 2 and got.stdout == ""
    (line,) = got.stderr.splitlines()
    assert line.startswith("perfbot: error: .perfbot.yml: "), line  # relative, once
    return line.removeprefix("perfbot: error: .perfbot.yml: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "allow: {ms_per_stp: true}\n",
            "allow.ms_per_stp: unknown key; did you mean 'ms_per_step'?",
        ),
        ("rule: {PB202: 'off'}\n", "rule: unknown key; did you mean 'rules'?"),
        (
            "review: {filter_mod: added}\n",
            "review.filter_mod: unknown key; did you mean 'filter_mode'?",
        ),
        (
            "columns: [{nmae: x}]\n",
            "columns.0.name: Field required; columns.0.nmae: unknown key; did you mean 'name'?",
        ),
        (
            "PB202: 'off'\n",
            "PB202: unknown key; rule settings go under `rules:` (rules: {PB202: ...})",
        ),
        (
            "rules: {img-s-mismach: 'off'}\n",
            "rules: unknown rule 'img-s-mismach'; did you mean 'img-s-mismatch'? "
            "(see `perfbot rules`)",
        ),
        ("paths: configs/**/README.md\n", "paths: must be a list (one item: `[...]` around it)"),
        (
            "rules:\n\tPB202: 'off'\n",
            "not valid YAML: found character '\\t' that cannot start any token (line 2, column 1); "
            "YAML indents with spaces, not tabs",
        ),
        (
            "columns: [{name: x, form: percent}]\n",
            "columns.0.form: unknown form 'percent'; known: any, decimal2, graph_compile, "
            "jit_level, link, positive_int, precision, resolution, switch, version",
        ),
    ],
)
def test_config_errors_say_what_was_meant(tmp_path, text, message):
    line = config_error(tmp_path, text)
    assert line == message
    assert "Value error" not in line and "<unicode string>" not in line


def test_a_parents_error_names_the_parents_file(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".perfbot.yml").write_text("columns: [{name: x, form: percent}]\n")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / ".perfbot.yml").write_text("rules: {PB202: 'off'}\n")
    (tmp_path / "m" / "README.md").write_bytes((ROOT / "examples/broken/README.md").read_bytes())
    got = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 2
    assert got.stdout.startswith(".perfbot.yml: error: columns.0.form: unknown form 'percent'")
    assert str(tmp_path) not in got.stdout + got.stderr


def test_the_schema_lists_the_forms():
    form = schema()["$defs"]["ColumnConfig"]["properties"]["form"]
    assert form["enum"] == sorted(FORMS)
    validator = jsonschema.Draft202012Validator(schema())
    validator.validate({"columns": [{"name": "acc", "form": "decimal2"}]})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"columns": [{"name": "acc", "form": "percent"}]})
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in FORMS)
