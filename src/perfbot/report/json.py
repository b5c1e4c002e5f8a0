"""Machine-readable findings, one document per run (other tools rely on this exact shape).

```json
{"version": 1, "files": 2,
 "findings": [{"path": "a/README.md", "line": 12, "end_line": 12, "rule": "PB401",
               "slug": "img-s-mismatch", "severity": "error", "message": "...",
               "fixable": true,
               "fix": {"start_line": 12, "end_line": 12, "replacement": "...\\n",
                       "applicability": "unsafe"}}],
 "errors": [{"path": "b/README.md", "message": "looks like a binary file (NUL bytes), ..."}]}
```

Lines are 1-based. ``fix.replacement`` is the text replacing lines ``start_line..end_line`` whole,
line endings included (so a fix that adds a row has more lines than it replaces).
``fix.applicability`` is ``"safe"`` (presentation only: `perfbot fix` applies it) or ``"unsafe"``
(it changes a measured or declared value: applied only with `perfbot fix --unsafe-fixes`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import FileResult
    from ..registry import Finding
    from ..source import FileError, Source

VERSION = 1


def _fix(f: Finding, src: Source | None) -> dict[str, Any] | None:
    if f.fix is None or src is None or not f.fix.edits:
        return None
    from ..fix import replacement

    start, end, text = replacement(src, f.fix)
    return {
        "start_line": start,
        "end_line": end,
        "replacement": text,
        "applicability": f.fix.applicability,
    }


def finding_dict(f: Finding, src: Source | None) -> dict[str, Any]:
    return {
        "path": f.path,
        "line": f.line,
        "end_line": f.end_line,
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
        "errors": [{"path": e.path, "message": e.message} for e in errors],
    }


def dumps(data: Any) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False)``: with orjson when it is installed (the
    same text, several times faster: ``pip install 'perfbot[fast]'``), else, and for what orjson
    refuses (a lone surrogate from an undecodable byte, an integer beyond 64 bits), the standard
    library's encoder. ``tests/test_speed.py`` holds the two to the same text."""
    try:
        import orjson
    except ImportError:
        pass
    else:
        try:
            return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError is one
            pass
    return json.dumps(data, indent=2, ensure_ascii=False)


def render(results: Sequence[FileResult], errors: Sequence[FileError] = ()) -> str:
    return dumps(as_data(results, errors)) + "\n"
