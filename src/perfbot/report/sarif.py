"""SARIF 2.1.0, for GitHub code scanning (``github/codeql-action/upload-sarif``).

One run; ``tool.driver.rules`` lists the rules with results (id, ``name`` = slug, short and full
description, ``help`` as text and Markdown, ``helpUri`` into ``docs/rules.md``, default level),
the same in a serial and a parallel check. Each result has its
rule, level (``error`` / ``warning`` / ``note``), message, one location (a path relative to the
repository root, ``uriBaseId`` ``%SRCROOT%``, which ``originalUriBaseIds`` resolves, with
``startLine``/``endLine`` and the columns of what the fix edits when there is one) and
``partialFingerprints`` (the structural fingerprint of the review and of ``--baseline``: file,
table, row, rule; no line). A finding with a fix carries it as ``fixes`` (one replacement per
edit, columns 1-based). Files that could not be checked become ``toolExecutionNotifications`` of
the run's invocation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from . import findings, relative_uri
from ._jsondoc import HOLE, frame, items
from .json import columns

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..findings import FileResult, Finding
    from ..fix import Fix
    from ..rules import Rule
    from ..source import FileError, Source
    from ._jsondoc import Parts

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _artifact(path: str, root: str | None) -> dict[str, str]:
    p, relative = relative_uri(path, root)
    if relative:
        return {"uri": quote(p), "uriBaseId": SRCROOT}
    return {"uri": "file://" + quote(p if p.startswith("/") else "/" + p)}


MAX_DESCRIPTION = 1024  # GitHub code scanning's limit on fullDescription.text
FINGERPRINT_KEY = "perfbotFingerprint/v1"


def _rule_entry(r: Rule) -> dict[str, Any]:
    """A ``reportingDescriptor`` with everything GitHub code scanning asks of one."""
    from ..docs import render_rule, rule_url

    full = r.doc or r.summary
    if len(full) > MAX_DESCRIPTION:
        full = full[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return {
        "id": r.id,
        "name": r.slug,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": full},
        "help": {"text": r.doc or r.summary, "markdown": render_rule(r)},
        **_help_uri(rule_url(r.id, r.slug)),
        "defaultConfiguration": {"level": LEVELS[r.severity], "enabled": r.enabled},
        "properties": {
            "tags": [r.family],
            "fix": r.fix,
            "precision": "very-high",
            "problem.severity": {"error": "error", "warning": "warning"}.get(
                r.severity, "recommendation"
            ),
        },
    }


def _help_uri(url: str | None) -> dict[str, str]:
    """``{"helpUri": url}``, or nothing when there is no page to link to (docs.rules_url)."""
    return {"helpUri": url} if url else {}


def _unknown_rule_entry(rule: str, slug: str, severity: str) -> dict[str, Any]:
    """A rule not in the registry, described from its first finding."""
    from ..docs import rule_url

    text = slug or rule
    return {
        "id": rule,
        "name": text,
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
        "help": {"text": text, "markdown": text},
        **_help_uri(rule_url(rule, slug)),
        "defaultConfiguration": {"level": LEVELS[severity]},
    }


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
    index: dict[str, int] = {}
    seen: list[tuple[str, str, str]] = []
    out: list[dict[str, Any]] = []
    sources = {r.path: r.source for r in results}
    seen_fps: dict[str, int] = {}
    places = _Places(root)
    for f in findings(results):
        if f.rule not in index:
            index[f.rule] = len(seen)
            seen.append((f.rule, f.slug, f.severity))
        out.append(_result(f, index[f.rule], sources.get(f.path), places, seen_fps))
    return _log(seen, errors, root, version, out)


class _Places:
    """Each path's artifact location and relative path, worked out once (not per finding)."""

    def __init__(self, root: str | None) -> None:
        self.root = root
        self._seen: dict[str, tuple[dict[str, str], str]] = {}

    def __call__(self, path: str) -> tuple[dict[str, str], str]:
        got = self._seen.get(path)
        if got is None:
            got = self._seen[path] = (_artifact(path, self.root), relative_uri(path, self.root)[0])
        return got


def _result(
    f: Finding, rule_index: int, src: Source | None, places: _Places, seen_fps: dict[str, int]
) -> dict[str, Any]:
    from ..fingerprint import fingerprint

    artifact, rel = places(f.path)
    region: dict[str, Any] = {"startLine": f.line, "endLine": max(f.end_line, f.line)}
    col, end_col = columns(f)
    if col is not None:
        region["startColumn"], region["endColumn"] = col, end_col
    fp = fingerprint(rel, f.table_key, f.row_key, f.rule)
    res: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: _nth(seen_fps, fp)},
    }
    if f.fix is not None and f.fix.edits:
        res["fixes"] = [_fix(f.fix, artifact, src)]
    return res


