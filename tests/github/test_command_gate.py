"""The `/perfbot` gate, through the GitHub fake: who may make code run on the Ascend runners.

Each test posts a comment in the fake, writes the `issue_comment` event for it, runs
`perfbot command` (`command_main`) and reads `$GITHUB_OUTPUT`, the replies and the reactions.
"""

import json

import pytest

from github_fake import load_event
from perfbot.github.client import Client
from perfbot.github.command import approval_marker, command_main

README = "configs/dit/README.md"
OLD = (
    "# DiT\n\n| model name | cards | s/step | img/s |\n|---|---|---|---|\n"
    "| dit | 1 | 0.89 | 71.91 |\n"
)
NEW = OLD + "| dit | 8 | 0.93 | 550.54 |\n"
CONFIG = """\
benchmarks:
  - name: dit-1p
    readme: configs/dit/README.md
    row: {model name: dit, cards: 1}
    command: [python, train.py, --steps, "50"]
    cards: 1
    batch_size: 64
  - name: dit-8p
    readme: configs/dit/README.md
    row: {model name: dit, cards: 8}
    command: [msrun, --worker_num=8, python, train.py]
    cards: 8
    batch_size: 64
    runs_on: [self-hosted, ascend, 8p]
  - name: vit-1p
    readme: configs/vit/README.md
    row: 1
    command: [python, train.py]
    cards: 1
    batch_size: 32
"""


@pytest.fixture(autouse=True)
def no_write_spacing(monkeypatch):
    monkeypatch.setattr(Client, "write_interval", None)


@pytest.fixture
def world(gh):
    gh.set_contents("main", ".perfbot.yml", "rerun: {slower_threshold: 0.05}\n")
    gh.set_permission("maintainer", "maintain")
    return gh


def open_pull(gh, **kw):
    return gh.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": CONFIG}, **kw)


def run_command(gh, tmp_path, monkeypatch, body, *, user="maintainer", number=1, action="created",
                user_type="User", on_issue=False, argv=(), association="MEMBER"):  # fmt: skip
    """Post ``body`` as ``user`` and run `perfbot command` on its event; returns
    (exit code, outputs, the comment)."""
    comment = gh.add_issue_comment(number, body, user=user, user_type=user_type)
    event = load_event("issue_comment_created")
    event["action"] = action
    event["issue"]["number"] = number
    if on_issue:
        del event["issue"]["pull_request"]
    event["comment"].update(id=comment["id"], body=body, author_association=association)
    for who in (event["comment"]["user"], event["sender"]):
        who.update(login=user, type=user_type)
    path = tmp_path / f"event-{comment['id']}.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    out = tmp_path / f"output-{comment['id']}"
    out.write_text("", encoding="utf-8")
    for k, v in gh.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issue_comment")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    code = command_main(["--config", ".perfbot.yml", *argv])
    return code, read_outputs(out.read_text(encoding="utf-8")), comment


def read_outputs(text):
    out, lines = {}, iter(text.splitlines())
    for line in lines:
        key, _, delim = line.partition("<<")
        value = []
        for v in lines:
            if v == delim:
                break
            value.append(v)
        out[key] = "\n".join(value)
    return out


def reactions(gh, comment):
    return [r["content"] for r in gh.reactions if r["subject"] == ("issue_comment", comment["id"])]


def replies(gh):
    return [c["body"] for c in gh.issue_comments if c["user"] == "github-actions[bot]"]


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        ("none", False),
        ("read", False),
        ("triage", False),
        ("write", True),
        ("maintain", True),
        ("admin", True),
    ],
)
def test_permission_levels(world, tmp_path, monkeypatch, role, allowed):
    pr = open_pull(world)
    world.set_permission("alice", role)
    code, out, comment = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", user="alice")
    assert code == 0 and world.schema_errors == []
    if allowed:
        assert out["run"] == "true" and out["sha"] == pr.head_sha and out["pr"] == "1"
        matrix = json.loads(out["matrix"])
        assert matrix == {
            "include": [
                {"name": "dit-1p", "readme": README, "runs-on": ["self-hosted", "ascend"]},
                {"name": "dit-8p", "readme": README, "runs-on": ["self-hosted", "ascend", "8p"]},
            ]
        }
        assert json.loads(out["targets"]) == ["dit-1p", "dit-8p"]
        assert reactions(world, comment) == ["eyes", "rocket"]
        assert replies(world) == []
    else:
        assert out == {"run": "false"}
        assert reactions(world, comment) == ["confused"]
        (reply,) = replies(world)
        assert reply.startswith("@alice perfbot did not run this: `/perfbot rerun` needs `write`")
        assert f"`alice` has `{role}`" in reply


