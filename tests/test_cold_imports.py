"""What a fresh ``perfbot check README.md`` imports (issue 11: the pre-commit case, <= 120 ms CPU).

No clocks: a fresh interpreter runs the check and reports ``sys.modules``. It runs with ``-S``
and this process's ``sys.path``, so that ``.pth`` files of the environment (which may import
anything at start-up) do not hide what perfbot itself imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
sys.path[:] = json.loads(sys.argv.pop(1))
before = set(sys.modules)
import perfbot.cli
code = perfbot.cli.main(sys.argv[1:])
new = sorted(set(sys.modules) - before)
print(json.dumps({"code": code, "modules": new}), file=sys.stderr)
"""

README = """\
# Net

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:---------:|:-------------:|:--------:|:-------------------:|
| 2.3.1     | 24.1.RC2      | 7.3.0.1.231 | 8.0.RC3.beta1    |

## Performance

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""

# never needed to check one README without a config file: PyYAML (the guide is read from its
# JSON twin), importlib.resources (it imports zipfile, tempfile, ...), pydantic (the config
# classes), hashlib (OpenSSL; a row's key is a SHA-1 from CPython's _sha1), the GitHub and
# runner edges; pathspec (globs: only a config's paths/exclude need it), the config schema
NOT_ON_THE_CHECK_PATH = (
    "pathspec",
    "perfbot.config_schema",
    "hashlib",
    "_hashlib",
    "yaml",
    "_yaml",
    "importlib.resources",
    "zipfile",
    "tempfile",
    "pydantic",
    "pydantic_core",
    "perfbot.config",
    "perfbot.github",
    "perfbot.runner",
)


def _cold(tmp_path: Path, *args: str) -> tuple[dict, str]:
    path = [p for p in sys.path if p]
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, json.dumps(path), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.stderr.strip(), proc
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def _heavy(modules: list[str]) -> list[str]:
    return [
        m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_ON_THE_CHECK_PATH)
    ]


def test_checking_one_readme_imports_no_yaml(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the walk for .perfbot.yml stops here
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    for fmt in ("text", "json"):
        probe, out = _cold(tmp_path, "check", "--format", fmt, "README.md")
        assert probe["code"] == 1
        assert "PB501" in out  # the matrix was read (and the guide: PB303 needs its columns)
        assert "perfbot.spec.matrix" in probe["modules"]
        assert _heavy(probe["modules"]) == []
    # a config file still brings PyYAML (and what it says applies)
    (tmp_path / ".perfbot.yml").write_text("rules:\n  PB501: off\n", encoding="utf-8")
    probe, out = _cold(tmp_path, "check", "README.md")
    assert "yaml" in probe["modules"]
    assert "PB501" not in out
    assert "PB303" in out


ARGVS = [
    ["check", "README.md"],
    ["check", "--format", "json", "--fail-on", "never", "-q", "a.md", "b.md"],
    ["check", "--diff-base", "main", "--filter-mode", "added", "fix"],
    ["fix", "--unsafe-fixes", "--diff", "."],
    ["rules", "--format", "json"],
    ["matrix", "x", "--format", "json"],
    ["config", "--schema"],
    ["init", "--stdout"],
    ["rule", "PB303"],
    ["docs", "--check"],
    ["review", "--event", "e.json"],
    ["plan", "--x"],
]


def test_the_parser_builds_only_the_sub_command_it_will_parse() -> None:
    from perfbot.cli import SUBCOMMANDS, build_parser

    full = build_parser()
    choices = full._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(choices) == list(SUBCOMMANDS)
    for argv in ARGVS:
        lazy = build_parser(argv)
        action = lazy._subparsers._group_actions[0]  # type: ignore[union-attr]
        assert list(action.choices) == [argv[0]]
        assert lazy.parse_known_args(argv) == full.parse_known_args(argv), argv
        assert action.choices[argv[0]].format_help() == choices[argv[0]].format_help()
    # --version needs no sub-command; anything else gets them all (the list, the errors)
    assert build_parser(["--version"])._subparsers._group_actions[0].choices == {}  # type: ignore[union-attr]
    for argv in ([], ["--help"], ["chek"], ["-x", "check"], ["--versio"]):
        assert build_parser(argv).format_help() == full.format_help()
        assert len(build_parser(argv)._subparsers._group_actions[0].choices) == len(choices)  # type: ignore[union-attr]


def test_the_program_freezes_its_objects_before_the_interpreter_exits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the interpreter's last garbage collections walk what is not frozen (~9 ms of a cold check);
    # only `sys.exit(main())` (argv from sys.argv) ends the process, a call with argv does not
    import gc

    from perfbot import cli

    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    assert cli.main(["--version"]) == 0
    assert frozen == []
    monkeypatch.setattr(sys, "argv", ["perfbot", "--version"])
    assert cli.main() == 0
    assert frozen == [1]
    assert capsys.readouterr().out.startswith("perfbot ")


def test_json_output_takes_orjson_only_for_many_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("orjson")
    import json

    from perfbot.engine import check_source
    from perfbot.report import json as report_json
    from perfbot.source import Source

    result = check_source(Source.from_text(README, "README.md"))
    assert 0 < len(result.findings) < report_json.ORJSON_FROM
    want = report_json.render([result])
    used: list[str] = []
    monkeypatch.setattr(report_json, "dumps", lambda data: used.append("orjson") or "")
    monkeypatch.delitem(sys.modules, "orjson")
    assert report_json.render([result]) == want
    assert used == []
    many = [result] * (report_json.ORJSON_FROM // len(result.findings) + 1)
    report_json.render(many)
    assert used == ["orjson"]
    assert json.loads(want)["findings"]
