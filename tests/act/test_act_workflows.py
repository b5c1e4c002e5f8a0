"""Every example workflow, run end to end by act against the GitHub fake (see act_kit.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from act_kit import ACTION_REPOSITORY, SHA, Act, Origin
from review_kit import BROKEN, README, apply_like_github

from github_fake import GitHubFake, Pull, load_event
from loopback import LoopbackGitHub
from perfbot.engine import check_source
from perfbot.source import Source
from test_rerun_e2e import BASE_README, CONFIG, mindspore_python
from test_rerun_e2e import README as DIT

pytestmark = pytest.mark.act

OTHER = "configs/other/README.md"


def pr_event(gh: GitHubFake, pr: Pull) -> dict:
    fork = pr.head_repo != gh.repo
    name = "pull_request_opened_fork" if fork else "pull_request_synchronize"
    data = copy.deepcopy(load_event(name))
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
        r = act.run("perfbot.yml", "pull_request", event,
                    token=gh.WRITE_TOKEN, sha=pr.head_sha, run_id=11)  # fmt: skip
        assert r.ended("review") == "failed", r.log  # fail-on: error, and the README has errors
        (review,) = gh.reviews
        assert review["commit_id"] == pr.head_sha
        comments = gh.comments_on(pr.number)
        assert [c["line"] for c in comments] == [7, 15, 16, 17]
        assert fixable_left(apply_like_github(BROKEN, comments)) == []
        (summary,) = gh.issue_comments
        # perfbot knows which action runs it (its repository and ref), inside the composite
        assert f"/{ACTION_REPOSITORY}@{SHA}" in summary["body"]
        # rule links lead to the rules page of the action that runs, never to a placeholder
        bodies = json.dumps([gh.reviews, gh.review_comments, gh.issue_comments])
        assert "OWNER/perfbot" not in bodies
        assert f"/{ACTION_REPOSITORY}/blob/{SHA}/docs/rules.md" in bodies
        posted = (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments))

        # the same run again (a re-run of the job): nothing new lands
        again = act.run("perfbot.yml", "pull_request", event,
                        token=gh.WRITE_TOKEN, sha=pr.head_sha, run_id=12)  # fmt: skip
        assert again.ended("review") == "failed", again.log
        assert (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments)) == posted
        assert gh.schema_errors == [] and gh.unhandled == []


def workflow_run_event(gh: GitHubFake, pr: Pull, run_id: int, conclusion: str) -> dict:
    """What GitHub sends perfbot-fork-post.yml when a perfbot-fork-check.yml run completes."""
    head = gh.repos[pr.head_repo.lower()]
    return {
        "action": "completed",
        "workflow_run": {
            "id": run_id,
            "name": "perfbot check",
            "event": "pull_request",
            "status": "completed",
            "conclusion": conclusion,
            "head_sha": pr.head_sha,
            "head_branch": pr.head_ref,
            "head_repository": {"full_name": head.full_name, "fork": True},
            "pull_requests": [],  # GitHub leaves it empty for a fork's runs
        },
        "repository": {"full_name": gh.repo, "default_branch": "main"},
    }


def test_fork_pair_posts_one_review_from_the_workflow_run(tmp_path: Path, action_tree):
    with LoopbackGitHub() as gh:
        origin = Origin(tmp_path / "origin", gh.repo)
        pr = open_pull(gh, origin, BROKEN, fork="contributor")
        main = gh.refs[(gh.repo.lower(), "main")]
        act = Act(tmp_path, gh, origin, *action_tree)

        # part 1: the fork's pull_request run, read-only token: posts nothing, uploads findings
        check = act.run("perfbot-fork-check.yml", "pull_request", pr_event(gh, pr),
                        token=gh.READ_TOKEN, sha=pr.head_sha, run_id=21)  # fmt: skip
        assert check.ended("check") == "failed", check.log  # the README has errors
        assert gh.reviews == [] and gh.issue_comments == []
        assert (act.artifacts / "21" / "perfbot-findings" / "perfbot-findings.json").is_file()

        # part 2: workflow_run in the base repository, write token, the default branch checked
        # out; the findings file under runner.temp reaches perfbot as the runner's own path
        event = workflow_run_event(gh, pr, 21, "failure")
        post = act.run("perfbot-fork-post.yml", "workflow_run", event,
                       token=gh.WRITE_TOKEN, sha=main, run_id=22)  # fmt: skip
        assert post.ended("post") == "succeeded", post.log
        assert "cannot read the findings file" not in post.log
        (review,) = gh.reviews
        assert review["commit_id"] == pr.head_sha
        comments = gh.comments_on(pr.number)
        assert [c["line"] for c in comments] == [7, 15, 16, 17]
        assert fixable_left(apply_like_github(BROKEN, comments)) == []
        assert len(gh.issue_comments) == 1  # the summary
        bodies = json.dumps([gh.reviews, gh.review_comments, gh.issue_comments])
        assert "OWNER/perfbot" not in bodies
        assert f"/{ACTION_REPOSITORY}/blob/{SHA}/docs/rules.md" in bodies
        posted = (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments))

        # a re-run of the post job: nothing new
        again = act.run("perfbot-fork-post.yml", "workflow_run", event,
                        token=gh.WRITE_TOKEN, sha=main, run_id=23)  # fmt: skip
        assert again.ended("post") == "succeeded", again.log
        assert (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments)) == posted
        assert gh.schema_errors == [] and gh.unhandled == []


def test_sarif_workflow_uploads_the_findings(tmp_path: Path, action_tree):
    with LoopbackGitHub() as gh:
        origin = Origin(tmp_path / "origin", gh.repo)
        pr = open_pull(gh, origin, BROKEN)
        act = Act(tmp_path, gh, origin, *action_tree)
        r = act.run("perfbot-sarif.yml", "pull_request", pr_event(gh, pr),
                    token=gh.WRITE_TOKEN, sha=pr.head_sha, run_id=31)  # fmt: skip
        assert r.ended("sarif") == "succeeded", r.log
        sarif = json.loads((act.artifacts / "code-scanning" / "perfbot.sarif").read_text())
        assert sarif["version"] == "2.1.0"
        (run,) = sarif["runs"]
        where = {
            (loc["physicalLocation"]["artifactLocation"]["uri"],
             loc["physicalLocation"]["region"]["startLine"])
            for res in run["results"] for loc in res["locations"]
        }  # fmt: skip
        assert {(README, 15), (README, 16), (README, 17)} <= where
        # `setup` puts a perfbot on PATH that knows the action's repository and ref: rule links
        # in the SARIF lead to its rules page, never to a placeholder
        text = json.dumps(sarif)
        assert "OWNER/perfbot" not in text
        help_uris = {r.get("helpUri") for r in run["tool"]["driver"]["rules"]}
        assert help_uris and all(
            f"/{ACTION_REPOSITORY}/blob/{SHA}/" in (u or "") for u in help_uris
        )
        assert gh.reviews == [] and gh.issue_comments == []  # code scanning only


RERUN_POLICY = "rerun: {runners: [[self-hosted, ascend], [self-hosted, ascend, 8p]]}\n"
# CANN's environment script on the test's runner: a stand-in that marks the benchmark's env
SET_ENV = "export PERFBOT_TEST_CANN=sourced\n"


def sleeping(command: list[str]) -> list[str]:
    """The fake trainer's command with 30 short steps it really spends (its log format kept)."""
    out, args = list(command), {"--steps": "30", "--step-time": "0.05", "--compile": "0.5"}
    for i, word in enumerate(out[:-1]):
        if word in args:
            out[i + 1] = args[word]
    return [*out, "--sleep"]


