"""``perfbot check --write-baseline/--baseline`` and ``--diff-base``: gate only new findings."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from perfbot.cli import main
from perfbot.gitdiff import split_diff

README = """\
# Model

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
| :--------: | :---: | :--------: | :--------: | :-------: | :-----------: | :----: | :---: |
| a | 1 | 64 | 256x256 | o2 | 3~5 mins | 0.89 | 71.91 |
| b | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |
"""
BROKEN_ROW = "| c | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |\n"  # img/s wrong: PB401


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for name in ("m1", "m2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(README, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "import")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(capsys, *argv: str) -> tuple[int, list[tuple[str, int, str]]]:
    rc = main(["check", "--format", "json", *argv])
    data = json.loads(capsys.readouterr().out)
    return rc, [(f["path"], f["line"], f["rule"]) for f in data["findings"]]


def test_baseline_hides_known_findings_and_reports_a_new_row(repo, capsys):
    rc, before = findings(capsys, ".")
    assert rc == 0 and sorted(before) == [("m1/README.md", 15, "PB413"), ("m2/README.md", 15,
                                                                           "PB413")]  # fmt: skip
    assert main(["check", "--write-baseline", "base.json", "."]) == 0
    data = json.loads((repo / "base.json").read_text(encoding="utf-8"))
    assert {(e["path"], e["rule"], e["count"]) for e in data["findings"]} == {
        ("m1/README.md", "PB413", 1),
        ("m2/README.md", "PB413", 1),
    }
    assert findings(capsys, "--baseline", "base.json", ".") == (0, [])
    # a new broken row, and the old rows moved down by a line: only the new row is reported
    p = repo / "m1" / "README.md"
    p.write_text(p.read_text().replace("## Performance", "## Performance\n") + BROKEN_ROW)
    assert findings(capsys, "--baseline", "base.json", ".") == (1, [("m1/README.md", 18,
                                                                     "PB401")])  # fmt: skip


def test_baseline_from_another_working_directory(repo, capsys, monkeypatch):
    assert main(["check", "--write-baseline", "base.json", "."]) == 0
    monkeypatch.chdir(repo / "m2")
    assert findings(capsys, "--baseline", "../base.json", ".") == (0, [])


def test_baseline_counts_same_fingerprint_findings(repo, capsys):
    # two PB413 on identical rows: the baseline knows one, so the second is reported
    assert main(["check", "--write-baseline", "base.json", "m1"]) == 0
    p = repo / "m1" / "README.md"
    row = "| a | 1 | 64 | 256x256 | o2 | 3~5 mins | 0.89 | 71.91 |\n"
    p.write_text(p.read_text() + row)
    _rc, got = findings(capsys, "--baseline", "base.json", "m1")
    assert [r for _, _, r in got] == ["PB413"]


@pytest.mark.parametrize(
    "content, message",
    [("{", "not JSON"), ('{"version": 9, "findings": []}', "expected version 1"),
     ('{"version": 1, "findings": [{"count": 1}]}', "needs a fingerprint")],
)  # fmt: skip
def test_bad_baseline_is_a_usage_error(repo, capsys, content, message):
    (repo / "base.json").write_text(content)
    assert main(["check", "--baseline", "base.json", "."]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_diff_base_modes(repo, capsys):
    p = repo / "m1" / "README.md"
    p.write_text(p.read_text() + BROKEN_ROW)
    # diff_context (default): the new row and the o2 row 2 lines above it (in the hunk)
    rc, got = findings(capsys, "--diff-base", "HEAD", ".")
    assert rc == 1 and got == [("m1/README.md", 15, "PB413"), ("m1/README.md", 17, "PB401")]
    assert findings(capsys, "--diff-base", "HEAD", "--filter-mode", "added", ".")[1] == [
        ("m1/README.md", 17, "PB401")
    ]
    # file: everything in m1, nothing in m2 (not changed)
    got = findings(capsys, "--diff-base", "HEAD", "--filter-mode", "file", ".")[1]
    assert {path for path, _, _ in got} == {"m1/README.md"} and len(got) == 2


def test_diff_base_counts_untracked_files_as_added(repo, capsys):
    (repo / "m3").mkdir()
    (repo / "m3" / "README.md").write_text(README, encoding="utf-8")
    assert findings(capsys, "--diff-base", "HEAD", "--filter-mode", "added", ".")[1] == [
        ("m3/README.md", 15, "PB413")
    ]


def test_diff_base_errors(repo, capsys, tmp_path_factory, monkeypatch):
    assert main(["check", "--diff-base", "no-such-ref", "."]) == 2
    assert "no-such-ref" in capsys.readouterr().err
    assert main(["check", "--diff-base", "--output=x", "."]) == 2
    monkeypatch.chdir(tmp_path_factory.mktemp("not_a_repo"))
    assert main(["check", "--diff-base", "HEAD", "."]) == 2
    assert "failed" in capsys.readouterr().err


def test_split_diff_paths():
    text = (
        "diff --git a/x y/README.md b/x y/README.md\n--- a/x y/README.md\n+++ b/x y/README.md\n"
        "@@ -1,0 +2,1 @@\n+new\n"
        'diff --git "a/\\346\\250\\241/README.md" "b/\\346\\250\\241/README.md"\n'
        '--- "a/\\346\\250\\241/README.md"\n+++ "b/\\346\\250\\241/README.md"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/gone.md b/gone.md\n--- a/gone.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    got = split_diff(text)
    assert set(got) == {"x y/README.md", "模/README.md"}
    assert got["x y/README.md"][0].added == frozenset({2})


def test_diff_base_head_before_the_first_commit(tmp_path, monkeypatch, capsys):
    git(tmp_path, "init", "-q")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "README.md").write_text(README + BROKEN_ROW, encoding="utf-8")
    git(tmp_path, "add", "-A")  # staged, as pre-commit sees the first commit
    monkeypatch.chdir(tmp_path)
    rc, got = findings(capsys, "--diff-base", "HEAD", "--filter-mode", "added", ".")
    assert rc == 1 and {r for _, _, r in got} == {"PB413", "PB401"}
