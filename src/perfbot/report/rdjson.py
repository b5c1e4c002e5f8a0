"""reviewdog's Diagnostic Format (``rdjson``), for ``reviewdog -f=rdjson``.

One ``DiagnosticResult``: each finding is a diagnostic with its message, severity (``ERROR`` /
``WARNING`` / ``INFO``), ``code`` (the rule id and its documentation URL), a location (path and a
range: 1-based lines, and 1-based columns counted in UTF-8 bytes as reviewdog wants, where the fix
tells them) and, when it has a fix, one suggestion per edit. reviewdog's own filter modes
(``-filter-mode=added`` ...) then work on perfbot's findings on any host reviewdog supports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import relative_uri
from ._jsondoc import HOLE, frame, items

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..findings import FileResult, Finding
    from ..source import FileError, Source
    from ._jsondoc import Parts

SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def _byte_col(src: Source | None, line: int, col: int) -> int:
    """1-based UTF-8 byte column of code-point column ``col`` (0-based) of ``line``."""
    if src is None or not 1 <= line <= len(src.lines):
        return col + 1
    return len(src.lines[line - 1][:col].encode("utf-8")) + 1


def _diagnostic(
    f: Finding, src: Source | None, root: str | None, path: str | None = None
) -> dict[str, Any]:
    """``path``: ``f.path`` relative to ``root``, when the caller knows it."""
    from ..docs import rule_url
    from ..fix import select_edits

    if path is None:
        path = relative_uri(f.path, root)[0]
    rng: dict[str, Any] = {"start": {"line": f.line}, "end": {"line": max(f.end_line, f.line)}}
    d: dict[str, Any] = {
        "message": f.message,
        "location": {"path": path, "range": rng},
        "severity": SEVERITY[f.severity],
        "code": {"value": f.rule},
    }
    url = rule_url(f.rule, f.slug)
    if url:  # no link rather than a placeholder (perfbot.docs.rules_url)
        d["code"]["url"] = url
    if f.fix is not None and f.fix.edits:
        newline = src.newline if src is not None else "\n"
        d["suggestions"] = [
            {
                "range": {
                    "start": {"line": e.line, "column": _byte_col(src, e.line, e.start)},
                    "end": {"line": e.line, "column": _byte_col(src, e.line, e.end)},
                },
                "text": e.text.replace("\n", newline),
            }
            for e in sorted(select_edits(list(f.fix.edits)), key=lambda e: (e.line, e.start))
        ]
        same_line = [e for e in f.fix.edits if e.line == f.line and e.end > e.start]
        if same_line:
            first = min(e.start for e in same_line)
            last = max(e.end for e in same_line)
            rng["start"]["column"] = _byte_col(src, f.line, first)
            rng["end"] = {"line": f.line, "column": _byte_col(src, f.line, last)}
    return d


def as_data(
    results: Sequence[FileResult], errors: Sequence[FileError] = (), *, root: str | None = None
) -> dict[str, Any]:
    diagnostics = [_diagnostic(f, r.source, root) for r in results for f in r.findings]
    diagnostics += _error_diagnostics(errors, root)
    return _result(diagnostics)


def _error_diagnostics(errors: Sequence[FileError], root: str | None) -> list[dict[str, Any]]:
    return [
        {
            "message": e.message,
            "location": {"path": relative_uri(e.path, root)[0]},
            "severity": "ERROR",
            "code": {"value": "file-error"},
        }
        for e in errors
    ]


def _result(diagnostics: list[Any]) -> dict[str, Any]:
    from ..docs import rules_url

    source = {"name": "perfbot"}
    url = rules_url()
    if url:
        source["url"] = url
    return {"source": source, "diagnostics": diagnostics}


def render(
    results: Sequence[FileResult], errors: Sequence[FileError] = (), *, root: str | None = None
) -> str:
    return json.dumps(as_data(results, errors, root=root), indent=2, ensure_ascii=False) + "\n"


# --- written file by file (perfbot.report.stream) ------------------------------------------------

ITEM_INDENT = " " * 4  # a diagnostic's indent in "diagnostics"


def part(result: FileResult, root: str | None = None) -> str:
    """The file's diagnostics as they appear in the document's "diagnostics" list."""
    here = relative_uri(result.path, root)[0]  # once a file, not once a finding
    found = [
        _diagnostic(f, result.source, root, here if f.path == result.path else None)
        for f in result.findings
    ]
    return items(found, ITEM_INDENT)


def write_document(write: Callable[[str], object], doc: Parts, errors: Sequence[FileError]) -> None:
    """What :func:`render` returns (with ``root`` the document's), written part by part."""
    from itertools import chain

    tail = items(_error_diagnostics(errors, doc.root), ITEM_INDENT)
    frame(_result([HOLE]), ITEM_INDENT).write(write, chain(doc.parts, [tail]))
    write("\n")
