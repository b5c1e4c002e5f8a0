"""A run that fails half way: what it posted is remembered where the next run reads it."""

import re

import review_kit
from review_kit import BROKEN, README

action = review_kit.action  # the fixture


def test_a_review_posted_then_a_failed_summary_does_not_repeat_the_body_items(gh, action):
    # the PR changes line 1 only, and `file` mode reports the whole file: every item is outside
    # the diff, so all of them go into the review body (audit item 10)
    old = "# Old title\n" + BROKEN.split("\n", 1)[1]
    pr = gh.add_pull(changes={README: (old, BROKEN)})
    gh.fail_next("POST", re.compile(r"/issues/\d+/comments$"), 502, times=2)
    first = action.run(pr, "--filter-mode=file")
    assert first.rc == 2 and "could not post the summary comment" in first.err
    (review,) = gh.reviews
    assert "<!-- perfbot:reported=" in review["body"].split("\n", 2)[1]
    summaries = [c for c in gh.issue_comments if "perfbot:summary" in c["body"]]
    assert summaries == []

    second = action.run(pr, "--filter-mode=file")
    assert second.rc == 1, second.err
    assert len(gh.reviews) == 1  # the body items were not posted again
    (summary,) = [c for c in gh.issue_comments if "perfbot:summary" in c["body"]]
    assert "in the review" in summary["body"]
    third = action.run(pr, "--filter-mode=file")
    assert len(gh.reviews) == 1 and [q for q in third.requests if q.method != "GET"] == []


def test_a_long_rate_limit_ends_the_run_with_try_again_later(gh, action, monkeypatch):
    import time

    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    gh.fail_next("GET", "/files", 403, headers={"Retry-After": "86400"}, times=10)
    r = action.run(pr)
    assert r.rc == 2 and "rate limited, try again later" in r.err
    assert "Traceback" not in r.err and sum(slept) <= 300
    assert gh.reviews == [] and gh.issue_comments == []


def test_a_gate_reply_whose_answer_was_lost_is_not_posted_twice(gh, tmp_path, monkeypatch):

    from github_fake import comment_event_env
    from perfbot.github.client import Client
    from perfbot.github.command import command_main

    monkeypatch.setattr(Client, "write_interval", None)
    gh.add_pull(changes={README: (None, BROKEN)})
    gh.set_permission("maintainer", "maintain")  # perfbot replies only to who may ask
    comment = gh.add_issue_comment(1, "/perfbot help", user="maintainer")
    comment_event_env(gh, tmp_path, monkeypatch, comment, "maintainer")
    gh.fail_next("POST", re.compile(r"/issues/\d+/comments$"), 502, after=True)
    assert command_main(["--config", ".perfbot.yml"]) == 0
    replies = [c for c in gh.issue_comments if c["user"] == "github-actions[bot]"]
    assert len(replies) == 1
