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
