"""Pull requests from forks: ``perfbot review --findings-out`` unprivileged, then ``perfbot post``
from a ``workflow_run`` job with a write token, which treats the findings file as untrusted."""

import json

import pytest
import review_kit
from review_kit import (
    BROKEN,
    READ,
    README,
    WRITE,
    apply_like_github,
)

from gfm import shape
from perfbot.engine import check_source
from perfbot.source import Source

action = review_kit.action  # the fixture


def workflow_run(pr, **over):
    run = {
        "id": 42,
        "event": "pull_request",
        "conclusion": "failure",
        "head_sha": pr.head_sha,
        "head_repository": {"full_name": pr.head_repo},
        "pull_requests": [],  # GitHub leaves this empty for forks
    }
    run.update(over)
    return {"action": "completed", "workflow_run": run}


@pytest.fixture
def fork_pr(gh):
    return gh.add_pull(changes={README: (None, BROKEN)}, fork="contributor")


@pytest.fixture
def findings(action, fork_pr, tmp_path):
    """The unprivileged half: check the fork PR, write the findings file, post nothing."""
    out = tmp_path / "artifact" / "perfbot-findings.json"
    r = action.run(fork_pr, f"--findings-out={out}", token=READ)
    assert r.rc == 1 and action.gh.reviews == [] and action.gh.issue_comments == []
    assert "perfbot-findings.json" in r.summary
    return out


def post(action, pr, path, *, event=None, token=WRITE, command="post", extra=(), workspace=None):
    summary, output = action.env(
        token=token, event=event or workflow_run(pr), event_name="workflow_run", workspace=workspace
    )
    flag = "--findings" if command == "post" else "--findings="
    argv = [command, flag, str(path)] if command == "post" else [command, f"{flag}{path}"]
    return action.call([*argv, *extra], summary, output)


def test_two_workflows_post_one_review_that_fixes_the_file(gh, action, fork_pr, findings):
    data = json.loads(findings.read_text())
    assert data["version"] == 1 and data["pull_request"] == fork_pr.number
    assert data["head_sha"] == fork_pr.head_sha and data["checked"] == [README]
    r = post(action, fork_pr, findings)
    assert r.rc == 0, r.err
    (review,) = gh.reviews
    assert review["commit_id"] == fork_pr.head_sha
    comments = gh.comments_on(fork_pr.number)
    assert [c["line"] for c in comments] == [7, 15, 16, 17]
    fixed = apply_like_github(BROKEN, comments)
    assert not [f for f in check_source(Source.from_text(fixed)).findings if f.fixable]
    # pull, files, the README at the head (perfbot checks it itself), review comments, issue
    # comments, reviews, review, summary
    assert [(q.method, q.path.rsplit("/", 1)[-1]) for q in r.requests] == [
        ("GET", str(fork_pr.number)),
        ("GET", "files"),
        ("GET", README.rsplit("/", 1)[-1]),
        ("GET", "comments"),
        ("GET", "comments"),
        ("GET", "reviews"),
        ("POST", "reviews"),
        ("POST", "comments"),
    ]
    assert "): 4 inline comment(s), 0 in its body." in r.summary
    assert gh.schema_errors == []
    again = post(action, fork_pr, findings)
    assert [q.method for q in again.requests] == ["GET"] * 5
    assert "not what perfbot finds" not in again.summary + again.err


def test_the_action_posts_with_its_findings_input(gh, action, fork_pr, findings):
    r = post(action, fork_pr, findings, command="review")
    assert r.rc == 0 and len(gh.review_comments) == 4


def test_the_post_job_posts_its_own_lines_not_the_files(gh, action, fork_pr, findings):
    data = json.loads(findings.read_text())
    for it in data["items"]:
        it["start_line"] = it["end_line"] = 40  # the file has 18 lines: not in the diff
    findings.write_text(json.dumps(data))
    r = post(action, fork_pr, findings)
    assert r.rc == 0
    assert [c["line"] for c in gh.comments_on(fork_pr.number)] == [7, 15, 16, 17]
    assert "#L40)" not in gh.reviews[0]["body"]
    said = f"4 of the findings file's comments are not what perfbot finds at {fork_pr.head_sha[:7]}"
    assert said in r.err and said in r.summary


def test_messages_and_suggestions_edited_in_the_file_are_not_posted(gh, action, fork_pr, findings):
    """Audit finding 19: the suggestion text of a findings file was posted verbatim, so a fork
    author could have the bot suggest a link of theirs. The post job now posts its own check of
    the commit; what the file says differently is only counted."""
    data = json.loads(findings.read_text())
    data["findings"][0]["message"] = (
        "ping @org/maintainers <img src=https://evil.example/x.png> [win](https://evil.example)"
    )
    row = next(it for it in data["items"] if it["suggestion"] and "|" in it["suggestion"])
    row["suggestion"] = "| toynet-s | 8 | [32.00](https://evil.example/) |\n"
    findings.write_text(json.dumps(data))
    r = post(action, fork_pr, findings)
    assert r.rc == 0
    posted = json.dumps([gh.reviews, gh.review_comments, gh.issue_comments])
    assert "evil.example" not in posted and "ping @" not in posted
    for c in gh.review_comments:
        assert shape(c["body"]).mentions == 0
    fixed = apply_like_github(BROKEN, gh.comments_on(fork_pr.number))
    assert not [f for f in check_source(Source.from_text(fixed)).findings if f.fixable]
    # the message and the suggestion were of one comment (line 7's)
    assert "1 of the findings file's comments are not what perfbot finds" in r.err


def test_the_post_job_checks_with_the_config_of_its_own_checkout(gh, action, fork_pr, findings):
    """The config is policy: the post job's checkout (the default branch) decides it, not the
    fork's run that wrote the file (which had line 7's PB504)."""
    trusted = action.tmp / "default-branch"
    trusted.mkdir()
    (trusted / ".perfbot.yml").write_text("rules:\n  PB504: off\n")
    r = post(action, fork_pr, findings, workspace=trusted)
    assert r.rc == 0
    assert [c["line"] for c in gh.comments_on(fork_pr.number)] == [15, 16, 17]
    assert "1 of the findings file's comments are not what perfbot finds" in r.err
