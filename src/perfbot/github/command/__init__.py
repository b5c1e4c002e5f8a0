"""`/perfbot` comment commands: a small grammar, the permission gate, and `perfbot command`.

- :mod:`~perfbot.github.command.grammar`: reading the command in a comment's first line (pure).
- :mod:`~perfbot.github.command.gate`: who may ask, fork approvals, the replies and their listing.
- :mod:`~perfbot.github.command.cli`: ``command_main``, the arguments and the event's checks.

The names other modules use are offered here.
"""

from __future__ import annotations

from perfbot.github.command.cli import command_main
from perfbot.github.command.gate import (
    FORK_MIN_PERMISSION,
    MAX_REPLIES,
    REPLY_MARKER,
    ROLES,
    WITHDRAW,
    Approval,
    default_branch,
    ok_to_test_comments,
    read_repo_config,
    rerun_policy,
    role_at_least,
    write_outputs,
)
from perfbot.github.command.grammar import (
    KEYS,
    MAX_LINE,
    MAX_TARGET_LEN,
    MAX_TARGETS,
    MAX_TOKENS,
    PLAN_DIGITS,
    PREFIX,
    USAGE,
    Command,
    Help,
    Invalid,
    KeySpec,
    OkToTest,
    Rerun,
    code,
    first_line,
    parse_comment,
)

__all__ = [
    "FORK_MIN_PERMISSION",
    "KEYS",
    "MAX_LINE",
    "MAX_REPLIES",
    "MAX_TARGETS",
    "MAX_TARGET_LEN",
    "MAX_TOKENS",
    "PLAN_DIGITS",
    "PREFIX",
    "REPLY_MARKER",
    "ROLES",
    "USAGE",
    "WITHDRAW",
    "Approval",
    "Command",
    "Help",
    "Invalid",
    "KeySpec",
    "OkToTest",
    "Rerun",
    "code",
    "command_main",
    "default_branch",
    "first_line",
    "ok_to_test_comments",
    "parse_comment",
    "read_repo_config",
    "rerun_policy",
    "role_at_least",
    "write_outputs",
]
