"""Machine-readable findings, one document per run (other tools rely on this exact shape).

```json
{"version": 1, "files": 2,
 "findings": [{"path": "a/README.md", "line": 12, "column": 40, "end_line": 12,
               "end_column": 46, "rule": "PB401",
               "slug": "img-s-mismatch", "severity": "error", "message": "...",
               "fixable": true,
               "fix": {"start_line": 12, "end_line": 12, "replacement": "...\\n",
                       "applicability": "unsafe",
                       "edits": [{"line": 12, "column": 40, "end_column": 46,
                                  "text": "550.54"}]}}],
 "errors": [{"path": "b/README.md", "message": "looks like a binary file (NUL bytes), ..."}]}
```

Lines and columns are 1-based (columns count code points; ``column``/``end_column`` are the span
the fix edits on the finding's line, else null). ``fix.replacement`` is the text replacing lines
``start_line..end_line`` whole, line endings included (so a fix that adds a row has more lines than
it replaces): apply one per line. ``fix.edits`` are the same fix as column edits
(``{"line", "column", "end_column", "text"}``, end exclusive), which compose with the edits of the
other findings on the same line (apply them right to left; skip one that overlaps an edit already
applied). ``fix.applicability`` is ``"safe"`` (presentation only: `perfbot fix` applies it) or
``"unsafe"`` (it changes a measured or declared value: applied only with
`perfbot fix --unsafe-fixes`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._jsondoc import HOLE, dumps, frame, items

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..findings import FileResult, Finding
    from ..source import FileError, Source
    from ._jsondoc import Parts

VERSION = 1
ITEM_INDENT = " " * 4  # a finding's indent in the document's "findings" list


def _fix(f: Finding, src: Source | None) -> dict[str, Any] | None:
    if f.fix is None or src is None or not f.fix.edits:
        return None
    from ..fix import replacement, select_edits

    start, end, text = replacement(src, f.fix)
    edits = [
        {"line": e.line, "column": e.start + 1, "end_column": e.end + 1,
         "text": e.text.replace("\n", src.newline)}
        for e in sorted(select_edits(list(f.fix.edits)), key=lambda e: (e.line, e.start))
    ]  # fmt: skip
    return {
        "start_line": start,
        "end_line": end,
        "replacement": text,
        "applicability": f.fix.applicability,
        "edits": edits,
    }


def columns(f: Finding) -> tuple[int | None, int | None]:
    """1-based (column, end_column) of what the finding's fix edits on its line, else Nones."""
    if f.fix is None:
        return None, None
    spans = [(e.start, e.end) for e in f.fix.edits if e.line == f.line and e.end > e.start]
    if not spans:
        return None, None
    return min(a for a, _ in spans) + 1, max(b for _, b in spans) + 1


def finding_dict(f: Finding, src: Source | None) -> dict[str, Any]:
    col, end_col = columns(f)
    return {
        "path": f.path,
        "line": f.line,
        "column": col,
        "end_line": f.end_line,
        "end_column": end_col,
        "rule": f.rule,
        "slug": f.slug,
        "severity": f.severity,
        "message": f.message,
        "fixable": f.fixable,
        "fix": _fix(f, src),
    }


def as_data(results: Sequence[FileResult], errors: Sequence[FileError] = ()) -> dict[str, Any]:
    return {
        "version": VERSION,
        "files": len(results),
        "findings": [finding_dict(f, r.source) for r in results for f in r.findings],
        "errors": _errors(errors),
    }


def _errors(errors: Sequence[FileError]) -> list[dict[str, str]]:
    return [{"path": e.path, "message": e.message} for e in errors]


def part(result: FileResult, root: str | None = None) -> str:
    """The file's findings as they appear in the document's "findings" list (see
    :mod:`perfbot.report.stream`); the file's source is not needed after this."""
    return items([finding_dict(f, result.source) for f in result.findings], ITEM_INDENT)


def write_document(write: Callable[[str], object], doc: Parts, errors: Sequence[FileError]) -> None:
    """What :func:`render` returns, written part by part."""
    skeleton = {"version": VERSION, "files": doc.files, "findings": [HOLE],
                "errors": _errors(errors)}  # fmt: skip
    frame(skeleton, ITEM_INDENT).write(write, doc.parts)
    write("\n")


# Importing orjson costs ~8 ms (it imports datetime, zoneinfo, uuid, ...); the standard library's
# encoder ~18 us a finding more than orjson's: below this many findings (one README checked in a
# pre-commit hook or an editor) the standard library is the cheaper one.
ORJSON_FROM = 500


def render(results: Sequence[FileResult], errors: Sequence[FileError] = ()) -> str:
    data = as_data(results, errors)
    if len(data["findings"]) < ORJSON_FROM and "orjson" not in sys.modules:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return dumps(data) + "\n"
