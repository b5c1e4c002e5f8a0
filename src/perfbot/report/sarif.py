"""SARIF 2.1.0, for GitHub code scanning (``github/codeql-action/upload-sarif``).

One run; ``tool.driver.rules`` lists the rules that have findings (id, ``name`` = slug, short
description, ``helpUri`` into ``docs/rules.md``, default level). Each result has its rule, level
(``error`` / ``warning`` / ``note``), message and one location: a path relative to the repository
root (``uriBaseId`` ``%SRCROOT%``) with ``startLine``/``endLine``. A finding with a fix carries it
as ``fixes`` (one replacement per edit, columns 1-based). Files that could not be checked become
``toolExecutionNotifications`` of the run's invocation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from . import findings, relative_uri

if TYPE_CHECKING:
    from ..engine import FileResult
    from ..fix import Fix
    from ..registry import Finding
    from ..source import FileError, Source

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _artifact(path: str, root: str | None) -> dict[str, str]:
    p, relative = relative_uri(path, root)
    if relative:
        return {"uri": quote(p), "uriBaseId": SRCROOT}
    return {"uri": "file://" + quote(p if p.startswith("/") else "/" + p)}


def _rule(f: Finding) -> dict[str, Any]:
    from ..docs import rule_url
    from ..registry import get_rule

    r = get_rule(f.rule)
    slug = r.slug if r else f.slug
    entry: dict[str, Any] = {
        "id": f.rule,
        "name": slug,
        "shortDescription": {"text": r.summary if r else slug},
        "helpUri": rule_url(f.rule, slug),
        "defaultConfiguration": {"level": LEVELS[r.severity if r else f.severity]},
    }
    if r is not None:
        entry["fullDescription"] = {"text": r.doc}
        entry["properties"] = {"tags": [r.family], "fix": r.fix}
    return entry


def _fix(fix: Fix, artifact: dict[str, str], src: Source | None) -> dict[str, Any]:
    from ..fix import select_edits

    newline = src.newline if src is not None else "\n"
    replacements = [
        {
            "deletedRegion": {
                "startLine": e.line,
                "startColumn": e.start + 1,
                "endLine": e.line,
                "endColumn": e.end + 1,
            },
            "insertedContent": {"text": e.text.replace("\n", newline)},
        }
        for e in sorted(select_edits(list(fix.edits)), key=lambda e: (e.line, e.start))
    ]
    return {
        "description": {"text": fix.title},
        "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}],
        "properties": {"applicability": fix.applicability},  # ruff's word: safe / unsafe
    }


def as_data(
    results: Sequence[FileResult],
    errors: Sequence[FileError] = (),
    *,
    root: str | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    from .. import __version__

    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    sources = {r.path: r.source for r in results}
    for f in findings(results):
        if f.rule not in index:
            index[f.rule] = len(rules)
            rules.append(_rule(f))
        artifact = _artifact(f.path, root)
        res: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVELS[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact,
                        "region": {"startLine": f.line, "endLine": max(f.end_line, f.line)},
                    }
                }
            ],
        }
        if f.fix is not None and f.fix.edits:
            res["fixes"] = [_fix(f.fix, artifact, sources.get(f.path))]
        out.append(res)
    invocation: dict[str, Any] = {"executionSuccessful": not errors}
    if errors:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "error",
                "message": {"text": e.message},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(e.path, root)}}],
            }
            for e in errors
        ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "perfbot",
                        "version": version or __version__,
                        "informationUri": rule_docs_url(),
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": out,
            }
        ],
    }


def rule_docs_url() -> str:
    from ..docs import RULES_URL

    return RULES_URL


def render(
    results: Sequence[FileResult],
    errors: Sequence[FileError] = (),
    *,
    root: str | None = None,
) -> str:
    """The SARIF log as JSON. ``root``: the repository root that paths are made relative to."""
    return json.dumps(as_data(results, errors, root=root), indent=2, ensure_ascii=False) + "\n"
