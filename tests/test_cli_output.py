"""Output a CI expects: --output-file, --color, rdjson, `perfbot rule`, `fix --diff --format json`,
and `check` and `fix` counting fixes alike (on the shipped broken example)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from perfbot.cli import main

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "examples" / "broken" / "README.md"


@pytest.fixture
def broken(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "m").mkdir()
    shutil.copy(BROKEN, tmp_path / "m" / "README.md")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path / "m" / "README.md"


def test_output_file(broken, capsys):
    main(["check", "--format", "json", "m"])
    expected = json.loads(capsys.readouterr().out)
    assert main(["check", "--format", "json", "-o", "out.json", "m"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert json.loads(Path("out.json").read_text(encoding="utf-8")) == expected
    assert main(["check", "--output-file", "no/such/dir/x", "m"]) == 2
    assert "--output-file" in capsys.readouterr().err


def test_color(broken, capsys, monkeypatch):
    main(["check", "--color", "always", "m"])
    out = capsys.readouterr().out
    assert "\033[1;31merror\033[0m" in out and "\033[33mwarning\033[0m" in out
    main(["check", "--color", "never", "m"])
    assert "\033[" not in capsys.readouterr().out
    main(["check", "m"])  # auto: captured output is no terminal
    assert "\033[" not in capsys.readouterr().out
    monkeypatch.setenv("FORCE_COLOR", "1")
    main(["check", "m"])
    assert "\033[" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    main(["check", "m"])
    assert "\033[" not in capsys.readouterr().out
    main(["check", "--color", "always", "--format", "json", "m"])
    json.loads(capsys.readouterr().out)  # never coloured


def test_rdjson(broken, capsys):
    main(["check", "--format", "json", "m"])
    found = json.loads(capsys.readouterr().out)["findings"]
    n = len(found)
    assert main(["check", "--format", "rdjson", "m"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["source"]["name"] == "perfbot"
    diags = data["diagnostics"]
    assert len(diags) == n
    first = diags[0]
    assert first["severity"] == "WARNING" and first["code"]["value"] == "PB301"
    assert first["location"] == {
        "path": "m/README.md",
        "range": {"start": {"line": 5, "column": 3}, "end": {"line": 5, "column": 12}},
    }
    assert first["suggestions"][0]["text"] == "mindspore"
    assert [d["severity"] for d in diags] == [f["severity"].upper() for f in found]


def test_rdjson_columns_are_utf8_bytes(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    row = "| toy | 512 x 512 | 1 | 8 | o2 |"
    text = BROKEN.read_text(encoding="utf-8")
    assert row in text
    (tmp_path / "README.md").write_text(text.replace(row, row.replace("toy", "玩具")), "utf-8")
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "rdjson", "--select", "PB412", "README.md"])
    diags = json.loads(capsys.readouterr().out)["diagnostics"]
    line = "| 玩具 | 512 x 512 |"
    start = len(line[: line.index("512")].encode()) + 1  # 1-based UTF-8 bytes, not code points
    assert start != line.index("512") + 1
    assert diags[0]["location"]["range"]["start"] == {"line": 16, "column": start}


def test_rule_command(capsys):
    assert main(["rule", "img-s-mismatch"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## PB401 img-s-mismatch\n") and "### Example" in out
    assert main(["rule", "pb401", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["slug"] == "img-s-mismatch"
    assert main(["rule", "PB999"]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_docs_is_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        from perfbot.cli import build_parser

        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    assert " docs " not in out and "SUPPRESS" not in out and " rule " in out


def test_fix_diff_json_and_counts_agree(broken, capsys):
    main(["check", "--format", "json", "m"])
    found = json.loads(capsys.readouterr().out)["findings"]
    # what `perfbot fix` applies: the fixes (the safe ones, where fixes say which they are)
    fixable = sum(
        f["fix"] is not None and f["fix"].get("applicability", "safe") == "safe" for f in found
    )
    assert fixable >= 10
    assert main(["fix", "--diff", "--format", "json", "m"]) == 1
    data = json.loads(capsys.readouterr().out)
    (change,) = data["changes"]
    assert change["path"] == "m/README.md" and change["diff"].startswith("--- a/m/README.md")
    assert change["fixed"] == fixable
    assert main(["fix", "m"]) == 1
    assert f"Fixed {fixable} findings in 1 file" in capsys.readouterr().out
    assert main(["fix", "--diff", "--format", "sarif", "m"]) == 2
