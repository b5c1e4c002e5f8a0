"""Terminal output: ``path:line: severity RULE message`` per finding and one summary line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..display import display_path, printable
from . import findings, summary_line

if TYPE_CHECKING:
    from ..findings import FileResult, Finding
    from ..source import FileError


def render(
    results: Sequence[FileResult],
    errors: Sequence[FileError] = (),
    *,
    summary: bool = True,
    statistics: bool = False,
) -> str:
    """Findings (or, with ``statistics``, a count per rule), unreadable files, a summary line."""
    out = render_statistics(results) if statistics else [line(f) for f in findings(results)]
    out += [str(e) for e in errors]
    if summary:
        out.append(summary_line(results, errors))
    return "".join(line + "\n" for line in out)


def part(result: FileResult, root: str | None = None) -> str:
    """The file's finding lines, as :func:`render` prints them (without the summary)."""
    return "".join(line(f) + "\n" for f in result.findings)


def line(f: Finding) -> str:
    """``path:line: severity RULE message``, on one line whatever the message holds."""
    message = printable(" ".join(f.message.splitlines()))
    return f"{display_path(f.path)}:{f.line}: {f.severity} {f.rule} {message}"


def render_statistics(results: Sequence[FileResult]) -> list[str]:
    """One line per rule, most frequent first: count, id, slug, severity, how many are fixable."""
    total: Counter[tuple[str, str, str]] = Counter()
    fixable: Counter[str] = Counter()
    unsafe: Counter[str] = Counter()
    for f in findings(results):
        total[(f.rule, f.slug, f.severity)] += 1
        fixable[f.rule] += f.fixable
        unsafe[f.rule] += f.unsafe_fix
    if not total:
        return []
    width = len(str(max(total.values())))
    slug_w = max(len(slug) for _, slug, _ in total)
    sev_w = max(len(sev) for _, _, sev in total)
    lines = []
    for (rule, slug, sev), n in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
        fx = f"  ({fixable[rule]} fixable" if fixable[rule] else ""
        if fx:
            fx += f", {unsafe[rule]} unsafe)" if unsafe[rule] else ")"
        lines.append(f"{n:>{width}}  {rule}  {slug:<{slug_w}}  {sev:<{sev_w}}{fx}".rstrip())
    return lines
