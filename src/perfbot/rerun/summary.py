"""The rerun review's text (pure: no network): :func:`plan_review` turns the refreshed rows of
each README into one review: a ```suggestion comment per changed row that sits in the pull
request's diff, and a summary body with a table of old -> new numbers (relative change of s/step,
flagged when slower than ``rerun.slower_threshold`` or noisier than ``rerun.noisy_cv``), the rows
that could not be updated and why, and the failed or timed-out benchmarks with the tail of their
log. Rows outside the diff (a suggestion can only sit on a line of the diff) are shown in the body
as a diff. :func:`results_digest` and :func:`posted_marker` name what a review reports.

Everything read from the results and the README is untrusted text: it is shown as code (so it is
never a mention, a link or HTML) and log tails are fenced with a fence nothing inside can close.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from perfbot.config import Config, RerunConfig
from perfbot.fix import Fix, replacement
from perfbot.github import markers
from perfbot.github.markdown import block, code, message
from perfbot.github.suggest import MAX_BODY, clamp_body, line_comment, suggestion_block
from perfbot.hunks import Hunk, can_suggest
from perfbot.rerun.refresh import RowRefresh, apply_refreshes, proposals, refresh
from perfbot.rerun.rows import TableProposal
from perfbot.runner.bench import BenchResult
from perfbot.source import Source, decode

__all__ = [
    "HEADING",
    "MARKER",
    "ReviewPlan",
    "dedupe",
    "plan_review",
    "posted_marker",
    "refresh_all",
    "render_summary",
    "results_digest",
    "short_sha",
    "with_marker",
]

MARKER = markers.RERUN
# The last line of a posted review (markers.rerun): which commit and which results it reports.
# Display and dedupe only: nothing reads it to allow anything, it counts only in a review written
# by perfbot's own account that starts with perfbot's own heading, and only as the body's very
# last line (after every untrusted text the body quotes).
HEADING = "### perfbot rerun"
TAIL_SHOWN = 30  # log lines shown per failed benchmark
TAIL_WIDTH = 300  # characters per log line

LinkFn = Callable[[str, int | None], str]  # (path, line or None) -> URL


@dataclass
class ReviewPlan:
    """One review: its body, its inline suggestion comments, and the refreshed README texts."""

    body: str
    comments: list[dict] = field(default_factory=list)  # {"path", "line", "body"}
    texts: dict[str, str] = field(default_factory=dict)  # README path -> new text (if changed)
    measured: int = 0
    failed: int = 0
    changed_rows: int = 0


# --- small renderers ------------------------------------------------------------------------------


def _cell(text: str | None) -> str:
    """Untrusted text for a table cell: code, with pipes escaped (once: a README cell's own
    ``\\|`` is shown as ``|``)."""
    if text is None or text == "":
        return "–"
    return code(text.replace("\\|", "|")).replace("|", "\\|")


def _pct(x: float) -> str:
    return f"{x * 100:+.1f} %".replace("-", "−")


def _old_new(old: str | None, new: str | None) -> str:
    if new is None:
        return _cell(old)
    if old is None or old == new:
        return _cell(new)
    return f"{_cell(old)} → {_cell(new)}"


def _printable(line: str) -> str:
    line = "".join(c if c.isprintable() or c == "\t" else "�" for c in line)
    return line if len(line) <= TAIL_WIDTH else line[: TAIL_WIDTH - 1] + "…"


def _fenced(lines: Sequence[str], info: str = "") -> str:
    return block("\n".join(lines), info)


def _flags(rr: RowRefresh, rerun: RerunConfig) -> list[str]:
    out = []
    if rr.change is not None and rr.change > rerun.slower_threshold:
        out.append("⚠️ slower")
    cv = rr.result.cv
    if cv is not None and cv > rerun.noisy_cv:
        out.append("⚠️ noisy")
    for flag in getattr(rr.result, "flags", None) or ():
        if flag in LOG_FLAGS:
            out.append(LOG_FLAGS[flag][0])
    return out


# what perfbot bench's checks of a log flag (perfbot.runner.integrity): the flag and its legend
LOG_FLAGS = {
    "log_vs_wall": (
        "⚠️ log vs wall",
        "*log vs wall*: the log's step times add up to far less than the benchmark ran "
        "(see the notes)",
    ),
    "cv_zero": (
        "⚠️ CV 0",
        "*CV 0*: every step time in the log is the same; a real trainer's steps vary",
    ),
}


def _where(rr: RowRefresh, link: LinkFn | None) -> str:
    label = rr.readme + (f":{rr.line}" if rr.line else "")
    if link is None:
        return _cell(label)
    return f"[{_cell(label)}]({link(rr.readme, rr.line)})"


def _per_rank(r: BenchResult) -> str | None:
    """Each rank's s/step, when bench read one log per rank (its ``ranks``); None otherwise."""
    parts = []
    for x in getattr(r, "ranks", None) or []:
        get = x.get if isinstance(x, Mapping) else lambda k, x=x: getattr(x, k, None)
        rank, s = get("rank"), get("s_per_step")
        who = f"rank {rank}" if isinstance(rank, int) else "a rank"
        if isinstance(s, int | float) and not isinstance(s, bool):
            parts.append(f"{who} {s:.4f}")
        else:
            parts.append(f"{who} –")
    if len(parts) < 2:
        return None
    return "s/step per rank: " + ", ".join(parts) + " (the row has the slowest rank's)"


