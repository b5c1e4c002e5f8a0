"""The ``perfbot`` command, called as ``main([...])``.

The findings come from two test-only rules registered for each test and removed afterwards
(PB699 marks lines holding ``BAD`` and can fix them; PB698 warns about ``MEH`` and cannot), and
every check runs with ``--select PB698,PB699``, so these tests do not depend on the real rules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from perfbot import registry
from perfbot.cli import main
from perfbot.fix import Edit, Fix
from perfbot.registry import Issue

SELECT = ["--select", "PB698,PB699"]


def _unregister(*ids: str) -> None:
    for rid in ids:
        r = registry.RULES.pop(rid, None)
        if r is not None:
            registry._BY_SLUG.pop(r.slug, None)


@pytest.fixture(autouse=True)
def test_rules():
    registry.all_rules()  # the real rules first, so that ours are only added
    _unregister("PB698", "PB699")

    @registry.rule("PB699", "test-bad-marker", severity="error", scope="document", fix="always")
    def bad_marker(ctx):
        """A line says BAD (test rule).

        Example:
            BAD

        Use instead:
            good
        """
        for n, line in enumerate(ctx.source.lines, 1):
            i = line.find("BAD")
            if i >= 0:
                fix = Fix("Write good", (Edit(n, i, i + 3, "good"),))
                yield Issue(n, "100% BAD: here, there\nand a second line", fix=fix)

    @registry.rule("PB698", "test-meh-marker", severity="warning", scope="document")
    def meh_marker(ctx):
        """A line says MEH (test rule)."""
        for n, line in enumerate(ctx.source.lines, 1):
            if "MEH" in line:
                yield Issue(n, "MEH is not great")

    yield
    _unregister("PB698", "PB699")


def readme(extra: str = "") -> str:
    """A small model README (it has a Performance table), with ``extra`` lines at the end."""
    return (
        "# model\n"
        "\n"
        "## Performance\n"
        "\n"
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n"
        "\n"
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        "| img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |\n" + extra
    )


# line numbers of readme()'s extra lines
EXTRA = readme().count("\n") + 1


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A folder with a .git marker (so no config above it is found), as the current folder."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- version, usage ---------------------------------------------------------------------------


def test_version(capsys):
    from perfbot import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"perfbot {__version__}"


def test_version_imports_no_core():
    code = (
        "import sys; from perfbot.cli import main; rc = main(['--version']); "
        "heavy = [m for m in ('perfbot.engine', 'perfbot.registry', 'perfbot.github', "
        "'perfbot.runner', 'github', 'mistune', 'pydantic', 'yaml') if m in sys.modules]; "
        "print(rc, heavy, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip() == "0 []"


def test_python_dash_m(repo):
    write(repo / "README.md", readme("BAD\n"))
    out = subprocess.run(
        [sys.executable, "-m", "perfbot", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.startswith("perfbot ")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["nonsense"],
        ["check", "--format", "xml"],
        ["check", "--no-such-option"],
        ["fix", "--fail-on", "sometimes"],
    ],
)
def test_usage_errors_exit_2(argv, capsys, repo):
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_unknown_rule_in_select(capsys, repo):
    write(repo / "README.md", readme())
    assert main(["check", "--select", "PB999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfbot: error: --select: unknown rule 'PB999'")


# --- check ------------------------------------------------------------------------------------


def test_clean_file_exits_0(capsys, repo):
    write(repo / "README.md", readme())
    assert main(["check", *SELECT]) == 0
    out = capsys.readouterr().out
    assert out == "No findings in 1 file\n"


def test_finding_exits_1_with_text_lines(capsys, repo):
    write(repo / "m" / "README.md", readme("BAD\nMEH\n"))
    assert main(["check", *SELECT]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"m/README.md:{EXTRA}: error PB699 100% BAD: here, there and a second line"
    assert lines[-2] == f"m/README.md:{EXTRA + 1}: warning PB698 MEH is not great"
    assert lines[-1] == (
        "2 findings (1 error, 1 warning, 0 info) in 1 file; 1 fixable with `perfbot fix`"
    )


@pytest.mark.parametrize(
    ("extra", "fail_on", "rc"),
    [
        ("MEH\n", "error", 0),
        ("MEH\n", "warning", 1),
        ("MEH\n", "info", 1),
        ("BAD\n", "never", 0),
        ("BAD\n", "error", 1),
    ],
)
def test_fail_on(extra, fail_on, rc, repo):
    write(repo / "README.md", readme(extra))
    assert main(["check", *SELECT, "--fail-on", fail_on]) == rc


def test_quiet_and_statistics(capsys, repo):
    write(repo / "README.md", readme("BAD\nBAD again\nMEH\n"))
    assert main(["check", *SELECT, "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "findings" not in out and out.count("\n") == 3
    assert main(["check", *SELECT, "--statistics"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["2", "PB699", "test-bad-marker", "error", "(2", "fixable)"]
    assert lines[1].split() == ["1", "PB698", "test-meh-marker", "warning"]
    assert lines[2].startswith("3 findings")


def test_select_and_ignore_by_slug(repo):
    write(repo / "README.md", readme("BAD\n"))
    assert main(["check", "--select", "test-bad-marker"]) == 1
    assert main(["check", *SELECT, "--ignore", "test-bad-marker"]) == 0
    assert main(["check", "--select", "PB69", "--ignore", "PB699"]) == 0


def test_walk_picks_model_readmes_only(capsys, repo):
    write(repo / "README.md", "# a repo\n\nBAD but no tables here\n")  # not a model README
    write(repo / "configs" / "dit" / "README.md", readme("BAD\n"))
    write(repo / "configs" / "dit" / "readme_cn.MD", readme("BAD\n"))
    write(repo / "configs" / "dit" / "notes.md", readme("BAD\n"))  # not a README
    write(repo / "node_modules" / "x" / "README.md", readme("BAD\n"))
    write(repo / ".github" / "README.md", readme("BAD\n"))
    write(repo / ".git" / "README.md", readme("BAD\n"))
    assert main(["check", *SELECT]) == 1
    out = capsys.readouterr().out
    paths = sorted({ln.split(":")[0] for ln in out.splitlines()[:-1]})
    assert paths == ["configs/dit/README.md", "configs/dit/readme_cn.MD"]
    assert out.splitlines()[-1].endswith("in 2 files; 2 fixable with `perfbot fix`")


def test_named_file_is_always_checked_unless_force_exclude(capsys, repo):
    write(repo / "README.md", "# a repo\n\nBAD but no tables here\n")
    assert main(["check", *SELECT, "README.md"]) == 1
    assert main(["check", *SELECT, "--force-exclude", "README.md"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "No findings in 0 files"


def test_config_paths_and_exclude(capsys, repo):
    write(repo / ".perfbot.yml", "paths: ['models/**/README.md']\nexclude: ['**/old/README.md']\n")
    write(repo / "models" / "a" / "README.md", "# no table, but paths say it is one\n\nBAD\n")
    write(repo / "models" / "old" / "README.md", readme("BAD\n"))
    write(repo / "other" / "README.md", readme("BAD\n"))
    assert main(["check", *SELECT]) == 1
    out = capsys.readouterr().out
    assert {ln.split(":")[0] for ln in out.splitlines()[:-1]} == {"models/a/README.md"}


def test_config_rule_severity_applies(repo):
    write(repo / ".perfbot.yml", "rules:\n  test-bad-marker: warning\n")
    write(repo / "README.md", readme("BAD\n"))
    assert main(["check", *SELECT]) == 0
    assert main(["check", *SELECT, "--fail-on", "warning"]) == 1


def test_bad_config_is_an_error_not_a_traceback(capsys, repo):
    write(repo / "a" / ".perfbot.yml", "no_such_key: 1\n")
    write(repo / "a" / "README.md", readme("BAD\n"))
    write(repo / "a" / "sub" / "README.md", readme("BAD\n"))
    write(repo / "b" / "README.md", readme("MEH\n"))
    assert main(["check", *SELECT]) == 2
    out = capsys.readouterr().out
    assert "Traceback" not in out
    # one error for the config (not one per README it governs); b/ is still checked
    assert out.count("unknown key") == 1
    assert f"b/README.md:{EXTRA}: warning PB698" in out
    assert "a/.perfbot.yml: error: no_such_key: unknown key" in out


def test_bad_explicit_config_exits_2(capsys, repo):
    write(repo / "README.md", readme())
    write(repo / "bad.yml", "rules: [1, 2]\n")
    assert main(["check", "--config", "bad.yml"]) == 2
    assert main(["check", "--config", "missing.yml"]) == 2
    err = capsys.readouterr().err
    assert "perfbot: error: bad.yml" in err and "perfbot: error: missing.yml" in err
    assert "Traceback" not in err


def test_unreadable_and_binary_files_do_not_stop_the_others(capsys, repo):
    write(repo / "a" / "README.md", readme("BAD\n"))
    (repo / "b").mkdir()
    (repo / "b" / "README.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    os.symlink(repo / "nowhere.md", repo / "c_README.md")
    os.symlink(repo / "nowhere.md", repo / "README_broken.md")  # walked, then unreadable
    write(repo / "d" / "README.md", readme("MEH\n"))
    rc = main(["check", *SELECT, ".", "c_README.md", "missing/README.md"])
    assert rc == 2
    out = capsys.readouterr().out
    assert f"a/README.md:{EXTRA}: error PB699" in out
    assert f"d/README.md:{EXTRA}: warning PB698" in out
    assert "b/README.md: error: looks like a binary file" in out
    assert "README_broken.md: error: no such file" in out
    assert "c_README.md: error: no such file" in out
    assert "missing/README.md: error: no such file or directory" in out
    assert out.splitlines()[-1].endswith(
        "in 2 files; 1 fixable with `perfbot fix`; 4 files could not be checked"
    )


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads all")
def test_permission_denied(capsys, repo):
    p = write(repo / "README.md", readme())
    p.chmod(0)
    try:
        assert main(["check", "README.md"]) == 2
    finally:
        p.chmod(0o644)
    assert "README.md: error: cannot read" in capsys.readouterr().out


def test_internal_error_is_one_line(capsys, repo, monkeypatch):
    import perfbot.engine

    def boom(*a, **k):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(perfbot.engine, "check_source", boom)
    write(repo / "README.md", readme())
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfbot: internal error: ZeroDivisionError: oops\n")
    assert "Traceback" not in err and len(err.splitlines()) == 2


# --- json and github formats -------------------------------------------------------------------


def test_json_shape(capsys, repo):
    write(repo / "README.md", readme("x BAD y\nMEH\n"))
    (repo / "bin").mkdir()
    (repo / "bin" / "README.md").write_bytes(b"\x00\x01\x02")
    assert main(["check", *SELECT, "--format", "json"]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)  # stdout is the JSON document and nothing else
    assert "findings" in captured.err  # the summary goes to stderr
    assert list(data) == ["version", "files", "findings", "errors"]
    assert data["version"] == 1 and data["files"] == 1
    assert data["errors"] == [
        {"path": "bin/README.md", "message": "looks like a binary file (NUL bytes), not Markdown"}
    ]
    bad, meh = data["findings"]
    assert bad == {
        "path": "README.md",
        "line": EXTRA,
        "column": 3,
        "end_line": EXTRA,
        "end_column": 6,
        "rule": "PB699",
        "slug": "test-bad-marker",
        "severity": "error",
        "message": "100% BAD: here, there\nand a second line",
        "fixable": True,
        "fix": {
            "start_line": EXTRA,
            "end_line": EXTRA,
            "replacement": "x good y\n",
            "applicability": "safe",
            "edits": [{"line": EXTRA, "column": 3, "end_column": 6, "text": "good"}],
        },
    }
    assert meh == {
        "path": "README.md",
        "line": EXTRA + 1,
        "column": None,
        "end_line": EXTRA + 1,
        "end_column": None,
        "rule": "PB698",
        "slug": "test-meh-marker",
        "severity": "warning",
        "message": "MEH is not great",
        "fixable": False,
        "fix": None,
    }


def test_json_quiet_keeps_stderr_empty(capsys, repo):
    write(repo / "README.md", readme())
    assert main(["check", *SELECT, "--format", "json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["findings"] == []
    assert captured.err == ""


def test_github_format_escapes(capsys, repo):
    write(repo / "a,b:c" / "README.md", readme("BAD\n"))
    (repo / "x%y").mkdir()
    (repo / "x%y" / "README.md").write_bytes(b"\x00")
    assert main(["check", *SELECT, "--format", "github"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"::error file=a%2Cb%3Ac/README.md,line={EXTRA},endLine={EXTRA},"
        "title=PB699 test-bad-marker::100%25 BAD: here, there%0Aand a second line",
        "::error file=x%25y/README.md,title=perfbot::"
        "looks like a binary file (NUL bytes), not Markdown",
    ]


def test_github_levels(capsys, repo):
    write(repo / "README.md", readme("MEH\n"))
    write(repo / ".perfbot.yml", "rules:\n  PB698: info\n")
    assert main(["check", *SELECT, "--format", "github"]) == 0
    assert capsys.readouterr().out.startswith("::notice file=README.md,")


def test_github_escape_functions():
    from perfbot.report.github import command, escape_data, escape_property

    assert escape_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    assert command("warning", "x\ny") == "::warning::x%0Ay"


# --- fix ---------------------------------------------------------------------------------------


def test_fix_diff_writes_nothing(capsys, repo):
    p = write(repo / "README.md", readme("BAD\nMEH\n"))
    before = p.read_bytes()
    assert main(["fix", *SELECT, "--diff"]) == 1
    captured = capsys.readouterr()
    assert p.read_bytes() == before
    assert captured.out.startswith("--- a/README.md\n+++ b/README.md\n")
    assert "-BAD\n+good\n" in captured.out
    assert "Would fix 1 finding in 1 file" in captured.err


def test_fix_diff_clean_exits_0(capsys, repo):
    write(repo / "README.md", readme("MEH\n"))
    assert main(["fix", *SELECT, "--diff"]) == 0
    assert capsys.readouterr().out == ""


def test_fix_diff_no_final_newline(capsys, repo):
    write(repo / "README.md", readme("BAD"))
    assert main(["fix", *SELECT, "--diff"]) == 1
    assert "-BAD\n\\ No newline at end of file\n+good\n\\ No newline" in capsys.readouterr().out


def test_fix_in_place_keeps_bom_and_crlf_and_reports_the_rest(capsys, repo):
    text = readme("BAD\nMEH\nBAD BAD\n").replace("\n", "\r\n")
    p = repo / "README.md"
    p.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert main(["fix", *SELECT]) == 0  # what remains is a warning
    out = capsys.readouterr().out
    assert p.read_bytes() == b"\xef\xbb\xbf" + text.replace("BAD", "good").encode("utf-8")
    assert "README.md: fixed 3 findings" in out
    assert "Fixed 3 findings in 1 file" in out
    assert f"README.md:{EXTRA + 1}: warning PB698 MEH is not great" in out
    # nothing left to fix: the file is not touched again
    mtime = p.stat().st_mtime_ns
    assert main(["fix", *SELECT, "--fail-on", "warning"]) == 1
    assert p.stat().st_mtime_ns == mtime
    assert "Nothing to fix" in capsys.readouterr().out


def test_fix_only_selected_rules(repo):
    p = write(repo / "README.md", readme("BAD\n"))
    assert main(["fix", *SELECT, "--ignore", "PB699"]) == 0
    assert "BAD" in p.read_text()


def test_fix_json_keeps_stdout_clean(capsys, repo):
    write(repo / "README.md", readme("BAD\nMEH\n"))
    assert main(["fix", *SELECT, "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [f["rule"] for f in data["findings"]] == ["PB698"]
    assert "Fixed 1 finding in 1 file" in captured.err


# --- rules, matrix, edges -----------------------------------------------------------------------


def test_rules_text_and_json(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "slug", "severity", "fix", "safety", "summary"]
    row = next(ln for ln in lines if ln.startswith("PB699"))
    assert row.split()[:5] == ["PB699", "test-bad-marker", "error", "always", "safe"]
    assert row.endswith("A line says BAD (test rule).")
    row = next(ln for ln in lines if ln.startswith("PB401"))
    assert row.split()[:5] == ["PB401", "img-s-mismatch", "error", "sometimes", "unsafe"]
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    mine = next(r for r in data if r["id"] == "PB698")
    assert mine == {
        "id": "PB698",
        "slug": "test-meh-marker",
        "severity": "warning",
        "fix": "never",
        "fix_safety": "-",
        "family": "structure",
        "enabled": True,
        "config_keys": [],
        "summary": "A line says MEH (test rule).",
    }


def test_matrix_merges_config_rows(capsys, repo):
    write(repo / ".perfbot.yml", "matrix:\n  - {mindspore: 9.9.9, cann: 99.0.RC1}\n")
    assert main(["matrix"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "| mindspore | ascend driver | firmware | cann toolkit/kernel | accepted cann | origin |"
    )
    assert "| 9.9.9 | - | - | 99.0.RC1 | - | config |" in lines
    assert any(ln.endswith("| builtin |") for ln in lines)
    assert main(["matrix", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[-1]["mindspore"] == "9.9.9" and rows[-1]["origin"] == "config"


def test_edge_commands_get_their_argv(monkeypatch):
    seen = {}

    def bench_main(argv):
        seen["argv"] = argv
        return 3

    monkeypatch.setitem(
        sys.modules, "perfbot.runner.bench", types.SimpleNamespace(bench_main=bench_main)
    )
    assert main(["bench", "-h", "--format", "json", "x", "--", "--version"]) == 3
    assert seen["argv"] == ["-h", "--format", "json", "x", "--", "--version"]


def test_edge_command_own_parser_exit(monkeypatch):
    def review_main(argv):
        import argparse

        argparse.ArgumentParser(prog="perfbot review").parse_args(argv)

    monkeypatch.setitem(
        sys.modules, "perfbot.github.review", types.SimpleNamespace(review_main=review_main)
    )
    assert main(["review", "--bogus"]) == 2
    assert main(["review"]) == 0


def test_edge_command_missing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "perfbot.github.command", None)
    assert main(["command", "anything"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfbot: error: `perfbot command` is not available")
