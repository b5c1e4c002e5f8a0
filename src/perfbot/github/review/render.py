"""The text a review posts (no network): inline comments with their ```suggestion, blocks for the
review body, the review body itself, the sticky summary comment, the job summary, and the hidden
markers that let a re-run recognise perfbot's comments. Every untrusted fragment (messages, paths,
suggested text shown as a block) goes through :mod:`.markdown` (the findings file of
``perfbot post`` is untrusted)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from .. import markers
from ..event import CIEnv
from ..markdown import block, code, message
from ..suggest import clamp_body, suggestion_block
from .plan import Item, Outcome, Plan, Report

_SUGGESTION_FENCE = re.compile(r"^(\s{0,3})(`{3,})suggestion\s*$", re.MULTILINE)


# --------------------------------------------------------------------------------------------
# Text


def md_text(s: str) -> str:
    """A finding's message (or any untrusted text) as one line of Markdown that renders as text:
    :func:`.markdown.message` (the one escaping path; the findings file of ``perfbot post`` is
    untrusted, so every message goes through here)."""
    return message(s)


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cell(s: str) -> str:
    return message(s, cell=True)


def _code_block(text: str, lang: str = "markdown") -> str:
    return block(text, lang)


def _rule_link(r: Report) -> str:
    from ...docs import rule_url

    text = f"`{r.rule}` {r.slug}"
    url = rule_url(r.rule, r.slug)
    return f"[{text}]({url})" if url else text


MAX_LISTED = 10  # findings listed in one comment; the summary lists them all


def _finding_lines(item: Item) -> list[str]:
    out = [
        f"- **{r.severity}** {_rule_link(r)}: {md_text(r.message)}"
        for r in item.reports[:MAX_LISTED]
    ]
    if len(item.reports) > MAX_LISTED:
        out.append(f"- … and {len(item.reports) - MAX_LISTED} more (the summary lists them)")
    return out


def _what(item: Item) -> str:
    return {"row": "this row", "table": "this table"}.get(item.kind, "these lines")


def _item_markers(item: Item) -> str:
    head = "".join(markers.fp(fp) + "\n" for fp in item.fps)
    return head + markers.item(item.key) + "\n"


UNSAFE_NOTE = (
    "⚠️ This suggestion changes a measured or declared value (an unsafe fix): the cells named "
    "above disagree, and either may be the wrong one. Check which before committing it; "
    "`perfbot fix` applies it only with `--unsafe-fixes`."
)


def comment_body(item: Item) -> str:
    """An inline comment: hidden markers first, the findings, then the ```suggestion."""
    n = len(item.reports)
    if item.suggestion is not None:
        intro = f"**perfbot** suggests a fix for {_what(item)}"
        intro += f" ({n} problem{'s' if n != 1 else ''}):" if n else ":"
    else:
        intro = f"**perfbot** found {n} problem{'s' if n != 1 else ''} here:"
    parts = [_item_markers(item) + intro, "\n".join(_finding_lines(item))]
    if not item.reports:
        parts[1] = "- the other fixes in this file change these lines too"
    if item.suggestion is not None:
        if any(r.unsafe for r in item.reports):
            parts.append(UNSAFE_NOTE)
        parts.append(suggestion_block(item.suggestion))
    return clamp_body("\n\n".join(p for p in parts if p) + "\n")


def body_block(item: Item, link: str) -> str:
    """An item for a review body or summary: a permalink, the findings, the suggested text as a
    plain block (a ```suggestion only works in an inline comment)."""
    lines = (
        f"line {item.start_line}"
        if item.start_line == item.end_line
        else (f"lines {item.start_line}-{item.end_line}")
    )
    out = [f"**[{code(item.path)} {lines}]({link})**", "\n".join(_finding_lines(item))]
    if item.suggestion is not None:
        verb = "Replace those lines with:" if item.suggestion else "Delete those lines."
        if any(r.unsafe for r in item.reports):
            out.append(UNSAFE_NOTE)
        out.append(verb)
        if item.suggestion:
            out.append(_code_block(item.suggestion))
    return "\n\n".join(p for p in out if p)


def item_block(plan: Plan, env: CIEnv, item: Item) -> str:
    """:func:`body_block` with the permalink to the item's lines at the plan's head commit."""
    link = env.blob_url(plan.repo, plan.head_sha, item.path, item.start_line, item.end_line)
    return body_block(item, link)


def review_body(
    plan: Plan, env: CIEnv, inline: list[Item], body: list[Item], key: str, note: str = ""
) -> str:
    """The review's body: its marker (``key``: the review's identity, for a retry to find it),
    the keys of the ``body`` items (a later run reads them here, even when the summary comment
    that also lists them could not be posted), the counts, ``note``, and the ``body`` items
    GitHub takes no inline comment on."""
    c = plan.counts()
    n = c["findings"]
    head = markers.review(key) + "\n"
    if body:
        head += markers.reported(it.key for it in body) + "\n"
    text = (
        "**perfbot** checked the README tables this pull request changes: "
        f"{_n(n, 'problem')} ({_n(c['errors'], 'error')}, {_n(c['warnings'], 'warning')}, "
        f"{c['info']} info)."
    )
    if inline:
        text += (
            " Each comment below suggests the fix: press **Commit suggestion**, or add them to "
            "a batch and commit them together."
        )
    if note:
        text += "\n\n" + note
    if body:
        text += (
            "\n\nGitHub takes comments only on lines in the diff; these fixes are for other "
            "lines:\n\n" + "\n\n".join(item_block(plan, env, it) for it in body)
        )
    text += "\n\nThe summary comment on this pull request lists every problem."
    return clamp_body(head + text + "\n")


def resolved_body(body: str, state: str, sha: str) -> str:
    """An old comment, marked resolved (its findings are gone) or outdated (a newer comment
    replaces it); its suggestion becomes a plain block so it can no longer be committed."""
    header, rest = markers.split_header(body)
    header = markers.STATE.sub("", header).rstrip("\n")
    rest = _SUGGESTION_FENCE.sub(lambda m: f"{m[1]}{m[2]}markdown", rest)
    if state == "resolved":
        note = f"**Resolved** in {sha[:7]}: perfbot no longer finds these problems."
    else:
        note = f"**Outdated** since {sha[:7]}: the lines changed; see perfbot's newer comment."
    text = (
        f"{header}\n{markers.state(state)}\n{note}\n\n"
        f"<details><summary>Earlier comment</summary>\n\n{rest.strip()}\n\n</details>\n"
    )
    return clamp_body(text)


# --------------------------------------------------------------------------------------------
# Summaries


def _where_text(it: Item | None, r: Report) -> str:
    if it is None or not r.fixable:
        return ""
    return {
        "inline": "inline suggestion",
        "review": "in the review",
        "summary": "below",
    }.get(it.where, "`perfbot fix`")


def _summary_core(plan: Plan, env: CIEnv, *, install: str | None, detail: bool) -> str:
    c = plan.counts()
    n = c["findings"]
    out: list[str] = []
    out_of_scope = len(plan.reports) - n
    if n == 0:
        out.append("### perfbot: the README tables this pull request changes look right ✅")
        if plan.errors:
            out.append(f"{len(plan.errors)} file(s) could not be checked (see below).")
    else:
        files = len({r.path for r in plan.in_scope})
        out.append(
            f"### perfbot: {n} problem{'s' if n != 1 else ''} in the README tables of this "
            "pull request"
        )
        out.append(
            f"**{c['errors']} error{'s' if c['errors'] != 1 else ''} · {c['warnings']} "
            f"warning{'s' if c['warnings'] != 1 else ''} · {c['info']} info** in {files} "
            f"file{'s' if files != 1 else ''}; {c['fixable']} can be fixed mechanically."
        )
        by_item = {id(r): it for it in plan.items for r in it.reports}
        rows = ["| severity | where | rule | problem | fix |", "|---|---|---|---|---|"]
        shown = sorted(plan.in_scope, key=lambda r: (r.path, r.line, r.rule))
        for r in shown[:200]:
            link = env.blob_url(plan.repo, plan.head_sha, r.path, r.line, r.end_line)
            rows.append(
                f"| {r.severity} | [{code(r.path, cell=True)}:{r.line}]({link}) | "
                f"`{r.rule}` {r.slug} | {_cell(r.message)} | {_where_text(by_item.get(id(r)), r)} |"
            )
        if len(shown) > 200:
            rows.append(f"| | | | … and {len(shown) - 200} more | |")
        out.append("\n".join(rows))
    more = [it for it in plan.items if it.in_scope and (it.where == "summary" or detail)]
    more = [it for it in more if it.suggestion is not None or detail]
    if more:
        title = (
            "Suggested fixes"
            if detail
            else f"{len(more)} more suggestion{'s' if len(more) != 1 else ''} "
            "(over the limit of inline comments)"
        )
        blocks: list[str] = []
        size = 0
        for it in more:
            b = item_block(plan, env, it)
            if size + len(b) > 40_000:
                blocks.append(f"… and {len(more) - len(blocks)} more: run `perfbot fix`.")
                break
            blocks.append(b)
            size += len(b)
        out.append(
            f"<details><summary>{title}</summary>\n\n" + "\n\n".join(blocks) + "\n\n</details>"
        )
    if plan.errors:
        out.append(
            "Could not check:\n\n"
            + "\n".join(f"- {code(e.path)}: {md_text(e.message)}" for e in plan.errors)
        )
    if n:
        paths = sorted({r.path for r in plan.in_scope if r.fixable})
        if paths:
            cmd = "perfbot fix " + " ".join(shlex.quote(p) for p in paths)
            if install:
                cmd = f"{install}\n{cmd}"
            block = "**Fix everything locally:**\n\n" + _code_block(cmd, "sh")
            unsafe = sum(r.unsafe for r in plan.in_scope)
            if unsafe:
                block += (
                    f"\n\n{unsafe} of these fixes change a measured or declared value; "
                    "`perfbot fix` leaves them until you add `--unsafe-fixes`."
                )
            out.append(block)
    if out_of_scope:
        out.append(
            f"<sub>{out_of_scope} more finding{'s' if out_of_scope != 1 else ''} in these files "
            f"{'are' if out_of_scope != 1 else 'is'} outside what this pull request changes "
            f"(filter mode `{plan.mode.value}`); `perfbot check` lists "
            f"{'them' if out_of_scope != 1 else 'it'}.</sub>"
        )
    return "\n\n".join(out)


def summary_comment(
    plan: Plan, env: CIEnv, *, reported: Iterable[str] = (), install: str | None = None
) -> str:
    """The sticky summary comment: its marker, the items already shown in a review body, counts
    per severity, a table of what is wrong, and the command line that fixes everything."""
    head = f"{markers.SUMMARY}\n{markers.reported(reported)}\n"
    text = _summary_core(plan, env, install=install, detail=False)
    foot = f"\n\n<sub>perfbot · as of {plan.head_sha[:7]}</sub>\n"
    return clamp_body(head + text + foot)


def job_summary(plan: Plan | None, env: CIEnv, outcome: Outcome | None, notes: list[str]) -> str:
    """Markdown for ``GITHUB_STEP_SUMMARY``: what the run did, then the summary with every
    suggested fix (a fork's contributor finds them here when nothing could be posted)."""
    out = ["## perfbot review"]
    if plan is not None:
        out.append(f"Pull request #{plan.number} at `{plan.head_sha[:7]}`: "
                   f"{len(plan.files)} README(s) checked.")  # fmt: skip
    if outcome is not None:
        did = []
        if outcome.read_only:
            did.append(
                f"Nothing was posted: {md_text(outcome.read_only)}. The findings are in the "
                "annotations and below."
            )
        else:
            if outcome.posted_inline or outcome.posted_body:
                review = f"[a review]({outcome.review_url})" if outcome.review_url else "a review"
                did.append(
                    f"Posted {review}: {outcome.posted_inline} inline comment(s), "
                    f"{outcome.posted_body} in its body."
                )
            if outcome.skipped:
                did.append(f"{outcome.skipped} comment(s) were already on the pull request.")
            if outcome.resolved or outcome.outdated:
                did.append(
                    f"Marked {outcome.resolved} old comment(s) resolved and "
                    f"{outcome.outdated} outdated."
                )
            if outcome.summary:
                did.append(f"Summary comment {outcome.summary}.")
        did.extend(f"Problem: {md_text(f)}" for f in outcome.failures)
        if did:
            out.append("\n".join(f"- {d}" for d in did))
    out.extend(notes)
    if plan is not None:
        out.append(_summary_core(plan, env, install=env.install_command(), detail=True))
    return "\n\n".join(out) + "\n"
