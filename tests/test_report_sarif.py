"""The SARIF reporter: the structure GitHub code scanning reads, and a golden file.

Set PERFBOT_UPDATE_GOLDEN=1 to rewrite ``tests/golden/report.sarif`` after an intended change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from perfbot import registry
from perfbot.docs import LINK_ENV
from perfbot.engine import FileResult
from perfbot.fix import Edit, Fix
from perfbot.registry import Finding
from perfbot.report import sarif
from perfbot.source import FileError, Source

GOLDEN = Path(__file__).parent / "golden" / "report.sarif"

TEXT = (
    "## Performance\r\n"
    "\r\n"
    "| model name | cards | s/step | img/s |\r\n"
    "|:--:|:--:|:--:|:--:|\r\n"
    "| dit | 8 | 0.93 | 515.61 |\r\n"
)


@pytest.fixture(autouse=True)
def test_rule():
    registry.all_rules()
    for rid in ("PB699",):
        r = registry.RULES.pop(rid, None)
        if r:
            registry._BY_SLUG.pop(r.slug, None)

    @registry.rule("PB699", "test-sarif-rule", severity="warning", scope="document", fix="always")
    def _rule(ctx):
        """A test rule for the SARIF reporter.

        Example:
            BAD
        """
        yield from ()

    yield
    r = registry.RULES.pop("PB699")
    registry._BY_SLUG.pop(r.slug)


def results() -> tuple[list[FileResult], list[FileError]]:
    src = Source.from_text(TEXT, path="models/dit/README.md")
    fix = Fix(
        "Set img/s to 550.54 and add a note",
        (Edit(5, 19, 25, "550.54"), Edit(5, 27, 27, "\nnote")),
    )
    findings = [
        Finding(src.path, 3, 3, "PB699", "test-sarif-rule", "error", "header: `Model Name`"),
        Finding(src.path, 5, 5, "PB699", "test-sarif-rule", "info", "img/s is off", fix=fix),
        Finding(src.path, 3, 5, "PB697", "unregistered-rule", "warning", "a whole table"),
    ]
    ok = FileResult("other/README.md", [], source=Source.from_text("# x\n", path="other/README.md"))
    errors = [FileError("bin/README.md", "looks like a binary file (NUL bytes), not Markdown")]
    return [FileResult(src.path, findings, source=src), ok], errors


def data() -> dict:
    res, errors = results()
    return sarif.as_data(res, errors, version="0.0.0-test")


def no_link_env(monkeypatch):
    for key in LINK_ENV:
        monkeypatch.delenv(key, raising=False)


def test_structure(monkeypatch):
    no_link_env(monkeypatch)
    monkeypatch.setenv("GITHUB_ACTION_REPOSITORY", "org/perfbot")
    monkeypatch.setenv("GITHUB_ACTION_REF", "v1.4.0")
    log = data()
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "perfbot"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["PB699", "PB697"]  # the rules with results, once each
    for r in rules:
        assert set(r) >= {"id", "name", "shortDescription", "fullDescription", "help", "helpUri",
                          "defaultConfiguration"}  # fmt: skip
        assert r["help"]["text"] and r["help"]["markdown"] and r["fullDescription"]["text"]
        assert r["helpUri"].startswith("https://")
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert rules[0]["name"] == "test-sarif-rule"
    assert rules[0]["helpUri"] == (
        "https://github.com/org/perfbot/blob/v1.4.0/docs/rules.md#pb699-test-sarif-rule"
    )
    assert driver["informationUri"] == "https://github.com/org/perfbot/blob/v1.4.0/docs/rules.md"
    assert rules[0]["shortDescription"]["text"] == "A test rule for the SARIF reporter."
    assert rules[0]["defaultConfiguration"]["level"] == "warning"
    assert rules[1]["name"] == "unregistered-rule"

    assert [r["level"] for r in run["results"]] == ["error", "note", "warning"]
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["message"]["text"]
        (loc,) = res["locations"]
        art = loc["physicalLocation"]["artifactLocation"]
        assert art == {"uri": "models/dit/README.md", "uriBaseId": "%SRCROOT%"}
        region = loc["physicalLocation"]["region"]
        assert 1 <= region["startLine"] <= region["endLine"]
    assert run["results"][2]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "endLine": 5,
    }

    (fix,) = run["results"][1]["fixes"]
    assert fix["description"]["text"] == "Set img/s to 550.54 and add a note"
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "models/dit/README.md"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 5, "startColumn": 20, "endLine": 5, "endColumn": 26},
            "insertedContent": {"text": "550.54"},
        },
        {  # a new line is written with the file's own line ending
            "deletedRegion": {"startLine": 5, "startColumn": 28, "endLine": 5, "endColumn": 28},
            "insertedContent": {"text": "\r\nnote"},
        },
    ]
    assert "fixes" not in run["results"][0]

    (inv,) = run["invocations"]
    assert inv["executionSuccessful"] is False
    (note,) = inv["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bin/README.md"


def test_columns_match_the_source():
    """The replaced columns (1-based, end exclusive) hold the text the fix replaces."""
    res, _ = results()
    line = res[0].source.line(5)
    region = data()["runs"][0]["results"][1]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    r = region["deletedRegion"]
    assert line[r["startColumn"] - 1 : r["endColumn"] - 1] == "515.61"


def test_paths_relative_to_root(tmp_path):
    root = tmp_path / "repo"
    inside = str(root / "models" / "dit" / "README.md")
    outside = str(tmp_path / "elsewhere" / "README.md")
    res = [
        FileResult(inside, [Finding(inside, 1, 1, "PB699", "test-sarif-rule", "error", "m")]),
        FileResult(outside, [Finding(outside, 1, 1, "PB699", "test-sarif-rule", "error", "m")]),
    ]
    log = sarif.as_data(res, [], root=str(root))
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]
    ]
    assert uris[0] == {"uri": "models/dit/README.md", "uriBaseId": "%SRCROOT%"}
    assert uris[1]["uri"].startswith("file:///") and "uriBaseId" not in uris[1]


def test_no_findings_is_a_valid_empty_run():
    log = sarif.as_data([], [], version="0")
    (run,) = log["runs"]
    assert run["results"] == [] and run["tool"]["driver"]["rules"] == []
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_render_is_json():
    res, errors = results()
    assert json.loads(sarif.render(res, errors))["version"] == "2.1.0"


def test_golden(monkeypatch):
    no_link_env(monkeypatch)  # the file is the same on any machine: no runner-named links
    text = json.dumps(data(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("PERFBOT_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == text
