"""`perfbot report`: merge the results of all benchmark jobs and suggest the refreshed rows.

The pure part, :func:`plan_review`, turns the refreshed rows of each README into one review: a
```suggestion comment per changed row that sits in the pull request's diff, and a summary body
with a table of old -> new numbers (relative change of s/step, flagged when slower than
``rerun.slower_threshold`` or noisier than ``rerun.noisy_cv``), the rows that could not be
updated and why, and the failed or timed-out benchmarks with the tail of their log. Rows outside
the diff (a suggestion can only sit on a line of the diff) are shown in the body as a diff.

:func:`report_main` is the command: locally (``--results`` only) it reads the READMEs from disk,
prints the summary and, with ``--write``, applies the new numbers; on a pull request
(``--pr``/``--sha``) it reads the README and ``.perfbot.yml`` at the benchmarked commit through
the GitHub API and posts one review (or, with ``rerun.push``, commits the new numbers to a
same-repository branch).

Everything read from the results and the README is untrusted text: it is shown as code (so it is
never a mention, a link or HTML) and log tails are fenced with a fence nothing inside can close.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import os
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from perfbot.config import Config, ConfigError, RerunConfig, load_config
from perfbot.fix import Fix, replacement
from perfbot.github import markers
from perfbot.github.client import Client, GitHubError
from perfbot.github.command import default_branch, read_repo_config, rerun_policy
from perfbot.github.event import CIEnv, EventError, PullRequestInfo
from perfbot.github.markdown import block, code, message
from perfbot.github.review.post import PostedReview, Writer
from perfbot.github.review.post import posted_reviews as _posted_reviews
from perfbot.github.suggest import MAX_BODY, clamp_body, suggestion_block
from perfbot.hunks import Hunk, can_suggest, hunks_by_path
from perfbot.rerun.refresh import RowRefresh, apply_refreshes, proposals, refresh
from perfbot.rerun.rows import TableProposal
from perfbot.runner.bench import BenchResult, ResultsError, load_results, stop_commands_token
from perfbot.runner.spec import SpecError, validate_benchmarks
from perfbot.source import Source, decode

__all__ = [
    "MARKER",
    "ReviewPlan",
    "plan_review",
    "render_summary",
    "report_main",
]

MARKER = markers.RERUN
# The last line of a posted review (markers.rerun): which commit and which results it reports.
# Display and dedupe only: nothing reads it to allow anything, it counts only in a review written
# by perfbot's own account that starts with perfbot's own heading, and only as the body's very
# last line (after every untrusted text the body quotes).
_HEADING = "### perfbot rerun"
DEFAULT_BOT = "github-actions[bot]"  # the login GITHUB_TOKEN writes as (it cannot ask GET /user)
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


def _short(sha: str | None) -> str:
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
    comment: dict = {"path": rr.readme, "line": end, "side": "RIGHT", "body": body}
    if start != end:
        comment["start_line"] = start
        comment["start_side"] = "RIGHT"
    return comment


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
    comment: dict = {"path": source.path, "line": end, "side": "RIGHT", "body": body}
    if start != end:
        comment["start_line"] = start
        comment["start_side"] = "RIGHT"
    return comment


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
    at = f" at `{_short(sha)}`" if sha else ""
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
        out += [f"Commit `{_short(pushed)}` writes the new numbers of {len(changed)} rows.", ""]
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
                f"| {_cell(r.name)} | {_cell(r.runner)} | {_cell(_short(r.commit))} | "
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
            out[id(r)] = f"measured at commit `{_short(c)}`, not at `{_short(sha)}`"
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
            where = f" at `{_short(sha)}`" if sha else ""
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


def _dedupe(results: list[BenchResult]) -> tuple[list[BenchResult], list[str]]:
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


def posted_reviews(reviews: Iterable[Mapping], *, bot: str, sha: str) -> list[PostedReview]:
    """perfbot's live rerun reviews of commit ``sha``, oldest first (see
    :func:`perfbot.github.review.post.posted_reviews`)."""
    return _posted_reviews(reviews, bot=bot, sha=sha, heading=_HEADING)


def _supersede_notes(old: PostedReview, new: Mapping) -> tuple[str, str]:
    """An earlier rerun review's new body, and its inline suggestions' new text."""
    new_url = str(new.get("html_url") or "")
    newer = f"[a newer review]({new_url})" if new_url else "a newer review"
    try:
        by = int(new.get("id"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        by = 0
    note = (
        f"{_HEADING} at `{_short(old.sha)}`: **superseded** by {newer} of the same commit, "
        "with newer results. The numbers this review showed are out of date.\n\n"
        + markers.superseded(old.sha, old.digest, by)
    )
    comment = (
        f"**perfbot rerun**: superseded by {newer}; this suggestion held numbers that are out of "
        f"date.\n\n{MARKER}"
    )
    return note, comment


# --- the command ----------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfbot report",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Merge benchmark results and refresh the README rows they measure: print a "
        "summary (and --write the READMEs), or post one review on a pull request (--pr).",
    )
    p.add_argument(
        "--results",
        nargs="+",
        default=[],
        metavar="PATH",
        help="results JSON files of perfbot bench, or folders of them",
    )
    p.add_argument("--config", default=".perfbot.yml", help="config file (default .perfbot.yml)")
    p.add_argument("--write", action="store_true", help="local run: write the new numbers")
    p.add_argument("--pr", type=int, help="pull request to review (needs --sha and a token)")
    p.add_argument("--sha", help="the commit the benchmarks measured (the gate's pinned sha)")
    p.add_argument(
        "--matrix",
        help="the gate's matrix JSON: a planned benchmark without a result is reported too",
    )
    p.add_argument(
        "--bot-login",
        help="login perfbot's reviews are written by (default: the token's, else "
        "github-actions[bot]); only its earlier reviews are found and superseded",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="with --pr: print the review as JSON instead of posting it",
    )
    return p


def _err(msg: str) -> None:
    for line in msg.splitlines() or [msg]:
        print(f"perfbot report: error: {line}", file=sys.stderr)


def _step_summary(text: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as fh:
        fh.write(text + "\n")


def reconcile(
    results: list[BenchResult], benchmarks: object, source: str = ".perfbot.yml"
) -> tuple[list[BenchResult], list[str]]:
    """Results checked against the benchmarks of the config (a results file is data from a
    runner that ran the pull request's code): one that names no benchmark is dropped, and each
    row, README, cards and batch size are the config's, not what the file says."""

    try:
        specs = {s.name: s for s in validate_benchmarks(benchmarks, source=source)}
    except SpecError as e:
        raise ValueError(str(e)) from None
    out, notes = [], []
    for r in results:
        spec = specs.get(r.name)
        if spec is None:
            notes.append(f"result {code(r.name)} is not a benchmark of `{source}`; it is ignored")
            continue
        out.append(
            r.model_copy(
                update={
                    "readme": spec.readme,
                    "row": spec.row,
                    "cards": spec.cards,
                    "batch_size": spec.batch_size,
                    "inference": spec.inference,
                    "sampling_steps": spec.sampling_steps,
                }
            )
        )
    return out, notes


def _expected(matrix: str | None) -> list[tuple[str, str]]:
    """(name, README) of each job of the gate's matrix; ValueError when it is not one."""
    if not matrix:
        return []
    try:
        data = json.loads(matrix)
        items = data["include"]
        out = [(str(i["name"]), str(i.get("readme", ""))) for i in items]
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"--matrix is not the gate's matrix JSON ({e})") from None
    return out