def short_sha(sha: str | None) -> str:
    return (sha or "")[:7] or "?"


def _measured_line(r: BenchResult) -> str:
    parts = [f"{r.steps_measured} steps"]
    if r.cv is not None:
        parts.append(f"CV {r.cv * 100:.1f} %")
    env = r.environment
    where = ", ".join(
        f"{k} {code(v, 40)}" for k, v in (("MindSpore", env.mindspore), ("CANN", env.cann)) if v
    )
    runner = f" on {code(r.runner)}" if r.runner else ""
    return f"read from the benchmark's own log over {', '.join(parts)}{runner}" + (
        f" ({where})" if where else ""
    )


def suggestion_comment(rr: RowRefresh, source: Source, rerun: RerunConfig) -> dict:
    """The inline comment for one changed row: what changed, and a ```suggestion of the line."""
    assert rr.fix is not None and rr.line is not None
    start, end, text = replacement(source, rr.fix)
    changes = [f"{c.column} {_old_new(c.old, c.new)}" for c in rr.cells if c.changed]
    head = f"**perfbot rerun** {code(rr.name)}: " + ", ".join(changes)
    if rr.change is not None:
        head += f" (s/step {_pct(rr.change)})"
    flags = _flags(rr, rerun)
    body = (
        f"{head}{' ' + ' '.join(flags) if flags else ''}\n\n"
        f"{_measured_line(rr.result)}.\n\n{suggestion_block(text)}\n{MARKER}"
    )
    return line_comment(rr.readme, start, end, body)


def proposal_comment(source: Source, fix: Fix, proposal: TableProposal) -> dict:
    """The inline comment for one insertion of a new-version proposal (a new table, or a
    Requirements row): a ```suggestion of the line it follows plus the inserted lines."""
    start, end, text = replacement(source, fix)
    versions = ", ".join(proposal.versions)
    body = (
        f"**perfbot rerun**: {fix.title}. The runner ran MindSpore {versions}, which is not the "
        "version of the measured rows' table: the new numbers go into a table of their own "
        "instead of over the old version's.\n\n"
        f"{suggestion_block(text)}\n{MARKER}"
    )
    return line_comment(source.path, start, end, body)


def _diff(source: Source, fix: Fix) -> list[str]:
    start, end, text = replacement(source, fix)
    lines = ["- " + x for x in source.lines[start - 1 : end]]
    lines += ["+ " + x for x in text.splitlines()]
    return [f"{_cell(source.path)} line {start}:", "", _fenced(lines, "diff"), ""]


def _proposals_section(
    groups: Sequence[tuple[Source | None, Sequence[RowRefresh]]],
    inline: set[int],
    pushed: str | None,
) -> list[str]:
    out: list[str] = []
    for source, rrs in groups:
        if source is None:
            continue
        for p in proposals(rrs):
            if not out:
                out += ["#### New MindSpore version", ""]
            versions = ", ".join(p.versions)
            moved = [rr for rr in rrs if rr.proposal is p]
            olds = sorted(
                {
                    v
                    for rr in moved
                    if rr.table is not None and rr.table.sentence is not None
                    for v in rr.table.sentence.versions
                }
            )
            out.append(
                f"The runner ran MindSpore {versions}; the rows of "
                + ", ".join(_cell(rr.name) for rr in moved)
                + f" are in the table for {', '.join(map(_cell, olds)) or 'another version'} of "
                f"{_cell(source.path)}. Their new numbers go into a table for {versions}, with "
                "its own sentence, under the existing ones; the old version's rows stay as they are"
                + (". The Requirements table gets a row for it." if p.requirements else ".")
            )
            out.append("")
            out += [f"- {message(n)}" for n in p.notes]
            if p.notes:
                out.append("")
            if pushed:
                continue
            for fx in p.fixes:
                if id(fx) in inline:
                    continue
                out += [f"To {fx.title}:", "", *_diff(source, fx)]
            if any(id(fx) in inline for fx in p.fixes):
                out += ["The suggestions below add them.", ""]
    return out


