"""Every surface perfbot posts, rendered the way GitHub renders it (:mod:`gfm`: cmark-gfm with the
GFM extensions, then mentions and references found in the rendered text), built from hostile
strings and compared with the same surface built from harmless words: untrusted text may change
the words, never the tags, the links, the mentions or perfbot's hidden markers (audit items 1, 6
and 7). Only the surfaces' own functions are used, so each test also runs on the code before the
escaping path existed."""

# ruff: noqa: E501 - whole README table rows and hostile strings

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from gfm import assert_inert, hostile, shape
from perfbot.github.event import CIEnv
from perfbot.github.review.plan import FilePlan, Item, Outcome, Plan, Report
from perfbot.github.review.render import (
    body_block,
    comment_body,
    job_summary,
    md_text,
    review_body,
    summary_comment,
)
from perfbot.source import FileError

OURS_URL = "https://github.com/org/models/blob/"


def ours(href: str) -> bool:
    from perfbot.docs import rules_url

    return href.startswith((OURS_URL, rules_url() or OURS_URL))


@pytest.mark.parametrize(
    "cell",
    [
        "`<img src=https://evil.example/p.png>",
        "`@org/maintainers please merge",
        "`<a href=https://evil.example/fix>the fix</a>",
    ],
)
def test_audit_6_a_cell_starting_with_a_backtick_stays_text(cell):
    # the rules quote a cell as `cell`: CommonMark closes a code span only with a run of the same
    # length, so the old md_text's "(`+)(.+?)\1" left raw HTML and mentions live
    msg = f"s/step `{cell}` is not a number; the matrix says `0.89`"
    md = md_text(msg)
    assert_inert(md, md_text("s/step `x` is not a number; the matrix says `0.89`"))
    assert "evil.example" not in "".join(shape(md).hrefs)


# ---- the posted surfaces ---------------------------------------------------------------------

ENV = CIEnv(server_url="https://github.com", repository="org/models")
SHA = "c" * 40


def _plan(msg: str, path: str, suggestion: str, err_path: str, err: str) -> Plan:
    def report(line: int, m: str, fixable: bool) -> Report:
        return Report(path, line, line, "PB401", "img-s-mismatch", "error", m, fixable,
                      "t", f"row{line}", (1, 9), in_scope=True)  # fmt: skip

    a, b, c = report(3, msg, True), report(5, msg, False), report(7, "plain", True)
    inline = Item(path, 3, 3, [a], suggestion, "row", in_scope=True, anchor=(3, 3))
    body = Item(path, 5, 5, [b], suggestion, "row", in_scope=True)
    more = Item(path, 7, 7, [c], suggestion, "row", in_scope=True, where="summary")
    fp = FilePlan(path, [a, b, c], [inline, body, more])
    return Plan("org/models", 4, SHA, [fp], [FileError(err_path, err)])


def _surfaces(msg: str, path: str, suggestion: str, err_path: str, err: str) -> dict[str, str]:
    plan = _plan(msg, path, suggestion, err_path, err)
    inline, body, _ = plan.items
    out = Outcome(posted_inline=1, posted_body=1, failures=[f"could not post: {err}"])
    link = ENV.blob_url(plan.repo, SHA, path, 5)
    return {
        "inline comment": re.split(r"\n`{3,}suggestion\n", comment_body(inline))[0],
        "review body": review_body(plan, ENV, [inline], [body], "0123456789abcdef"),
        "body block": body_block(body, link),
        "summary comment": summary_comment(plan, ENV, reported=[body.key]),
        "job summary": job_summary(plan, ENV, out, [f"**perfbot could not finish:** {err}"]),
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile, hostile, hostile, hostile)
def test_review_surfaces_render_untrusted_text_inert(msg, name, suggestion, err):
    path = f"configs/{name}/README.md"
    bad = _surfaces(msg, path, suggestion, path, err)
    calm = "x" * max(len(suggestion), 1)
    good = _surfaces("plain words", "configs/x/README.md", calm, "configs/x/README.md", "words")
    for where in bad:
        # the job summary's notes are perfbot's own text around the escaped error
        hostile_md = bad[where].replace(
            f"**perfbot could not finish:** {err}", "**perfbot could not finish:** x"
        )
        assert_inert(hostile_md, good[where], ours=ours, where=where)


def test_an_inline_suggestion_keeps_the_readme_bytes_with_a_longer_fence():
    text = "| a | `b` | <!-- kept --> | ```` | ~~~~~~ |"
    plan = _plan("m", "r/README.md", text, "r/README.md", "e")
    body = comment_body(plan.items[0])
    assert f"\n```````suggestion\n{text}\n```````\n" in body  # longer than any ` or ~ run


def test_audit_1_a_findings_message_cannot_forge_a_marker_in_the_summary():
    forged = (
        "img/s looks wrong `<!-- perfbot:ok-to-test sha=" + "c" * 40 + " by=maintainer "
        "comment=1000004 -->`"
    )
    plan = _plan(forged, "r/README.md", "x", "r/README.md", forged)
    for body in (
        summary_comment(plan, ENV),
        job_summary(plan, ENV, None, []),
        review_body(plan, ENV, [], [plan.items[1]], "0123456789abcdef"),
    ):
        assert "perfbot:ok-to-test" in body  # shown, as text or code...
        assert "<!-- perfbot:ok-to-test" not in body  # ...but never an HTML comment


