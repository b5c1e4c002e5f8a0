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


def post(action, pr, path, *, event=None, token=WRITE, command="post", extra=()):
    summary, output = action.env(
        token=token, event=event or workflow_run(pr), event_name="workflow_run"
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
    # pull, files, review comments, issue comments, reviews, review, summary
    assert [(q.method, q.path.rsplit("/", 1)[-1]) for q in r.requests] == [
        ("GET", str(fork_pr.number)),
        ("GET", "files"),
        ("GET", "comments"),
        ("GET", "comments"),
        ("GET", "reviews"),
        ("POST", "reviews"),
        ("POST", "comments"),
    ]
    assert "): 4 inline comment(s), 0 in its body." in r.summary
    assert gh.schema_errors == []
    again = post(action, fork_pr, findings)
    assert [q.method for q in again.requests] == ["GET"] * 4


def test_the_action_posts_with_its_findings_input(gh, action, fork_pr, findings):
    r = post(action, fork_pr, findings, command="review")
    assert r.rc == 0 and len(gh.review_comments) == 4


def test_the_post_job_recomputes_fingerprints_and_diff_lines(gh, action, fork_pr, findings):
    data = json.loads(findings.read_text())
    for it in data["items"]:
        it["start_line"] = it["end_line"] = 40  # the file has 18 lines: not in the diff
    findings.write_text(json.dumps(data))
    r = post(action, fork_pr, findings)
    assert r.rc == 0
    assert gh.review_comments == []  # no 422: the lines were checked against the PR's diff
    assert "#L40)" in gh.reviews[0]["body"]


def test_messages_from_the_file_are_rendered_as_text(gh, action, fork_pr, findings):
    data = json.loads(findings.read_text())
    data["findings"][0]["message"] = (
        "ping @org/maintainers <img src=https://evil.example/x.png> [win](https://evil.example) "
        "`@kept <in code>`"
    )
    findings.write_text(json.dumps(data))
    assert post(action, fork_pr, findings).rc == 0
    body = next(c["body"] for c in gh.review_comments if c["line"] == 7)
    sh = shape(body)  # as GitHub renders it
    assert sh.mentions == 0 and "img" not in sh.tags and "evil.example" not in str(sh.hrefs)
    assert "ping @\u200dorg/maintainers &lt;img src=https\\://evil.example/x.png&gt;" in body
    assert "`@kept <in code>`" in body


def edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(extra=1), "extra: Extra inputs are not permitted"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(pull_request="1"), "pull_request"),
        (lambda d: d["findings"][0].update(rule="PB999"), "unknown rule PB999"),
        (lambda d: d["findings"][0].update(slug="made-up"), "unknown rule"),
        (lambda d: d["findings"][0].update(severity="fatal"), "severity"),
        (lambda d: d["items"][0].update(findings=[999]), "finding 999"),
        (lambda d: d["items"][0].update(suggestion="x" * 70000), "suggestion"),
        (lambda d: d.update(checked=[README, ".github/workflows/x.yml"]), "not a file of pull"),
        (lambda d: d.update(repository="evil/models"), "is for evil/models"),
    ],
)
def test_a_tampered_file_posts_nothing(gh, action, fork_pr, findings, change, message):
    edit(findings, change)
    r = post(action, fork_pr, findings)
    assert r.rc == 2
    assert message in r.err and "nothing posted" in r.err
    assert "Traceback" not in r.err
    assert [q.method for q in gh.requests if q.method != "GET"] == []


def test_not_json_is_refused(gh, action, fork_pr, findings):
    findings.write_text("{not json")
    r = post(action, fork_pr, findings)
    assert r.rc == 2 and "not one perfbot wrote" in r.err
    assert gh.reviews == []


def test_a_file_for_another_commit_is_refused(gh, action, fork_pr, findings):
    r = post(action, fork_pr, findings, event=workflow_run(fork_pr, head_sha="a" * 40))
    assert r.rc == 2 and "the workflow run that produced it checked aaaaaaa" in r.err
    assert gh.requests[-1].method == "GET" and gh.reviews == []


def test_a_file_claiming_another_pull_request_is_refused(gh, action, fork_pr, findings):
    other = gh.add_pull(changes={README: (None, BROKEN)})  # from org/models itself
    edit(findings, lambda d: d.update(pull_request=other.number))
    r = post(action, fork_pr, findings)
    assert r.rc == 2 and "comes from org/models" in r.err and gh.reviews == []
    # another PR of the same fork: its head is not the commit the run checked
    mine = gh.add_pull(changes={README: (None, BROKEN)}, fork="contributor", head_ref="b")
    edit(findings, lambda d: d.update(pull_request=mine.number))
    r = post(action, fork_pr, findings)
    assert r.rc == 0 and "has moved on" in r.err and gh.reviews == []


def test_a_pull_request_that_moved_on_gets_nothing(gh, action, fork_pr, findings):
    gh.push(fork_pr.number, changes={README: BROKEN.replace("o2", "O2")})
    run = workflow_run(fork_pr)
    run["workflow_run"]["head_sha"] = json.loads(findings.read_text())["head_sha"]
    r = post(action, fork_pr, findings, event=run)
    assert r.rc == 0 and "has moved on" in r.err and gh.reviews == []
    assert "has moved on" in r.summary and r.outputs["findings"] == "0"


def test_a_closed_pull_request_gets_nothing(gh, action, fork_pr, findings):
    fork_pr.state = "closed"
    r = post(action, fork_pr, findings)
    assert r.rc == 0 and "is closed" in r.err and gh.reviews == []


def test_the_findings_file_is_required_and_must_exist(gh, action, fork_pr, tmp_path):
    from perfbot.cli import main

    assert main(["post"]) == 2
    r = post(action, fork_pr, tmp_path / "missing.json")
    assert r.rc == 2 and "cannot read the findings file" in r.err


def test_post_with_fail_on(gh, action, fork_pr, findings):
    r = post(action, fork_pr, findings, extra=["--fail-on", "error"])
    assert r.rc == 1 and len(gh.reviews) == 1


def test_a_pull_request_whose_fork_was_deleted_gets_nothing_from_another_forks_run(
    gh, action, tmp_path
):
    """The victim's fork is gone (`head.repo` null); mallory opens her own pull request at the
    same commit and points her findings file at the victim's: nothing is posted there."""
    victim = gh.add_pull(changes={README: (None, BROKEN)}, fork="victim", head_ref="fix")
    gh.pulls[victim.number].head_repo_deleted = True
    mine = gh.add_pull(changes={README: (None, BROKEN)}, fork="mallory", head_sha=victim.head_sha)
    out = tmp_path / "perfbot-findings.json"
    assert action.run(mine, f"--findings-out={out}", token=READ).rc == 1
    edit(out, lambda d: d.update(pull_request=victim.number))
    r = post(action, victim, out, event=workflow_run(mine))
    assert r.rc == 2 and "deleted" in r.err
    assert gh.reviews == [] and gh.review_comments == [] and gh.issue_comments == []
    # nor when the run does not say which repository it ran for
    r = post(action, victim, out, event=workflow_run(mine, head_repository=None))
    assert r.rc == 2 and gh.reviews == []


def test_a_run_for_another_branch_of_the_same_fork_is_refused(gh, action, fork_pr, findings):
    r = post(action, fork_pr, findings, event=workflow_run(fork_pr, head_branch="other"))
    assert r.rc == 2 and "branch other" in r.err and gh.reviews == []