def render_summary(
    groups: Sequence[tuple[Source | None, Sequence[RowRefresh]]],
    *,
    rerun: RerunConfig,
    sha: str | None = None,
    link: LinkFn | None = None,
    inline: set[int] | None = None,
    pushed: str | None = None,
    notes: Iterable[str] = (),
    missing: Sequence[tuple[str, str]] = (),
    run_url: str | None = None,
) -> str:
    """The review body (Markdown). ``inline`` holds ``id()`` of rows suggested inline; the other
    changed rows are shown here as a diff. ``pushed`` names a commit that already applied them.
    ``missing`` lists (name, README) of planned benchmarks that left no result."""
    inline = inline or set()
    notes = list(notes)
    rows = [rr for _, rrs in groups for rr in rrs]
    ok = [rr for rr in rows if rr.result.ok]
    failed = [rr for rr in rows if not rr.result.ok]
    blocked = [rr for rr in ok if rr.problem]
    at = f" at `{short_sha(sha)}`" if sha else ""
    total = len(rows) + len(missing)
    out = [f"### perfbot rerun{at}: {len(ok)} of {total} benchmarks measured", ""]
    out.extend(f"> {message(n)}" for n in notes)
    if notes:
        out.append("")

    if ok:
        out += [
            "| benchmark | row | s/step | change | img/s | graph compile | CV | |",
            "|---|---|---|--:|---|---|--:|---|",
        ]
        for rr in ok:
            step, img, comp = rr.cell("s/step"), rr.cell("img/s"), rr.cell("graph compile")
            new_step = step.new if step else None
            if step is None and rr.result.s_per_step is not None:
                new_step = f"{rr.result.s_per_step:.4f}"
            change = _pct(rr.change) if rr.change is not None else "–"
            cv = f"{rr.result.cv * 100:.1f} %" if rr.result.cv is not None else "–"
            flags = _flags(rr, rerun)
            if rr.problem:
                flags.append("not updated")
            if rr.new_version:
                flags.append(f"new MindSpore {rr.new_version} table")
            out.append(
                f"| {_cell(rr.name)} | {_where(rr, link)} | "
                f"{_old_new(step.old if step else None, new_step)} | {change} | "
                f"{_old_new(img.old if img else None, img.new if img else None)} | "
                f"{_old_new(comp.old if comp else None, comp.new if comp else None)} | {cv} | "
                f"{' '.join(flags)} |"
            )
        out.append("")
        legend = []
        if any("⚠️ slower" in _flags(rr, rerun) for rr in ok):
            legend.append(f"*slower*: s/step grew by more than {rerun.slower_threshold:.0%}")
        if any("⚠️ noisy" in _flags(rr, rerun) for rr in ok):
            legend.append(
                f"*noisy*: the step times vary by more than {rerun.noisy_cv:.0%} (coefficient "
                "of variation): run more steps, or check the runner's load"
            )
        for flag, (_, text) in LOG_FLAGS.items():
            if any(flag in (rr.result.flags or ()) for rr in ok):
                legend.append(text)
        if legend:
            out += ["; ".join(legend) + ".", ""]
        out += [
            "The numbers are read from each benchmark's own log (the lines its trainer "
            "printed), checked against how long the command ran.",
            "",
        ]
        unit_note = [rr for rr in ok if rr.unit == "ms/step"]
        if unit_note:
            out += [
                "s/step is shown in the table's own unit (ms/step where the table uses it).",
                "",
            ]

    changed = [rr for rr in ok if rr.fix is not None]
    if pushed:
        out += [f"Commit `{short_sha(pushed)}` writes the new numbers of {len(changed)} rows.", ""]
    elif changed:
        here = [rr for rr in changed if id(rr) not in inline]
        if len(here) < len(changed):
            out += ["Each changed row has a suggestion below; apply them to take the numbers.", ""]
        if here:
            src_of = {id(rr): s for s, rrs in groups for rr in rrs}
            out += [
                "These rows get no suggestion (one can only sit on a line of the pull "
                "request's diff, at the measured commit); the change to make:"
                if sha
                else "The change to make (`--write` makes it):",
                "",
            ]
            for rr in here:
                source = src_of.get(id(rr))
                assert source is not None and rr.fix is not None
                start, end, text = replacement(source, rr.fix)
                lines = ["- " + x for x in source.lines[start - 1 : end]]
                lines += ["+ " + x for x in text.splitlines()]
                out += [f"{_cell(rr.readme)} line {start}:", "", _fenced(lines, "diff"), ""]
    out += _proposals_section(groups, inline, pushed)
    unchanged = [rr for rr in ok if rr.fix is None and not rr.problem and not rr.new_version]
    if unchanged:
        names = ", ".join(_cell(rr.name) for rr in unchanged)
        out += [f"Unchanged at two decimals: {names}.", ""]
    noted = [f"- {_cell(rr.name)}: {message(n)}" for rr in ok for n in rr.notes]
    # what perfbot bench said about the measurement (results are untrusted text: shown as code)
    noted += [f"- {_cell(rr.name)} (bench): {code(n, 300)}" for rr in ok for n in rr.result.notes]
    noted += [f"- {_cell(rr.name)}: {x}" for rr in ok if (x := _per_rank(rr.result))]
    if noted:
        out += ["#### Notes", "", *noted, ""]

    if blocked:
        out += ["#### Not updated", ""]
        for rr in blocked:
            out.append(f"- {_cell(rr.name)} ({_where(rr, link)}): {message(rr.problem, limit=300)}")
        out.append("")

    if failed or missing:
        out += ["#### Did not finish", ""]
        for name, readme in missing:
            run = f" ([the workflow run]({run_url}) has its log)" if run_url else ""
            out.append(
                f"- {_cell(name)} ({_cell(readme)}): **no result**: its job uploaded none "
                f"(cancelled, the runner was lost, or it failed before `perfbot bench` ran){run}"
            )
        for rr in failed:
            r = rr.result
            msg = r.message or "no message"
            out.append(f"- {_cell(rr.name)}: **{r.status}**: {code(msg, 300)}")
            tail = [_printable(x) for x in r.log_tail[-TAIL_SHOWN:]]
            if tail:
                out += [
                    "",
                    f"  <details><summary>last {len(tail)} lines of the log</summary>",
                    "",
                    "  " + _fenced(tail, "text").replace("\n", "\n  "),
                    "",
                    "  </details>",
                    "",
                ]
        out.append("")

    envs = [rr.result for rr in rows if rr.result.ok]
    if envs:
        out += [
            "<details><summary>Where it ran</summary>",
            "",
            "| benchmark | runner | commit | MindSpore | CANN | driver | firmware | duration |",
            "|---|---|---|---|---|---|---|--:|",
        ]
        for r in envs:
            e = r.environment
            out.append(
                f"| {_cell(r.name)} | {_cell(r.runner)} | {_cell(short_sha(r.commit))} | "
                f"{_cell(e.mindspore)} | {_cell(e.cann)} | {_cell(e.driver)} | "
                f"{_cell(e.firmware)} | {r.duration:.0f} s |"
            )
        out += ["", "</details>", ""]
    if run_url:
        out += [f"[The workflow run]({run_url}).", ""]
    out.append(MARKER)
    return clamp_body("\n".join(out))


