"""`/perfbot rerun` end to end, through the GitHub fake and the fake trainers.

comment -> gate (`perfbot command`) -> plan (its matrix) -> bench (`perfbot bench` on a checkout
of exactly the pinned sha, one job per matrix entry) -> report (`perfbot report`) -> a review
whose suggestions, applied, give a README that `perfbot check` passes. The workflow in
examples/workflows/ is checked for the same shape.
"""

# ruff: noqa: E501 - the fixtures are whole README table rows

import json
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from github_fake import GitHubFake, load_event
from perfbot.cli import main as perfbot
from perfbot.github.client import Client
from perfbot.github.command import command_main
from perfbot.rerun.report import report_main
from perfbot.runner import integrity
from perfbot.runner.bench import bench_main

ROOT = Path(__file__).resolve().parent.parent
TRAINERS = Path(__file__).parent / "runner" / "fake_trainers"
WORKFLOW = ROOT / "examples" / "workflows" / "perfbot-rerun.yml"
README = "configs/dit/README.md"

HEAD_README = """\
# DiT

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

### Training

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |
| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.93 | 550.54 |

### Inference

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | scheduler | steps | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 4 | 256x256 | ddim | 50 | O2 | 1~2 mins | 0.08 | 1.00 |
"""
# the pull request adds the 8-card row and the inference table; the 1-card row was there
BASE_README = HEAD_README.split("| dit | 8 |")[0]


def trainer(*args: str) -> list[str]:
    return [sys.executable, str(TRAINERS / "fake_trainer.py"), *args]


CONFIG = {
    "benchmarks": [
        {
            "name": "dit-1p",
            "readme": README,
            "row": {"model name": "dit", "cards": 1, "recompute": "OFF"},
            "command": trainer("--format", "mindone", "--steps", "80", "--step-time", "0.95",
                               "--noise", "0.01", "--compile", "400"),
            "cards": 1,
            "batch_size": 64,
        },
        {
            "name": "dit-8p",
            "readme": README,
            "row": {"model name": "dit", "cards": 8, "recompute": "ON"},
            "command": trainer("--format", "mindone_result", "--result", "result.log",
                               "--steps", "80", "--step-time", "0.93", "--noise", "0.01",
                               "--compile", "200"),
            "log": "result.log",
            "cards": 8,
            "batch_size": 64,
            "runs_on": ["self-hosted", "ascend", "8p"],
        },
        {
            "name": "dit-infer",
            "readme": README,
            "row": 3,
            "command": trainer("--format", "regex", "--steps", "60", "--step-time", "0.071",
                               "--noise", "0.01", "--compile", "40"),
            "regex": r"iter (?P<step>\d+) took (?P<ms>[\d.]+) ms",
            "cards": 1,
            "batch_size": 4,
            "inference": True,
            "sampling_steps": 50,
        },
        {
            "name": "dit-crash",
            "readme": README,
            "row": {"model name": "dit", "cards": 8},
            "command": [sys.executable, str(TRAINERS / "crash.py")],
            "cards": 8,
            "batch_size": 64,
        },
    ]
}  # fmt: skip


def read_outputs(text: str) -> dict[str, str]:
    out, lines = {}, iter(text.splitlines())
    for line in lines:
        key, _, delim = line.partition("<<")
        out[key] = "\n".join(iter(lambda: next(lines), delim))
    return out


def comments_of(fake, review_id: int) -> list[dict]:
    return [c for c in fake.review_comments if c["review_id"] == review_id]


def checkout(fake, sha: str, where: Path) -> Path:
    """What actions/checkout gives the bench job: every file of the repository at ``sha``."""
    for (at, path), data in fake.blobs.items():
        if at == sha:
            (where / path).parent.mkdir(parents=True, exist_ok=True)
            (where / path).write_bytes(data)
    return where


@pytest.fixture
def fake():
    with GitHubFake() as f:
        yield f


