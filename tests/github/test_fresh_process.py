"""Every command works in a fresh process, as the workflows run them: nothing may depend on what an
earlier import in the same process registered (the test suite's own process has loaded every
module long before these run, which hid that ``perfbot post`` knew no rule).

The perfbot processes are started with ``sys.executable -m perfbot`` and talk to the GitHub fake
served on 127.0.0.1 (:mod:`loopback`)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

from review_kit import BROKEN, README, apply_like_github

from freshkit import run_perfbot
from github_fake import GitHubFake, load_event
from loopback import LoopbackGitHub
from perfbot.engine import check_source
from perfbot.source import Source


def checkout(gh: GitHubFake, sha: str, where: Path) -> Path:
    """What actions/checkout gives a job: every file of the repository at ``sha``."""
    (where / ".git").mkdir(parents=True)
    (where / ".git" / "HEAD").write_text(sha + "\n")
    for (at, path), data in gh.blobs.items():
        if at == sha:
            (where / path).parent.mkdir(parents=True, exist_ok=True)
            (where / path).write_bytes(data)
    return where


def runner_env(gh: GitHubFake, tmp: Path, name: str, event_name: str, event: dict, token: str):
    (tmp / f"{name}.event.json").write_text(json.dumps(event), encoding="utf-8")
    return {
        **gh.env(token),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(tmp / f"{name}.event.json"),
        "GITHUB_STEP_SUMMARY": str(tmp / f"{name}.summary.md"),
        "GITHUB_OUTPUT": str(tmp / f"{name}.output"),
    }


def fork_event(pr) -> dict:
    data = copy.deepcopy(load_event("pull_request_opened_fork"))
    data["number"] = pr.number
    p = data["pull_request"]
    p["number"] = pr.number
    p["head"]["sha"] = pr.head_sha
    p["head"]["repo"]["full_name"] = pr.head_repo
    p["base"]["sha"] = pr.base_sha
    return data


def test_fork_pair_in_two_fresh_processes_posts_one_review(tmp_path):
    with LoopbackGitHub() as gh:
        pr = gh.add_pull(changes={README: (None, BROKEN)}, fork="contributor")

        # the unprivileged `pull_request` run: check, write the findings file, post nothing
        ws = checkout(gh, pr.head_sha, tmp_path / "ws")
        env = runner_env(gh, tmp_path, "check", "pull_request", fork_event(pr), gh.READ_TOKEN)
        env["GITHUB_WORKSPACE"] = str(ws)
        out = tmp_path / "artifact" / "perfbot-findings.json"
        check = run_perfbot(["review", f"--findings-out={out}"], env, ws)
        assert check.returncode == 1, check.stderr
        assert gh.reviews == [] and gh.issue_comments == [] and out.exists()

        # the privileged `workflow_run` job: no checkout, only the file, in another process
        run = {
            "id": 42,
            "event": "pull_request",
            "conclusion": "failure",
            "head_sha": pr.head_sha,
            "head_repository": {"full_name": pr.head_repo},
            "pull_requests": [],
        }
        event = {"action": "completed", "workflow_run": run}
        empty = tmp_path / "post-ws"
        empty.mkdir()
        env = runner_env(gh, tmp_path, "post", "workflow_run", event, gh.WRITE_TOKEN)
        env["GITHUB_WORKSPACE"] = str(empty)
        post = run_perfbot(["post", "--findings", str(out)], env, empty)
        assert post.returncode == 0, post.stderr
        assert "unknown rule" not in post.stderr

        (review,) = gh.reviews
        assert review["commit_id"] == pr.head_sha
        comments = gh.comments_on(pr.number)
        assert [c["line"] for c in comments] == [7, 15, 16, 17]
        fixed = apply_like_github(BROKEN, comments)
        assert not [f for f in check_source(Source.from_text(fixed)).findings if f.fixable]
        assert len(gh.issue_comments) == 1  # the summary
        assert gh.schema_errors == [] and gh.unhandled == []


def test_the_rule_registry_is_complete_in_a_fresh_process():
    code = (
        "from perfbot.registry import get_rule\n"
        "import perfbot.github.review\n"
        "r = get_rule('PB401')\n"
        "print(r.id if r else None, get_rule('img-s-mismatch') is r)\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert got.stdout.split() == ["PB401", "True"], got.stderr


def test_rerun_command_plan_bench_report_in_fresh_processes(tmp_path):
    import yaml

    from test_rerun_e2e import BASE_README, CONFIG, mindspore_python, read_outputs
    from test_rerun_e2e import README as RERUN_README

    python = mindspore_python(tmp_path / "ms-2.3.1", "2.3.1")  # the README's MindSpore
    config = {
        "benchmarks": [
            {**b, "python": python}
            for b in CONFIG["benchmarks"]
            if b["name"] in ("dit-1p", "dit-8p")
        ]
    }
    with LoopbackGitHub() as gh:
        gh.set_permission("maintainer", "maintain")
        gh.set_contents(
            "main",
            ".perfbot.yml",
            "rerun: {runners: [[self-hosted, ascend], [self-hosted, ascend, 8p]]}\n",
        )
        head = BASE_README + "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.93 | 550.54 |\n"
        pr = gh.add_pull(
            changes={RERUN_README: (BASE_README, head)},
            contents={".perfbot.yml": yaml.safe_dump(config)},
        )

        # gate: `perfbot command` on the comment's event (no checkout)
        comment = gh.add_issue_comment(1, "/perfbot rerun", user="maintainer")
        event = load_event("issue_comment_created")
        event["comment"].update(id=comment["id"], body=comment["body"])
        event["comment"]["user"]["login"] = event["sender"]["login"] = "maintainer"
        env = runner_env(gh, tmp_path, "gate", "issue_comment", event, gh.WRITE_TOKEN)
        (tmp_path / "gate.output").write_text("")
        gate_dir = tmp_path / "gate"
        gate_dir.mkdir()
        got = run_perfbot(["command", "--config", ".perfbot.yml"], env, gate_dir)
        assert got.returncode == 0, got.stderr
        gate = read_outputs((tmp_path / "gate.output").read_text())
        assert gate["run"] == "true" and gate["sha"] == pr.head_sha
        matrix = json.loads(gate["matrix"])

        # plan, on a checkout of the pinned sha: the same jobs as the gate's matrix
        work = checkout(gh, gate["sha"], tmp_path / "runner")
        plan = run_perfbot(["plan", "--config", ".perfbot.yml"], {}, work)
        assert plan.returncode == 0, plan.stderr
        assert [j["name"] for j in json.loads(plan.stdout)["include"]] == [
            j["name"] for j in matrix["include"]
        ]

        # bench: one process per matrix entry
        results = tmp_path / "results"
        for job in matrix["include"]:
            argv = ["bench", "--config", ".perfbot.yml", "--name", job["name"],
                    "--out", str(results / f"{job['name']}.json"), "--quiet"]  # fmt: skip
            b = run_perfbot(argv, {"GITHUB_SHA": gate["sha"]}, work)
            assert b.returncode == 0, b.stderr

        # report: merges the results and posts one review
        env = runner_env(gh, tmp_path, "report", "issue_comment", event, gh.WRITE_TOKEN)
        del env["GITHUB_OUTPUT"]
        argv = ["report", "--results", str(results), "--pr", gate["pr"], "--sha", gate["sha"],
                "--matrix", gate["matrix"], "--config", ".perfbot.yml"]  # fmt: skip
        rep = run_perfbot(argv, env, gate_dir)
        assert rep.returncode == 0, rep.stderr
        (review,) = gh.reviews
        assert review["commit_id"] == gate["sha"]
        assert "2 of 2 benchmarks measured" in review["body"]
        assert gh.schema_errors == [] and gh.unhandled == []