# --- the review -----------------------------------------------------------------------------------


def check_commits(results: Iterable[BenchResult], sha: str) -> dict[int, str]:
    """Problems of results measured at another commit than ``sha`` (keyed by ``id()``)."""
    out: dict[int, str] = {}
    for r in results:
        c = (r.commit or "").lower()
        if c and not (c.startswith(sha.lower()) or sha.lower().startswith(c)):
            out[id(r)] = f"measured at commit `{short_sha(c)}`, not at `{short_sha(sha)}`"
    return out


def plan_review(
    groups: Sequence[tuple[Source | None, Sequence[RowRefresh]]],
    *,
    rerun: RerunConfig,
    sha: str | None = None,
    hunks: Mapping[str, list[Hunk]] | None = None,
    link: LinkFn | None = None,
    max_comments: int = 50,
    notes: Iterable[str] = (),
    missing: Sequence[tuple[str, str]] = (),
    run_url: str | None = None,
    pushed: str | None = None,
) -> ReviewPlan:
    """One review for the refreshed rows. ``hunks`` (path -> hunks of the PR's diff) decide which
    rows get an inline suggestion; None means none do (local run, or the PR moved on)."""
    comments: list[dict] = []
    inline: set[int] = set()
    texts: dict[str, str] = {}
    for source, rrs in groups:
        if source is None:
            continue
        fixed = [rr for rr in rrs if rr.fix is not None]
        props = proposals(rrs)
        if fixed or props:
            texts[source.path] = apply_refreshes(source, rrs)
        for rr in fixed:
            if hunks is None or pushed or len(comments) >= max_comments:
                continue
            assert rr.fix is not None
            if can_suggest(hunks.get(rr.readme, []), rr.fix.start_line, rr.fix.end_line):
                comments.append(suggestion_comment(rr, source, rerun))
                inline.add(id(rr))
        for p in props:
            for fx in p.fixes:
                if hunks is None or pushed or len(comments) >= max_comments:
                    continue
                if can_suggest(hunks.get(source.path, []), fx.start_line, fx.end_line):
                    comments.append(proposal_comment(source, fx, p))
                    inline.add(id(fx))
    rows = [rr for _, rrs in groups for rr in rrs]
    body = render_summary(
        groups,
        rerun=rerun,
        sha=sha,
        link=link,
        inline=inline,
        pushed=pushed,
        notes=notes,
        missing=missing,
        run_url=run_url,
    )
    return ReviewPlan(
        body=body,
        comments=comments,
        texts=texts,
        measured=sum(1 for rr in rows if rr.result.ok),
        failed=sum(1 for rr in rows if not rr.result.ok) + len(missing),
        changed_rows=sum(1 for rr in rows if rr.fix is not None or rr.new_version),
    )


