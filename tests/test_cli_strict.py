"""The command line cannot be misread (issue 18): no option is ever taken for a longer one it
starts (`--write` is not `--write-baseline`), and `--write-baseline` replaces only a baseline."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from freshkit import run_perfbot

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "examples" / "broken" / "README.md"


def perfbot(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_perfbot(list(argv), {}, cwd)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "m").mkdir()
    shutil.copy(BROKEN, tmp_path / "m" / "README.md")
    return tmp_path


def test_write_is_not_write_baseline(repo):
    before = (repo / "m" / "README.md").read_bytes()
    got = perfbot("check", "--write", "m/README.md", cwd=repo)
    assert got.returncode == 2
    assert "unrecognized arguments: --write" in got.stderr
    assert "did you mean --write-baseline?" in got.stderr
    assert (repo / "m" / "README.md").read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--diff", "."],  # ruff's --diff, not --diff-base
        ["check", "--add", "m"],  # not --add-noqa
        ["check", "--stat", "."],
        ["check", "--exp", "."],
        ["fix", "--unsafe", "."],
        ["config", "--sch"],
        ["review", "--rep", "org/models"],
        ["post", "--findings", "x.json", "--dry"],
        ["plan", "--conf", ".perfbot.yml"],
        ["bench", "--conf", ".perfbot.yml"],
        ["report", "--res", "results"],
        ["command", "--conf", ".perfbot.yml"],
    ],
)
def test_no_command_takes_an_abbreviation(repo, argv):
    before = (repo / "m" / "README.md").read_bytes()
    got = perfbot(*argv, cwd=repo)
    assert got.returncode == 2, got.stderr
    assert "unrecognized arguments" in got.stderr
    assert (repo / "m" / "README.md").read_bytes() == before


def test_write_baseline_refuses_a_readme(repo):
    before = (repo / "m" / "README.md").read_bytes()
    got = perfbot("check", "--write-baseline", "m/README.md", ".", cwd=repo)
    assert got.returncode == 2
    assert "m/README.md: not a perfbot baseline" in got.stderr
    assert "overwrites only a baseline it wrote" in got.stderr
    assert (repo / "m" / "README.md").read_bytes() == before


def test_write_baseline_refuses_other_json_and_folders(repo):
    (repo / "other.json").write_text('{"version": 2}\n')
    got = perfbot("check", "--write-baseline", "other.json", ".", cwd=repo)
    assert got.returncode == 2 and "not a perfbot baseline" in got.stderr
    assert (repo / "other.json").read_text() == '{"version": 2}\n'
    got = perfbot("check", "--write-baseline", "m", ".", cwd=repo)
    assert got.returncode == 2 and "overwrites only a baseline it wrote" in got.stderr


def test_write_baseline_writes_a_new_file_and_replaces_its_own(repo):
    got = perfbot("check", "--write-baseline", "b.json", ".", cwd=repo)
    assert got.returncode == 0, got.stderr
    first = json.loads((repo / "b.json").read_text())
    assert first["tool"] == "perfbot" and first["findings"]
    (repo / "m" / "README.md").write_text("# nothing\n")
    got = perfbot("check", "--write-baseline", "b.json", "m/README.md", cwd=repo)
    assert got.returncode == 0, got.stderr
    assert json.loads((repo / "b.json").read_text())["findings"] == []


def test_a_readme_that_is_not_utf8_is_that_files_error(repo):
    (repo / "cn").mkdir()
    text = "# 模型\n\n## 性能\n\n| 模型 | 卡数 |\n|---|---|\n| dit | 8 |\n"
    (repo / "cn" / "README.md").write_bytes(text.encode("gbk"))
    got = perfbot("check", "cn/README.md", "m/README.md", cwd=repo)
    assert got.returncode == 2
    assert "cn/README.md: error: is not UTF-8 (byte 0xd0 at offset 4)" in got.stdout
    assert "it looks like GBK/GB18030 (Chinese) text" in got.stdout
    assert "m/README.md:" in got.stdout  # the other file is still checked
    before = (repo / "cn" / "README.md").read_bytes()
    assert perfbot("fix", "cn/README.md", cwd=repo).returncode == 2
    assert (repo / "cn" / "README.md").read_bytes() == before


def test_a_misspelt_command_gets_a_suggestion_and_no_hidden_command(repo):
    got = perfbot("chek", ".", cwd=repo)
    assert got.returncode == 2
    assert "unknown command 'chek'; did you mean `perfbot check`?" in got.stderr
    assert "docs" not in got.stderr.splitlines()[-1]


def test_fix_of_a_missing_path_says_only_the_error(repo):
    got = perfbot("fix", "nope/", cwd=repo)
    assert got.returncode == 2
    assert "Nothing to fix" not in got.stdout + got.stderr
    assert "nope/: error: no such file or directory" in got.stdout + got.stderr


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["review", "--help"], ["--fail-on {error,warning,info,never}", "--max-comments N"]),
        (["review", "--help"], ["--filter-mode {added,diff_context,file,nofilter}"]),
        (["post", "--help"], ["--findings FILE", "findings file `perfbot review --findings-out`"]),
        (["rules", "--help"], ["output format"]),
        (["rule", "--help"], ["output format"]),
        (["matrix", "--help"], ["output format"]),
        (["config", "--help"], ["output format"]),
    ],
)
def test_help_names_the_choices_and_says_what_each_option_is(repo, argv, wanted):
    got = perfbot(*argv, cwd=repo)
    assert got.returncode == 0
    text = " ".join(got.stdout.split())
    for want in wanted:
        assert want in text, want


def test_the_baseline_and_summary_lines_read_once(repo):
    got = perfbot("check", "--write-baseline", "b.json", ".", cwd=repo)
    assert "wrote b.json: 17 findings (5 errors, 12 warnings, 0 info) in 1 file;" in got.stderr
    assert "finding(s)" not in got.stderr
    got = perfbot("check", "--select", "PB401", ".", cwd=repo)
    assert (
        "1 fixable with `perfbot fix --unsafe-fixes` (it changes a measured or declared "
        "value: review it)" in got.stdout
    )
    got = perfbot("fix", "--select", "PB401", ".", cwd=repo)
    assert "1 unsafe fix not applied (it changes a measured or declared value): review it" in (
        got.stdout
    )
