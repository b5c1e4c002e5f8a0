"""The pull-request view of :mod:`perfbot.hunks` (moved to the core, where ``perfbot check
--diff-base`` uses the same hunks and filter modes locally); kept so the edge's imports stay."""

from __future__ import annotations

from ..hunks import (
    DEFAULT_FILTER_MODE,
    DiffLine,
    FilterMode,
    Hunk,
    LineKind,
    added_lines,
    can_suggest,
    commentable_lines,
    hunk_of,
    hunks_by_path,
    in_scope,
    parse_patch,
)

__all__ = [
    "DEFAULT_FILTER_MODE",
    "DiffLine",
    "FilterMode",
    "Hunk",
    "LineKind",
    "added_lines",
    "can_suggest",
    "commentable_lines",
    "hunk_of",
    "hunks_by_path",
    "in_scope",
    "parse_patch",
]
