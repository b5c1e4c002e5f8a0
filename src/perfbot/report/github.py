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
    from collections.abc import Callable

    from ..findings import FileResult, Finding
    from ..source import FileError
    from ._jsondoc import Parts

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
    return "".join(
        _annotation(f, relative_uri(f.path, root)[0]) + "\n" for f in findings(results)
    ) + errors_text(errors, root)


def _annotation(f: Finding, file: str) -> str:
    return command(
        LEVELS[f.severity],
        f.message,
        file=file,
        line=f.line,
        endLine=f.end_line,
        title=f"{f.rule} {f.slug}",
    )


def errors_text(errors: Sequence[FileError], root: str | None) -> str:
    """The annotations of files that could not be checked."""
    return "".join(
        command("error", e.message, file=relative_uri(e.path, root)[0], title="perfbot") + "\n"
        for e in errors
    )


def part(result: FileResult, root: str | None = None) -> str:
    """The file's annotations, as :func:`render` prints them."""
    here = relative_uri(result.path, root)[0]  # once a file, not once a finding
    return "".join(
        _annotation(f, here if f.path == result.path else relative_uri(f.path, root)[0]) + "\n"
        for f in result.findings
    )


def write_document(write: Callable[[str], object], doc: Parts, errors: Sequence[FileError]) -> None:
    """:func:`render`'s text from the parts (``--statistics``: not streamed)."""
    for p in doc.parts:
        write(p)
    write(errors_text(errors, doc.root))