def mindspore_python(where: Path, version: str) -> str:
    """A venv-shaped interpreter whose installed packages include MindSpore ``version`` (its
    metadata only): the benchmark's MindSpore is read from the benchmark's interpreter."""
    ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    dist = where / "lib" / f"python{ver}" / "site-packages" / f"mindspore-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Name: mindspore\nVersion: {version}\n", encoding="utf-8")
    (where / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {ver}\n", encoding="utf-8")
    (where / "bin").mkdir()
    (where / "bin" / "python").symlink_to(sys.executable)
    return str(where / "bin" / "python")


def test_comment_to_review_whose_suggestions_pass_perfbot_check(fake, tmp_path, monkeypatch):
    python = mindspore_python(tmp_path / "ms-2.3.1", "2.3.1")  # the README's version
    config = {"benchmarks": [{**b, "python": python} for b in CONFIG["benchmarks"]]}
    monkeypatch.setattr(Client, "write_interval", None)
    monkeypatch.setattr(integrity, "WALL_CHECK", False)  # the fake trainer's clock is simulated
    for k, v in fake.env().items():
        monkeypatch.setenv(k, v)
    fake.set_contents("main", ".perfbot.yml", "rerun: {slower_threshold: 0.05, noisy_cv: 0.05, "
                      "runners: [[self-hosted, ascend], [self-hosted, ascend, 8p]]}\n")  # fmt: skip
    fake.set_permission("maintainer", "maintain")
    pr = fake.add_pull(
        changes={README: (BASE_README, HEAD_README)},
        contents={".perfbot.yml": yaml.safe_dump(config)},
    )

    # 1. a maintainer comments; the gate pins the head and plans the jobs
    comment = fake.add_issue_comment(1, "/perfbot rerun", user="maintainer")  # the changed READMEs
    event = load_event("issue_comment_created")
    event["comment"].update(id=comment["id"], body=comment["body"])
    event["comment"]["user"]["login"] = event["sender"]["login"] = "maintainer"
    (tmp_path / "event.json").write_text(json.dumps(event), encoding="utf-8")
    (tmp_path / "gate.out").write_text("", encoding="utf-8")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issue_comment")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "gate.out"))
    assert command_main(["--config", ".perfbot.yml"]) == 0
    gate = read_outputs((tmp_path / "gate.out").read_text(encoding="utf-8"))
    assert gate["run"] == "true" and gate["sha"] == pr.head_sha and gate["pr"] == "1"
    matrix = json.loads(gate["matrix"])
    assert [(j["name"], j["runs-on"]) for j in matrix["include"]] == [
        ("dit-1p", ["self-hosted", "ascend"]),
        ("dit-8p", ["self-hosted", "ascend", "8p"]),
        ("dit-infer", ["self-hosted", "ascend"]),
        ("dit-crash", ["self-hosted", "ascend"]),
    ]
    reacted = [
        r["content"] for r in fake.reactions if r["subject"] == ("issue_comment", comment["id"])
    ]
    assert reacted == ["eyes", "rocket"]

    # 2. the contributor pushes meanwhile: the benchmarks still measure the pinned commit
    fake.push(1, changes={"docs/later.md": (None, "later\n"), README: HEAD_README},
            contents={".perfbot.yml": "benchmarks: []\n"})  # fmt: skip

    # 3. one bench job per matrix entry, each on a checkout of exactly the pinned sha
    results = tmp_path / "results"
    monkeypatch.setenv("GITHUB_SHA", gate["sha"])  # what the runner's checkout reports
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # not the repo around /tmp
    for job in matrix["include"]:
        work = checkout(fake, gate["sha"], tmp_path / f"runner-{job['name']}")
        code = bench_main(["--config", str(work / ".perfbot.yml"), "--name", job["name"],
                           "--out", str(results / f"{job['name']}.json"), "--quiet"])  # fmt: skip
        assert code == (1 if job["name"] == "dit-crash" else 0)

    # 4. the report job merges the results and posts one review
    monkeypatch.delenv("GITHUB_OUTPUT")
    argv = ["--results", str(results), "--pr", gate["pr"], "--sha", gate["sha"],
            "--matrix", gate["matrix"], "--config", ".perfbot.yml"]  # fmt: skip
    assert report_main(argv) == 1  # dit-crash did not finish
    assert fake.schema_errors == [] and fake.unhandled == []
    (review,) = fake.reviews
    assert review["commit_id"] == gate["sha"]
    body = review["body"]
    assert body.startswith(f"### perfbot rerun at `{gate['sha'][:7]}`: 3 of 4 benchmarks measured")
    assert "| benchmark | row | s/step | change | img/s | graph compile | CV | |" in body
    assert re.search(r"\| `dit-1p` \| .*`0\.89` → `0\.95` \| \+6\.\d % \| `71\.91` → `67\.\d\d` "
                     r"\| `3~5 mins` → `7 mins` \| \d\.\d % \| ⚠️ slower \|", body)  # fmt: skip
    assert "- `dit-crash`: **failed**: `the command exited with code 1 (partial: " in body
    assert "RuntimeError: Out of memory on device 0 (fake)" in body
    # the pull request moved on after the gate: the rows are shown in the body
    assert "has moved on to" in body and "```diff" in body

    # 5. the same run, before the push: one suggestion per changed row
    fake.reviews.clear()
    fake.pulls[1].shas.pop()  # back to the pinned head
    assert report_main(argv) == 1
    (review,) = fake.reviews
    comments = comments_of(fake, review["id"])
    n_comments = len(fake.review_comments)
    assert [c["line"] for c in comments] == [17, 18, 26]
    lines = HEAD_README.splitlines(keepends=True)
    for c in comments:
        (new,) = re.findall(r"```suggestion\n(.*)\n```", c["body"])
        lines[c["line"] - 1] = new + "\n"
    fixed = tmp_path / "applied" / README
    fixed.parent.mkdir(parents=True)
    fixed.write_text("".join(lines), encoding="utf-8")
    assert perfbot(["check", str(fixed), "--fail-on", "info"]) == 0
    assert "| 0.95 |" in lines[16] and "| 50 | O2 | 1~2 mins | 0.07 | 1.13 |" in lines[25]

    # 6. "Re-run failed jobs" runs the report job again on the same results: nothing new
    assert report_main(argv) == 1
    assert [r["id"] for r in fake.reviews] == [review["id"]]
    assert len(fake.review_comments) == n_comments
    # 7. dit-1p is measured again at the same commit: the new review replaces the old one
    # (the fake trainer is seeded, so the new result differs by its start time only: let the
    # clock pass the first run's second)
    first_start = json.loads((results / "dit-1p.json").read_text(encoding="utf-8"))["started_at"]
    while datetime.now(UTC).isoformat(timespec="seconds") <= first_start:
        time.sleep(0.05)
    work = checkout(fake, gate["sha"], tmp_path / "runner-again")
    assert bench_main(["--config", str(work / ".perfbot.yml"), "--name", "dit-1p",
                       "--out", str(results / "dit-1p.json"), "--quiet"]) == 0  # fmt: skip
    assert report_main(argv) == 1
    old, new = fake.reviews
    assert fake.schema_errors == [] and fake.unhandled == []
    from perfbot.rerun.report import posted_reviews

    live = posted_reviews(Client(fake.repo, fake.WRITE_TOKEN, fake.api_url).reviews(1),
                          bot="github-actions[bot]", sha=gate["sha"])  # fmt: skip
    assert [p.id for p in live] == [new["id"]]
    assert "**superseded** by [a newer review]" in old["body"]
    assert all("```suggestion" not in c["body"] for c in comments_of(fake, old["id"]))
    assert len(comments_of(fake, new["id"])) == 3


def test_the_example_workflow_has_the_gate_bench_report_shape():
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert wf[True] == {"issue_comment": {"types": ["created"]}}  # YAML reads `on:` as True
    assert wf["permissions"] == {}
    gate, bench, report = (wf["jobs"][k] for k in ("gate", "bench", "report"))
    assert gate["runs-on"] == "ubuntu-latest" and report["runs-on"] == "ubuntu-latest"
    assert set(gate["outputs"]) == {"run", "sha", "pr", "matrix", "targets"}
    assert not any("actions/checkout" in s.get("uses", "") for s in gate["steps"] + report["steps"])
    assert bench["needs"] == "gate" and "needs.gate.outputs.run == 'true'" in bench["if"]
    assert bench["strategy"]["matrix"] == "${{ fromJSON(needs.gate.outputs.matrix) }}"
    assert bench["runs-on"] == "${{ matrix.runs-on }}"
    checkout_step = next(
        s for s in bench["steps"] if s.get("uses", "").startswith("actions/checkout")
    )
    assert checkout_step["with"] == {
        "ref": "${{ needs.gate.outputs.sha }}",
        "persist-credentials": False,
    }
    assert bench["permissions"] == {"contents": "read"}
    assert any("perfbot bench" in s.get("run", "") for s in bench["steps"])
    assert any("upload-artifact" in s.get("uses", "") for s in bench["steps"])
    assert report["needs"] == ["gate", "bench"] and report["if"].startswith("always()")
    assert any("download-artifact" in s.get("uses", "") for s in report["steps"])
    assert any("perfbot report" in s.get("run", "") for s in report["steps"])
    # no ${{ }} inside a script: values reach the shell as environment variables only
    for job in (gate, bench, report):
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step


@pytest.mark.parametrize("name", ["dit-1p"])
def test_plan_matrix_entries_are_what_the_workflow_reads(name):
    from perfbot.runner.plan import plan
    from perfbot.runner.spec import validate_benchmarks

    (entry,) = plan(validate_benchmarks(CONFIG["benchmarks"]), [name])["include"]
    assert set(entry) == {"name", "readme", "runs-on"}


VIT = "configs/vit/README.md"
VIT_README = """\
# ViT

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| vit_b32 | 8 | 512 | 224x224 | O2 | 4 mins | 0.59 | 6942.37 |
| vit_l16 | 8 | 48 | 224x224 | O2 | 5 mins | 0.31 | 1238.71 |

Notes: the numbers are medians of 200 steps.
"""
VIT_CONFIG = {"benchmarks": [
    {"name": "vit-b32", "readme": VIT, "row": {"model name": "vit_b32"}, "command": ["x"],
     "cards": 8, "batch_size": 512},
    {"name": "vit-l16", "readme": VIT, "row": {"model name": "vit_l16"}, "command": ["x"],
     "cards": 8, "batch_size": 48},
]}  # fmt: skip
ENV_271 = {"mindspore": "2.7.1", "cann": "8.3.RC1", "driver": "25.3.rc1", "firmware": "7.8.0.2.212"}


def vit_result(name: str, row: str, batch: int, s: float, compile_s: float, sha: str):
    from perfbot.runner.bench import BenchResult

    return BenchResult.model_validate({
        "name": name, "readme": VIT, "row": {"model name": row}, "status": "ok", "cards": 8,
        "batch_size": batch, "s_per_step": round(s, 6), "img_per_s": round(8 * batch / s, 6),
        "graph_compile_s": compile_s, "cv": 0.01, "steps_measured": 195, "commit": sha,
        "runner": "ascend-910b-03", "environment": ENV_271,
    })  # fmt: skip


def test_a_new_mindspore_version_gets_a_new_table_that_passes_perfbot_check(
    fake, tmp_path, monkeypatch
):
    import subprocess

    from perfbot.runner.bench import write_result

    monkeypatch.setattr(Client, "write_interval", None)
    for k, v in fake.env().items():
        monkeypatch.setenv(k, v)
    fake.set_contents("main", ".perfbot.yml", "")
    pr = fake.add_pull(changes={VIT: (None, VIT_README)},
                       contents={".perfbot.yml": yaml.safe_dump(VIT_CONFIG)})  # fmt: skip
    results = tmp_path / "results"
    write_result(vit_result("vit-b32", "vit_b32", 512, 0.6012345, 301.0, pr.head_sha),
                 results / "vit-b32.json")  # fmt: skip
    write_result(vit_result("vit-l16", "vit_l16", 48, 0.2987654, 250.0, pr.head_sha),
                 results / "vit-l16.json")  # fmt: skip
    argv = ["--results", str(results), "--pr", "1", "--sha", pr.head_sha]
    assert report_main(argv) == 0
    assert fake.schema_errors == [] and fake.unhandled == []
    (review,) = fake.reviews
    body = review["body"]
    assert "#### New MindSpore version" in body
    assert "new MindSpore 2.7.1 table" in body and "The Requirements table gets a row" in body
    comments = comments_of(fake, review["id"])
    suggested = {c["line"]: re.findall(r"```suggestion\n(.*?)\n```", c["body"], re.S)[0]
                 for c in comments}  # fmt: skip
    assert sorted(suggested) == [7, 16]  # after the Requirements row, after the last table row
    assert suggested[7].splitlines() == [
        "| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |",
        "| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |",  # the matrix's spelling of 25.3.rc1
    ]
    assert suggested[16].splitlines() == [
        "| vit_l16 | 8 | 48 | 224x224 | O2 | 5 mins | 0.31 | 1238.71 |",
        "",
        "Experiments are tested on ascend 910* with mindspore 2.7.1 graph mode.",
        "",
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |",
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|",
        "| vit_b32 | 8 | 512 | 224x224 | O2 | 6 mins | 0.60 | 6812.65 |",
        "| vit_l16 | 8 | 48 | 224x224 | O2 | 5 mins | 0.30 | 1285.29 |",
    ]
    # the suggestions applied: the 2.3.1 rows are untouched, and perfbot check passes
    lines = VIT_README.splitlines()
    for line in sorted(suggested, reverse=True):
        lines[line - 1 : line] = suggested[line].splitlines()
    applied = tmp_path / "applied" / VIT
    applied.parent.mkdir(parents=True)
    applied.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "| vit_b32 | 8 | 512 | 224x224 | O2 | 4 mins | 0.59 | 6942.37 |" in lines
    proc = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", str(applied), "--fail-on", "info"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