def test_author_association_alone_is_not_enough(world, tmp_path, monkeypatch):
    open_pull(world)
    world.set_permission("outsider", "read")
    code, out, _ = run_command(
        world, tmp_path, monkeypatch, "/perfbot rerun", user="outsider", association="OWNER"
    )
    assert code == 0 and out["run"] == "false"
    assert world.calls("GET", "/collaborators/outsider/permission")


def test_the_minimum_permission_comes_from_the_base_branch_not_the_pull_request(
    world, tmp_path, monkeypatch
):
    world.set_contents("main", ".perfbot.yml", "rerun: {min_permission: maintain}\n")
    world.add_pull(
        changes={README: (OLD, NEW)},
        contents={".perfbot.yml": CONFIG + "rerun: {min_permission: read}\n"},
    )
    world.set_permission("writer", "write")
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", user="writer")
    assert out["run"] == "false" and "needs `maintain` access" in replies(world)[0]
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", user="maintainer")
    assert out["run"] == "true"


# --- forks --------------------------------------------------------------------------------


def test_fork_without_approval_is_refused(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    code, out, comment = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert code == 0 and out == {"run": "false"}
    assert reactions(world, comment) == ["confused"]
    (reply,) = replies(world)
    assert "comes from a fork" in reply and f"`/perfbot ok-to-test {pr.head_sha[:12]}`" in reply
    # nothing was read from the fork's head: no config, no files
    assert not [c for c in world.calls("GET") if pr.head_sha in c.url]


def test_fork_with_approval_of_the_head_runs_it(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    _, out, ok = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha[:7]}")
    assert out == {"run": "false"} and reactions(world, ok) == ["eyes"]
    (reply,) = replies(world)
    assert f"allowed benchmarks to run on commit `{pr.head_sha[:12]}`" in reply
    assert approval_marker(pr.head_sha, "maintainer", ok["id"]) in reply
    _, out, rerun = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out["run"] == "true" and out["sha"] == pr.head_sha
    assert [e["name"] for e in json.loads(out["matrix"])["include"]] == ["dit-8p"]
    assert reactions(world, rerun) == ["eyes", "rocket"]
    assert world.schema_errors == []


def test_fork_approval_of_an_older_sha_does_not_cover_a_new_push(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    old = pr.head_sha
    run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test")
    new = world.push(1, changes={README: NEW + "| dit | 4 | 1.03 | 248.52 |\n"},
                     contents={".perfbot.yml": CONFIG})  # fmt: skip
    _, out, comment = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out == {"run": "false"} and reactions(world, comment) == ["confused"]
    reply = replies(world)[-1]
    assert f"`/perfbot ok-to-test {new[:12]}`" in reply
    assert f"the approval of `{old[:12]}` does not cover the commits pushed since" in reply
    # approving with the old sha after the push is refused too
    _, out, comment = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {old}")
    assert out == {"run": "false"} and "is now `" + new[:12] in replies(world)[-1]


def test_an_approval_counts_only_while_the_approver_may_approve(world, tmp_path, monkeypatch):
    open_pull(world, fork="contributor")
    world.set_permission("former", "write")
    run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test", user="former")
    world.set_permission("former", "read")  # access revoked since
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out["run"] == "false" and "comes from a fork" in replies(world)[-1]


def test_forged_approvals_do_not_count(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    # the contributor writes the marker themselves
    mine = world.add_issue_comment(1, "nice", user="contributor")
    world.add_issue_comment(1, approval_marker(pr.head_sha, "maintainer", mine["id"]),
                            user="contributor")  # fmt: skip
    # a bot (another workflow echoing comments) carries a marker naming a comment that is not
    # the maintainer's ok-to-test
    world.add_issue_comment(
        1, "echo: " + approval_marker(pr.head_sha, "maintainer", mine["id"]),
        user="github-actions[bot]", user_type="Bot",
    )  # fmt: skip
    plain = world.add_issue_comment(1, "/perfbot rerun", user="maintainer")
    world.add_issue_comment(
        1, approval_marker(pr.head_sha, "maintainer", plain["id"]),
        user="github-actions[bot]", user_type="Bot",
    )  # fmt: skip
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out["run"] == "false" and "comes from a fork" in replies(world)[-1]


def test_ok_to_test_needs_permission_and_is_not_needed_for_branches_of_the_repo(
    world, tmp_path, monkeypatch
):
    open_pull(world, fork="contributor")
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test", user="contributor")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert "`/perfbot ok-to-test` needs `write` access" in replies(world)[-1]
    assert "perfbot:ok-to-test" not in replies(world)[-1]
    world.add_pull(2, changes={README: (OLD, NEW)}, contents={".perfbot.yml": CONFIG})
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test", number=2)
    assert out == {"run": "false"} and reactions(world, c) == ["eyes"]
    assert "no approval needed" in replies(world)[-1]


# --- comments that are not for the gate -------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"action": "edited"},
        {"action": "deleted"},
        {"user": "github-actions[bot]", "user_type": "Bot"},
        {"user": "renovate[bot]", "user_type": "Bot"},
        {"on_issue": True},
    ],
)
def test_edited_bot_and_issue_comments_are_ignored_without_a_request(
    world, tmp_path, monkeypatch, kw
):
    open_pull(world)
    before = len(world.requests)
    code, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", **kw)
    assert code == 0 and out == {"run": "false"}
    assert world.requests[before:] == []


def test_comments_not_for_perfbot_are_ignored_without_a_request(world, tmp_path, monkeypatch):
    open_pull(world)
    before = len(world.requests)
    _, out, _ = run_command(world, tmp_path, monkeypatch, "LGTM, but /perfbot rerun later")
    assert out == {"run": "false"} and world.requests[before:] == []


def test_invalid_commands_get_the_usage_and_help_gets_it_too(world, tmp_path, monkeypatch):
    open_pull(world)
    world.set_permission("stranger", "none")
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit; rm -rf ~",
                            user="stranger")  # fmt: skip
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    reply = replies(world)[-1]
    assert "`dit;` is not a README path" in reply and "How to use perfbot" in reply
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot help", user="stranger")
    assert out == {"run": "false"} and reactions(world, c) == ["eyes"]
    assert "`/perfbot rerun [TARGET ...] [KEY=VALUE ...]`" in replies(world)[-1]
    assert world.schema_errors == []