# ---- perfbot report (the rerun review) -------------------------------------------------------

RPATH = "examples/dit/README.md"
RSHA = "9f4e4b1c0ffee0000000000000000000000000aa"
RREADME = """\
# DiT

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |
"""


def _rerun_body(name: str, selector: str, message: str, log: str, runner: str) -> str:
    from perfbot.config import Config, RerunConfig
    from perfbot.rerun.summary import plan_review, refresh_all
    from perfbot.runner.bench import BenchResult

    def result(**kw):
        base = {"name": "dit-1p", "readme": RPATH, "row": {"model name": "dit", "cards": "1"},
                "status": "ok", "cards": 1, "batch_size": 64, "s_per_step": 0.912345,
                "cv": 0.01, "steps_measured": 95, "commit": RSHA, "runner": runner,
                "environment": {"mindspore": "2.3.1", "cann": "8.0.RC2"}}  # fmt: skip
        base.update(kw)
        return BenchResult.model_validate(base)

    results = [
        result(name=f"{name}-a", row={"model name": selector}),  # no such row: a RowError
        result(name=f"{name}-b", s_per_step=None, message=message),  # ok without s/step
        result(
            name=f"{name}-c",
            status="failed",
            s_per_step=None,
            message=message,
            log_tail=log.split("\n"),
        ),
    ]
    results.append(result(name=f"{name}-d"))  # a changed row: an inline suggestion
    groups = refresh_all(results, read=lambda p: RREADME.encode(), config=Config(), sha=RSHA)
    from github_fake import make_patch
    from perfbot.hunks import parse_patch

    hunks = {RPATH: parse_patch(make_patch(None, RREADME))}
    plan = plan_review(
        groups, rerun=RerunConfig(), sha=RSHA, notes=[f"note {message}"], hunks=hunks
    )
    assert len(plan.comments) == 1
    comment = re.split(r"\n`{3,}suggestion\n", plan.comments[0]["body"])[0]
    return plan.body + "\n\n" + comment


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile, hostile, hostile, hostile, hostile)
def test_rerun_report_renders_untrusted_text_inert(name, selector, message, log, runner):
    bad = _rerun_body(name, selector, message, log, runner)
    good = _rerun_body("bench", "x", "words", "x", "x")
    assert_inert(bad, good, where="rerun report")


def test_audit_7_problem_texts_from_the_config_and_results_are_not_raw():
    body = _rerun_body(
        "b",
        "<img src=https://evil.example/p.png> @org/maintainers",
        "<a href=https://evil.example/x>official numbers</a> cc @org/maintainers <details><summary>x",
        "ok",
        "r",
    )
    sh = shape(body)
    assert "img" not in sh.tags and sh.mentions == 0
    assert not [h for h in sh.hrefs if "evil" in h]
    assert sh.tags["details"] == shape(_rerun_body("b", "x", "y", "ok", "r")).tags["details"]


# ---- the gate's replies ------------------------------------------------------------------------


def test_audit_1b_a_benchmark_name_quoted_in_a_refusal_is_no_marker(gh, tmp_path, monkeypatch):
    import json

    from github_fake import comment_event_env
    from perfbot.github.client import Client
    from perfbot.github.command import command_main

    monkeypatch.setattr(Client, "write_interval", None)
    readme = "configs/dit/README.md"
    old = "# DiT\n\n| model name | cards | s/step | img/s |\n|---|---|---|---|\n| dit | 1 | 0.89 | 71.91 |\n"
    forged = "<!-- perfbot:ok-to-test sha=" + "b" * 40 + " by=maintainer comment=1000004 -->"
    config = (
        "benchmarks:\n"
        f"  - name: {json.dumps(forged)}\n"
        f"    readme: {readme}\n"
        "    row: 1\n"
        "    command: [python, train.py]\n"
        "    cards: 0\n"
        "    batch_size: 1\n"
    )
    gh.set_permission("maintainer", "maintain")
    gh.add_pull(changes={readme: (old, old + "| dit | 8 | 0.93 | 550.54 |\n")},
                contents={".perfbot.yml": config})  # fmt: skip
    comment = gh.add_issue_comment(1, "/perfbot rerun dit", user="maintainer")
    comment_event_env(gh, tmp_path, monkeypatch, comment, "maintainer")
    command_main(["--config", ".perfbot.yml"])
    (reply,) = [c["body"] for c in gh.issue_comments if c["user"] == "github-actions[bot]"]
    assert "perfbot:ok-to-test sha=" in reply  # the name is quoted back...
    assert "<!-- perfbot:ok-to-test" not in reply  # ...but can no longer be read as a marker


@settings(max_examples=150, deadline=None)
@given(hostile, hostile)
def test_refusals_quote_the_comment_inert(a, b):
    from perfbot.github.command import Invalid, parse_comment

    for body in (f"/perfbot rerun {a}", f"/perfbot {a}", f"/perfbot rerun x {a}={b}"):
        cmd = parse_comment(body.split("\n")[0])
        if isinstance(cmd, Invalid):
            sh = shape(cmd.reason)
            assert set(sh.tags) <= {"p", "code"} and sh.hrefs == [] and sh.mentions == 0
            assert sh.comments == 0 and "<!--" not in cmd.reason, cmd.reason
