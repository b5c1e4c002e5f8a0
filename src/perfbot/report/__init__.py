"""Reporters: findings -> text for a terminal, JSON, SARIF or GitHub workflow commands.

Each module has ``render(results, errors) -> str`` and does no I/O: the CLI decides where the text
goes. ``results`` are the files that were checked (:class:`~perfbot.engine.FileResult`), ``errors``
the files that could not be (:class:`~perfbot.source.FileError`: unreadable, binary, bad config).
Each also has ``part(result)``, one file's share of that text, which `check` makes as soon as the
file is checked so that it can drop the file's source (:mod:`perfbot.report.stream`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from ..engine import FileResult
    from ..registry import Finding
    from ..source import FileError

FORMATS = ("text", "json", "sarif", "github", "rdjson")


class Renderer(Protocol):
    def __call__(
        self, results: Sequence[FileResult], errors: Sequence[FileError] = (), **kw: object
    ) -> str: ...


def renderer(name: str) -> Renderer:
    """The ``render`` function of format ``name`` (one of :data:`FORMATS`)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    return import_module(f"{__name__}.{name}").render


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


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(s: str) -> str:
    """``s`` on one line for a terminal or a CI log: control characters (newlines included)
    shown as escapes (``\\n``, ``\\x1b``), so a file name or message cannot start a line of
    its own, such as a forged ``::error`` workflow command, or move the cursor."""

    def esc(m: re.Match[str]) -> str:
        c = m.group()
        return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")

    return _CONTROL.sub(esc, s)


def display_path(path: str) -> str:
    """A path at the start of an output line: :func:`printable`, and ``./`` in front of one that
    would read as a workflow command (``::error ...``, ``##[error]``; the runner ignores leading
    blanks)."""
    p = printable(path)
    if p.lstrip().startswith(("::", "##[")):
        p = "./" + p
    return p


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


def rule_meta(rule_id: str) -> tuple[str, str, str, str]:
    """(slug, severity, summary, fix availability) of a registered rule; blanks when unknown."""
    from ..registry import get_rule

    r = get_rule(rule_id)
    if r is None:
        return "", "", "", "never"
    return r.slug, r.severity, r.summary, r.fix