def report_main(argv: list[str]) -> int:
    """`perfbot report`: 0 every benchmark measured, 1 some did not finish (the report is still
    written or posted), 2 usage, results, config or GitHub error."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else 2
    existing = [p for p in args.results if Path(p).exists()]
    try:
        expected = _expected(args.matrix)
        results, notes = _dedupe(load_results(existing if expected else args.results))
    except (ResultsError, ValueError) as e:
        _err(str(e))
        return 2
    if expected:
        planned = {n for n, _ in expected}
        for r in [r for r in results if r.name not in planned]:
            notes.append(f"result {code(r.name)} was not planned by the gate; it is ignored")
        results = [r for r in results if r.name in planned]
    got = {r.name for r in results}
    missing = [(n, readme) for n, readme in expected if n not in got]
    if not results and not missing:
        _err("no results found in " + (", ".join(args.results) or "(no --results)"))
        return 2
    if args.pr is not None:
        return _report_pull(args, results, notes, missing)
    if args.dry_run or args.sha:
        _err("--dry-run and --sha go with --pr")
        return 2
    return _report_local(args, results, notes, missing)


def _report_local(
    args: argparse.Namespace,
    results: list[BenchResult],
    notes: list[str],
    missing: list[tuple[str, str]],
) -> int:
    config_file = Path(args.config)
    try:
        config = load_config(config_file) if config_file.is_file() else Config()
    except ConfigError as e:
        _err(str(e))
        return 2
    root = config_file.parent
    if config.benchmarks:
        try:
            results, more = reconcile(results, config.benchmarks, str(config_file))
        except ValueError as e:
            _err(str(e))
            return 2
        notes = notes + more

    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    groups = refresh_all(results, read=read, config=config, config_path=config_file.name)
    plan = plan_review(groups, rerun=config.rerun, notes=notes, missing=missing)
    _print_body(plan.body)
    _step_summary(plan.body)
    if args.write:
        for source, _ in groups:
            if source is None or source.path not in plan.texts:
                continue
            try:
                (root / source.path).write_bytes(source.encode(plan.texts[source.path]))
            except OSError as e:
                _err(f"cannot write {root / source.path}: {e.strerror or e}")
                return 2
            print(f"perfbot report: wrote {root / source.path}", file=sys.stderr)
    return 1 if plan.failed else 0


def _print_body(body: str) -> None:
    """The review body on stdout, fenced with `::stop-commands::` in a GitHub Actions job: its
    log tails are the benchmark's output, which must not reach the runner as workflow commands."""
    token = stop_commands_token()
    if token:
        print(f"::stop-commands::{token}")
    print(body)
    if token:
        print(f"::{token}::")
    sys.stdout.flush()


