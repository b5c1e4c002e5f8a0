"""GitHub Actions workflow commands: one annotation per finding.

``::error file=a/README.md,line=12,endLine=12,title=PB401 img-s-mismatch::message``. Escaping
follows the runner's rules (actions/toolkit ``command.ts``): in the message ``%``, ``\\r`` and
``\\n``; in property values also ``:`` and ``,``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import findings, relative_uri

if TYPE_CHECKING:
    from ..engine import FileResult
    from ..source import FileError

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **props: str | int) -> str:
    inner = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return (
        f"::{name} {inner}::{escape_data(message)}"
        if inner
        else f"::{name}::{escape_data(message)}"
    )


def render(
    results: Sequence[FileResult], errors: Sequence[FileError] = (), *, root: str | None = None
) -> str:
    """Annotations for findings and for files that could not be checked. ``root`` is the
    repository root the ``file=`` paths are made relative to (default: paths as given)."""
    out = []
    for f in findings(results):
        out.append(
            command(
                LEVELS[f.severity],
                f.message,
                file=relative_uri(f.path, root)[0],
                line=f.line,
                endLine=f.end_line,
                title=f"{f.rule} {f.slug}",
            )
        )
    for e in errors:
        out.append(command("error", e.message, file=relative_uri(e.path, root)[0], title="perfbot"))
    return "".join(line + "\n" for line in out)