def readme_path(config_path: str, readme: str) -> str:
    """A benchmark's README (relative to the config's folder) as a repository path."""
    base = posixpath.dirname(config_path.replace("\\", "/"))
    return posixpath.normpath(posixpath.join(base, readme.replace("\\", "/"))).lstrip("/")


_SAFE_PATH = re.compile(r"[A-Za-z0-9._/ +@-]+")


def safe_repo_path(path: str) -> bool:
    """A repository-relative path that stays inside the repository."""
    return (
        bool(_SAFE_PATH.fullmatch(path))
        and ".." not in path.split("/")
        and not path.startswith("/")
        and path not in ("", ".")
    )


Reader = Callable[[str], bytes | None]  # repository path -> bytes, None when it does not exist


def refresh_all(
    results: Sequence[BenchResult],
    *,
    read: Reader,
    config: Config,
    config_path: str = ".perfbot.yml",
    sha: str | None = None,
) -> list[tuple[Source | None, list[RowRefresh]]]:
    """Refresh the rows of every result, grouped by README (in the results' order). A result
    measured at another commit than ``sha`` keeps its numbers out of the README."""
    by_path: dict[str, list[BenchResult]] = {}
    for r in results:
        by_path.setdefault(readme_path(config_path, r.readme), []).append(r)
    wrong_commit = check_commits(results, sha) if sha else {}
    groups: list[tuple[Source | None, list[RowRefresh]]] = []
    for path, rs in by_path.items():
        data = read(path) if safe_repo_path(path) else None
        if data is None:
            where = f" at `{short_sha(sha)}`" if sha else ""
            problem = (
                f"{path} does not exist{where}"
                if safe_repo_path(path)
                else (f"{path!r} is not a path inside the repository")
            )
            groups.append((None, [RowRefresh(r, path, problem=problem) for r in rs]))
            continue
        text, bom, encoding, _ = decode(data)
        source = Source.from_text(text, path=path, bom=bom, encoding=encoding)
        rrs = refresh(source, rs, config, blocked=wrong_commit)
        groups.append((source, rrs))
    return groups


def dedupe(results: list[BenchResult]) -> tuple[list[BenchResult], list[str]]:
    seen: dict[str, BenchResult] = {}
    notes = []
    for r in results:
        if r.name in seen:
            notes.append(f"benchmark {code(r.name)} has more than one result; the first is used")
            continue
        seen[r.name] = r
    return list(seen.values()), notes


# --- posting once ---------------------------------------------------------------------------------


def results_digest(
    results: Sequence[BenchResult], sha: str, expected: Sequence[tuple[str, str]]
) -> str:
    """16 hex digits naming what a review reports: the results (all of their fields), the
    measured commit and the gate's planned jobs. A re-run of the report job on the same inputs
    gives the same digest; a new run of the benchmarks (new step times, new start times) does not.
    """
    data = {
        "sha": sha.lower(),
        "planned": sorted([list(x) for x in expected]),
        "results": sorted(
            (r.model_dump(mode="json") for r in results), key=lambda d: str(d.get("name"))
        ),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


posted_marker = markers.rerun


def with_marker(body: str, marker: str) -> str:
    """``body`` with ``marker`` as its last line (the body is shortened to make room if needed)."""
    room = MAX_BODY - len(marker) - 1
    if len(body) > room:
        body = clamp_body(body, room)
    return f"{body}\n{marker}"
