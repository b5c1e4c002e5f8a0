"""``.pre-commit-hooks.yaml``: every hook's entry is a valid perfbot command line, and the default
hook checks only the changed lines."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from perfbot.cli import build_parser

HOOKS = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


def test_entries_parse():
    for h in hooks().values():
        argv = shlex.split(h["entry"])
        assert argv[0] == "perfbot"
        _args, extra = build_parser().parse_known_args([*argv[1:], "README.md"])
        assert not extra, h["id"]


def test_default_hook_gates_changed_lines():
    argv = shlex.split(hooks()["perfbot-check"]["entry"])[1:]
    args = build_parser().parse_args([*argv, "README.md"])
    assert args.diff_base == "HEAD" and args.filter_mode == "added"
    assert "--diff-base" not in hooks()["perfbot-check-all"]["entry"]


def test_the_fix_hook_fails_only_by_changing_files(tmp_path):
    """A second run with nothing left to fix passes, whatever errors only a person can fix
    remain (perfbot-check reports those); the first run changed the file, which pre-commit
    reports as a failure by itself (newcomer-2: "Nothing to fix", exit 1)."""
    import subprocess
    import sys

    (tmp_path / ".git").mkdir()
    readme = tmp_path / "README.md"
    readme.write_bytes((HOOKS.parent / "examples" / "broken" / "README.md").read_bytes())
    argv = shlex.split(hooks()["perfbot-fix"]["entry"])[1:]
    runs = [
        subprocess.run(
            [sys.executable, "-m", "perfbot", *argv, "README.md"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    assert "fixed 13 findings" in runs[0].stdout
    assert runs[1].returncode == 0, runs[1].stdout
    assert "Nothing to fix" in runs[1].stdout and "error PB401" in runs[1].stdout
