"""Every example workflow, run end to end by act against the GitHub fake (see act_kit.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from act_kit import Act, Origin
from review_kit import BROKEN, README, apply_like_github

from github_fake import GitHubFake, Pull, load_event
from loopback import LoopbackGitHub
from perfbot.engine import check_source
from perfbot.source import Source

pytestmark = pytest.mark.act

OTHER = "configs/other/README.md"


def pr_event(gh: GitHubFake, pr: Pull) -> dict:
    fork = pr.head_repo != gh.repo
    data = copy.deepcopy(load_event("pull_request_opened_fork" if fork else "pull_request_synchronize"))
    data["number"] = pr.number
    p = data["pull_request"]
    p["number"] = pr.number
    p["head"]["sha"] = pr.head_sha
    p["head"]["ref"] = pr.head_ref
    p["head"]["repo"]["full_name"] = pr.head_repo
    p["base"]["sha"] = pr.base_sha
    return data


def open_pull(gh: GitHubFake, origin: Origin, head_text: str, **kw) -> Pull:
    base = origin.commit({OTHER: "# Other\n"}, branch="main")
    gh.refs[(gh.repo.lower(), "main")] = base
    gh.set_contents(base, OTHER, "# Other\n")
    head = origin.commit({README: head_text}, branch="update-readme", parent=base)
    return gh.add_pull(changes={README: (None, head_text)}, head_sha=head, **kw)


def fixable_left(text: str) -> list:
    return [f for f in check_source(Source.from_text(text)).findings if f.fixable]


def test_perfbot_yml_on_a_same_repository_pull_request(tmp_path: Path, action_tree):
    with LoopbackGitHub() as gh:
        origin = Origin(tmp_path / "origin", gh.repo)
        pr = open_pull(gh, origin, BROKEN)
        act = Act(tmp_path, gh, origin, *action_tree)
        event = pr_event(gh, pr)
        r = act.run("perfbot.yml", "pull_request", event, token=gh.WRITE_TOKEN, sha=pr.head_sha, run_id=11)
        assert "Job failed" in r.log, r.log  # fail-on: error, and the README has errors
        (review,) = gh.reviews
        assert review["commit_id"] == pr.head_sha
        comments = gh.comments_on(pr.number)
        assert [c["line"] for c in comments] == [7, 15, 16, 17]
        assert fixable_left(apply_like_github(BROKEN, comments)) == []
        assert len(gh.issue_comments) == 1  # the summary
        posted = (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments))

        # the same run again (a re-run of the job): nothing new lands
        again = act.run("perfbot.yml", "pull_request", event, token=gh.WRITE_TOKEN, sha=pr.head_sha, run_id=12)
        assert "Job failed" in again.log
        assert (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments)) == posted
        assert gh.schema_errors == [] and gh.unhandled == []