def test_rerun_workflow_gate_bench_report(tmp_path: Path, action_tree):
    # the trainer really spends its (short) step times: perfbot bench checks the log's step
    # times against the command's wall clock; its MindSpore is the README's (2.3.1), read from
    # the benchmark's interpreter
    python = mindspore_python(tmp_path / "ms-2.3.1", "2.3.1")
    benchmarks = [
        {**b, "python": python, "command": sleeping(b["command"])}
        for b in CONFIG["benchmarks"]
        if b["name"] in ("dit-1p", "dit-8p")
    ]
    config = yaml.safe_dump({"benchmarks": benchmarks})
    row = "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.93 | 550.54 |\n"
    head_text = BASE_README + row
    with LoopbackGitHub() as gh:
        origin = Origin(tmp_path / "origin", gh.repo)
        main = origin.commit({".perfbot.yml": RERUN_POLICY, DIT: BASE_README}, branch="main")
        gh.refs[(gh.repo.lower(), "main")] = main
        gh.set_contents(main, ".perfbot.yml", RERUN_POLICY)
        files = {".perfbot.yml": config, DIT: head_text}
        head = origin.commit(files, branch="rerun-me", parent=main)
        pr = gh.add_pull(changes={DIT: (BASE_README, head_text)},
                         contents={".perfbot.yml": config}, head_sha=head,
                         head_ref="rerun-me")  # fmt: skip
        gh.set_permission("maintainer", "maintain")
        comment = gh.add_issue_comment(pr.number, "/perfbot rerun", user="maintainer")
        event = load_event("issue_comment_created")
        event["issue"]["number"] = pr.number
        event["comment"].update(id=comment["id"], body=comment["body"])
        event["comment"]["user"]["login"] = event["sender"]["login"] = "maintainer"
        set_env = tmp_path / "set_env.sh"
        set_env.write_text(SET_ENV)
        act = Act(tmp_path, gh, origin, *action_tree)
        site = {"/usr/local/Ascend/ascend-toolkit/set_env.sh": str(set_env)}
        r = act.run("perfbot-rerun.yml", "issue_comment", event,
                    token=gh.WRITE_TOKEN, sha=main, run_id=41, site=site)  # fmt: skip
        for job in ("gate", "bench dit-1p", "bench dit-8p", "report"):
            assert r.ended(job) == "succeeded", (job, r.log)
        # one bench job per matrix entry, each with its own results artifact
        assert sorted(p.name for p in (act.artifacts / "41").iterdir()) == [
            "perfbot-bench-dit-1p", "perfbot-bench-dit-8p"]  # fmt: skip
        (review,) = gh.reviews
        assert review["commit_id"] == head
        assert "2 of 2 benchmarks measured" in review["body"]
        comments = [c for c in gh.review_comments if c["review_id"] == review["id"]]
        assert comments and all("```suggestion" in c["body"] for c in comments)
        refreshed = apply_like_github(head_text, comments)
        assert refreshed != head_text and "| dit | 8 | 64 | 256x256 | ON |" in refreshed
        assert gh.schema_errors == [] and gh.unhandled == []
