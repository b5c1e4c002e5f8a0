"""Reporters: findings -> text for a terminal, JSON, SARIF or GitHub workflow commands.

Each module has ``render(results, errors) -> str`` and does no I/O: the CLI decides where the text
goes. ``results`` are the files that were checked (:class:`~perfbot.engine.FileResult`), ``errors``
the files that could not be (:class:`~perfbot.source.FileError`: unreadable, binary, bad config).
Each also has ``part(result)``, one file's share of that text, which `check` makes as soon as the
file is checked so that it can drop the file's source (:mod:`perfbot.report.stream`).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..display import display_path, printable  # noqa: F401 - the CLI takes them from here
from .formats import FORMATS, Renderer, renderer  # noqa: F401 - the CLI takes them from here

if TYPE_CHECKING:
    from ..findings import FileResult, Finding
    from ..source import FileError


def findings(results: Iterable[FileResult]) -> Iterator[Finding]:
    """Every finding, file by file, in line order."""
    for r in results:
        yield from r.findings


class Counts(NamedTuple):
    """What the summary line counts. (A NamedTuple: a dataclass costs ~1 ms to create at import,
    a cold one-README check's budget; issue 11.)"""

    findings: int
    error: int
    warning: int
    info: int
    fixable: int  # with a safe fix (`perfbot fix` applies it)
    files: int
    unreadable: int
    unsafe: int = 0  # with an unsafe fix (`perfbot fix --unsafe-fixes`)


def counts(results: Sequence[FileResult], errors: Sequence[FileError] = ()) -> Counts:
    sev: Counter[str] = Counter()
    fixable = unsafe = 0
    for f in findings(results):
        sev[f.severity] += 1
        fixable += f.safe_fix
        unsafe += f.unsafe_fix
    return Counts(
        findings=sum(sev.values()),
        error=sev["error"],
        warning=sev["warning"],
        info=sev["info"],
        fixable=fixable,
        files=len(results),
        unreadable=len(errors),
        unsafe=unsafe,
    )


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def summary_line(results: Sequence[FileResult], errors: Sequence[FileError] = ()) -> str:
    """``3 findings (1 error, 2 warnings, 0 info) in 2 files; 1 fixable with `perfbot fix```."""
    c = counts(results, errors)
    if c.findings:
        text = (
            f"{plural(c.findings, 'finding')} ({plural(c.error, 'error')}, "
            f"{plural(c.warning, 'warning')}, {c.info} info) in {plural(c.files, 'file')}"
        )
        if c.fixable:
            text += f"; {c.fixable} fixable with `perfbot fix`"
        if c.unsafe:
            more = "more" if c.fixable else "fixable"
            they, them = ("it changes", "it") if c.unsafe == 1 else ("they change", "them")
            text += (
                f"; {c.unsafe} {more} with `perfbot fix --unsafe-fixes` "
                f"({they} a measured or declared value: review {them})"
            )
    else:
        text = f"No findings in {plural(c.files, 'file')}"
    if c.unreadable:
        text += f"; {plural(c.unreadable, 'file')} could not be checked"
    return text


def relative_uri(path: str, root: str | None = None) -> tuple[str, bool]:
    """``path`` as a forward-slash path relative to ``root`` (default: as given).

    Returns (path, relative). A path outside ``root`` (or absolute, without a root) comes back
    absolute with ``relative`` False.
    """
    if root is not None:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
        if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
            return os.path.abspath(path).replace(os.sep, "/"), False
        return rel.replace(os.sep, "/"), True
    p = os.path.normpath(path)
    if os.path.isabs(p):
        return p.replace(os.sep, "/"), False
    return p.replace(os.sep, "/"), True