def _log(
    rules_seen: Sequence[tuple[str, str, str]],
    errors: Sequence[FileError],
    root: str | None,
    version: str | None,
    results: list[Any],
) -> dict[str, Any]:
    """The SARIF log around ``results``, describing the rules ``(id, slug, severity)`` seen."""
    from .. import __version__
    from ..rules import all_rules

    # the rules with results, described from the registry: loaded here, since the parent
    # process of a parallel check never ran a rule (its descriptors used to lose their text)
    registered = {r.id: r for r in all_rules()}
    rules = [
        _rule_entry(registered[r]) if r in registered else _unknown_rule_entry(r, slug, severity)
        for r, slug, severity in rules_seen
    ]
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
    run_extra: dict[str, Any] = {}
    if root is not None:  # where %SRCROOT% is (the CLI always knows; a caller may not)
        run_extra["originalUriBaseIds"] = {SRCROOT: {"uri": _root_uri(root)}}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "perfbot",
                        "version": version or __version__,
                        **_information_uri(),
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                **run_extra,
                "results": results,
            }
        ],
    }


# --- written file by file (perfbot.report.stream) ------------------------------------------------

ITEM_INDENT = " " * 8  # a result's indent in runs[0].results
# a result's ruleIndex key line (a JSON string never starts a line: this is only ever the key)
_RULE_INDEX = re.compile(r'^( {10}"ruleIndex": )(\d+),$', re.MULTILINE)


def local_rules(found: Sequence[Finding]) -> list[tuple[str, str, str]]:
    """(id, slug, severity) of each rule of ``found``, in order of first appearance: a part's
    ``ruleIndex`` values index this list."""
    seen: dict[str, tuple[str, str, str]] = {}
    for f in found:
        if f.rule not in seen:
            seen[f.rule] = (f.rule, f.slug, f.severity)
    return list(seen.values())


def part(result: FileResult, root: str | None = None) -> str:
    """The file's results as they appear in ``runs[0].results``, with ``ruleIndex`` counted in
    this file (:func:`local_rules`; :func:`reindex` makes it the run's)."""
    index = {rule: i for i, (rule, _, _) in enumerate(local_rules(result.findings))}
    seen_fps: dict[str, int] = {}  # a fingerprint holds the file's path: per file is per run
    places = _Places(root)
    out = [
        _result(
            f, index[f.rule], result.source if f.path == result.path else None, places, seen_fps
        )
        for f in result.findings
    ]
    return items(out, ITEM_INDENT)


def reindex(text: str, mapping: Sequence[int]) -> str:
    """A part with its local rule index ``i`` replaced by ``mapping[i]``."""
    return _RULE_INDEX.sub(lambda m: f"{m.group(1)}{mapping[int(m.group(2))]},", text)


def write_document(write: Callable[[str], object], doc: Parts, errors: Sequence[FileError]) -> None:
    """What :func:`render` returns (with ``root`` the document's), written part by part."""
    skeleton = _log(doc.rules, errors, doc.root, None, [HOLE])
    frame(skeleton, ITEM_INDENT).write(write, doc.parts)
    write("\n")


def _nth(seen: dict[str, int], fp: str) -> str:
    """``fp``, then ``fp:1``, ``fp:2`` ... for findings sharing a structural position (two
    findings of one rule on one row), so code scanning keeps them apart."""
    n = seen.get(fp, 0)
    seen[fp] = n + 1
    return fp if n == 0 else f"{fp}:{n}"


def _root_uri(root: str | None) -> str:
    import os

    p = os.path.abspath(root or os.curdir).replace(os.sep, "/")
    if not p.startswith("/"):
        p = "/" + p  # C:/x -> /C:/x
    return "file://" + quote(p.rstrip("/") + "/")


def _information_uri() -> dict[str, str]:
    from ..docs import rules_url

    url = rules_url()
    return {"informationUri": url} if url else {}


def render(
    results: Sequence[FileResult],
    errors: Sequence[FileError] = (),
    *,
    root: str | None = None,
) -> str:
    """The SARIF log as JSON. ``root``: the repository root that paths are made relative to."""
    return json.dumps(as_data(results, errors, root=root), indent=2, ensure_ascii=False) + "\n"