def _report_pull(
    args: argparse.Namespace,
    results: list[BenchResult],
    notes: list[str],
    missing: list[tuple[str, str]],
) -> int:
    """Post one review on pull request ``args.pr`` for the results measured at ``args.sha``."""

    sha = (args.sha or "").lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        _err("--sha: give the full 40-digit commit the benchmarks measured (the gate's sha)")
        return 2
    try:
        env = CIEnv.from_environ()
    except EventError as e:
        _err(str(e))
        return 2
    if not env.repository or not env.token:
        _err("GITHUB_REPOSITORY and GITHUB_TOKEN are needed to post to a pull request")
        return 2
    client = Client(env.repository, env.token, env.api_url)
    run_url = f"{env.server_url}/{env.repository}/actions/runs/{env.run_id}" if env.run_id else None
    try:
        plan = _post(client, env, args, sha, results, notes, missing, run_url)
    except GitHubError as e:
        _err(f"GitHub: {e}")
        return 2
    except ValueError as e:  # a config problem, already worded for the user
        _err(str(e))
        return 2
    _print_body(plan.body)
    _step_summary(plan.body)
    return 1 if plan.failed else 0


def _repo_config(client, path: str, ref: str, what: str) -> tuple[dict | None, Config]:
    from pydantic import ValidationError

    data, problem = read_repo_config(client, path, ref)
    if problem:
        raise ValueError(f"{what}: {problem}")
    try:
        return data, Config.model_validate(data or {})
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise ValueError(f"{what}: `{path}`: {loc}: {err['msg']}") from None