# --- what runs ------------------------------------------------------------------------------


def test_targets_and_keys_select_benchmarks(world, tmp_path, monkeypatch):
    open_pull(world)
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit cards=8")
    assert json.loads(out["targets"]) == ["dit-8p"]
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun configs/vit vit-1p")
    assert json.loads(out["targets"]) == ["vit-1p"]
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun vit-1p sdxl")
    assert json.loads(out["targets"]) == ["vit-1p"] and reactions(world, c) == ["eyes", "rocket"]
    assert "`sdxl` matched no benchmark" in replies(world)[-1]
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit kind=inference")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert "no benchmark matches `dit` with `kind=inference`" in replies(world)[-1]


def test_without_targets_the_changed_readmes_decide(world, tmp_path, monkeypatch):
    world.add_pull(changes={"docs/index.md": ("a\n", "b\n")}, contents={".perfbot.yml": CONFIG})
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out == {"run": "false"}
    assert "changes no README that has a benchmark" in replies(world)[-1]
    assert "`/perfbot rerun dit-1p`" in replies(world)[-1]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, "declares no `benchmarks:`"),
        ("benchmarks: [{name: x}]\n", "benchmarks[0] (x): readme: missing (required)"),
        ("benchmarks: [\n", "is not valid YAML"),
    ],
)
def test_a_broken_config_at_the_head_is_explained(world, tmp_path, monkeypatch, config, message):
    world.add_pull(
        changes={README: (OLD, NEW)}, contents={".perfbot.yml": config} if config else None
    )
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert message in replies(world)[-1]


def test_github_failures_exit_2_and_dispatch_nothing(world, tmp_path, monkeypatch, capsys):
    open_pull(world)
    world.fail_next("GET", "/pulls/1", 404)
    code, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert code == 2 and out == {"run": "false"}
    assert "perfbot command: error: GitHub:" in capsys.readouterr().err