def _post(client, env, args, sha, results, notes, missing, run_url) -> ReviewPlan:

    repo = env.repository
    pull = client.pull(args.pr)
    info = PullRequestInfo.from_api(pull, repo)
    branch = default_branch(pull, env.payload)
    if not branch:
        raise ValueError("GitHub did not say which branch is the repository's default branch")
    base_data, _ = _repo_config(client, args.config, branch, "default branch")
    policy = rerun_policy(base_data, args.config)  # the policy is the default branch's
    head_data, config = _repo_config(client, args.config, sha, f"`{sha[:7]}`")
    config = config.model_copy(update={"rerun": policy})
    if head_data is None or not head_data.get("benchmarks"):
        raise ValueError(f"`{args.config}` at `{sha[:7]}` declares no `benchmarks:`")
    digest = results_digest(results, sha, _expected(args.matrix))
    jobs = {n for n, _ in _expected(args.matrix)} or {r.name for r in results}
    marker = posted_marker(sha, digest, jobs)
    bot = args.bot_login or client.whoami() or DEFAULT_BOT
    earlier = posted_reviews(client.reviews(args.pr), bot=bot, sha=sha)
    same = [p for p in earlier if p.digest == digest]
    # a review of the same commit whose benchmarks these results all measure again
    older = [p for p in earlier if p.digest != digest and p.jobs <= jobs]
    results, more = reconcile(results, head_data["benchmarks"], args.config)

    def read(path: str) -> bytes | None:
        try:
            return client.file_content(path, sha)
        except GitHubError as e:
            if e.status == 404:
                return None
            raise

    groups = refresh_all(results, read=read, config=config, config_path=args.config, sha=sha)
    head = info.head_sha.lower()
    moved = head != sha
    notes = list(notes) + more
    if older and not same:
        links = ", ".join(f"[review {p.id}]({p.url})" if p.url else f"review {p.id}" for p in older)
        notes.append(
            f"These results replace those of an earlier perfbot rerun of `{sha[:7]}` ({links}), "
            "now marked as superseded."
        )
    if moved:
        notes.append(
            f"The pull request has moved on to `{head[:7]}` since the benchmarks ran on "
            f"`{sha[:7]}`: the new rows are shown here rather than as suggestions."
        )
    hunks = None if moved else hunks_by_path(client.pull_files(args.pr))

    def link(path: str, line: int | None) -> str:
        if line:
            return env.blob_url(repo, sha, path, line)
        return f"{env.server_url}/{repo}/blob/{sha}/{quote(path)}"

    common = {
        "rerun": policy,
        "sha": sha,
        "link": link,
        "missing": missing,
        "run_url": run_url,
        "max_comments": config.review.max_comments,
    }
    plan = plan_review(groups, hunks=hunks, notes=notes, **common)
    if same and not args.dry_run:
        # a re-run of this job ("Re-run failed jobs"): the review is already there
        where = f" ({same[-1].url})" if same[-1].url else ""
        print(
            f"perfbot report: review {same[-1].id}{where} already reports these results at "
            f"`{sha[:7]}`; nothing new is posted",
            file=sys.stderr,
        )
        return plan
    if policy.push and plan.texts:
        why = None
        if info.fork:
            why = "the pull request comes from a fork"
        elif moved:
            why = "the pull request has new commits"
        else:
            try:
                pushed = _push(client, repo, info.head_ref, groups, plan.texts, sha)
                plan = plan_review(groups, hunks=None, notes=notes, pushed=pushed, **common)
            except GitHubError as e:
                why = f"GitHub refused the commit ({e})"
        if why:
            notes.append(f"`rerun.push` is on, but {why}: suggesting the numbers instead.")
            plan = plan_review(groups, hunks=hunks, notes=notes, **common)
    if args.dry_run:
        body = with_marker(plan.body, marker)
        print(json.dumps({"commit_id": sha, "body": body, "comments": plan.comments}))
        return plan
    # the PR review's writer: one review, found again by its marker after a lost answer
    writer = Writer(client)

    def ours(rv: dict) -> bool:
        return any(p.digest == digest for p in posted_reviews([rv], bot=bot, sha=sha))

    try:
        posted = writer.create_review(
            args.pr, sha, with_marker(plan.body, marker), plan.comments, ours=ours
        )
    except GitHubError as e:
        if e.status != 422 or not plan.comments:
            raise
        notes.append(f"GitHub refused the inline suggestions ({e}); here they are as diffs.")
        plan = plan_review(groups, hunks=None, notes=notes, **common)
        posted = writer.create_review(args.pr, sha, with_marker(plan.body, marker), [], ours=ours)
    if writer.read_only_error is not None:
        raise writer.read_only_error  # as before the writer: `GitHub: <why>`, exit 2
    for old in older:
        # the new review is posted; an old one GitHub will not edit just stays
        note, comment = _supersede_notes(old, posted or {})
        writer.supersede(args.pr, old, bot=bot, note=note, comment_note=comment)
    for failure in writer.out.failures:
        print(f"perfbot report: {failure}", file=sys.stderr)
    return plan


def _push(client, repo: str, branch: str, groups, texts: dict[str, str], sha: str) -> str:
    """Commit each refreshed README to ``branch`` (contents API); returns the last commit.
    A README changed on the branch since ``sha`` is a conflict (GitHub answers 409)."""

    sources = {s.path: s for s, _ in groups if s is not None}
    last = ""
    for path, text in texts.items():
        source = sources[path]
        measured = source.encode(source.text)
        blob = hashlib.sha1(b"blob %d\0" % len(measured) + measured).hexdigest()
        url = f"/repos/{repo}/contents/{quote(path)}"
        _, meta = client.request("GET", url, params={"ref": branch})
        if (meta or {}).get("sha") != blob:
            raise GitHubError(409, f"{path} changed on {branch} since `{sha[:7]}`")
        body = {
            "message": f"perfbot rerun: refresh the measured numbers of {path}\n\n"
            f"Measured at {sha} by `/perfbot rerun`.",
            "content": base64.b64encode(source.encode(text)).decode("ascii"),
            "sha": blob,
            "branch": branch,
        }
        _, out = client.request("PUT", url, body=body)
        last = str(((out or {}).get("commit") or {}).get("sha") or "")
    return last
