"""action.yml (a composite action), the Dockerfile (the same perfbot as an image, for other CI
systems) and the example workflows. The action's review step runs here through bash, as the
runner runs it, with a stand-in `perfbot` that hands its arguments to ``perfbot.cli.main``; the
whole action and every example workflow run end to end through act in tests/act/."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import review_kit
import yaml
from review_kit import BROKEN, README

from perfbot.github.review import _review_parser

action = review_kit.action  # the fixture

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {s["id"]: s for s in ACTION["runs"]["steps"]}
WORKFLOWS = ROOT / "examples" / "workflows"
INPUTS = ["github-token", "config", "paths", "fail-on", "filter-mode", "max-comments", "sarif-file"]
EXPR = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")
# a `perfbot` that prints the arguments it was given, one JSON list
ECHO = f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n"


def test_a_composite_action_that_installs_then_reviews():
    assert ACTION["runs"]["using"] == "composite"
    assert list(STEPS) == ["install", "review"]
    install = STEPS["install"]
    assert install["env"]["PERFBOT_SRC"] == "${{ github.action_path }}"
    assert "setup/install.sh" in install["run"]
    assert STEPS["review"]["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    assert ACTION["name"] and ACTION["description"] and ACTION["branding"]


def review_argv(tmp_path: Path, **given: str) -> list[str]:
    """The arguments `perfbot` gets from the review step, its env evaluated as the runner does
    (each ``${{ inputs.x }}`` replaced by the input's value) and its script run by bash."""
    values = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    values.update(given)
    step = STEPS["review"]
    env = {k: EXPR.sub(lambda m: values[m[1]], str(v)) for k, v in step["env"].items()}
    runner_temp = tmp_path / "runner-temp"
    stub = runner_temp / "perfbot-action-bin" / "perfbot"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text(ECHO)
    stub.chmod(0o755)
    got = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env={"PATH": os.environ["PATH"], "RUNNER_TEMP": str(runner_temp), **env},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(got.stdout)


def test_inputs_have_descriptions_and_defaults():
    inputs = ACTION["inputs"]
    assert set(INPUTS) <= set(inputs)
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["fail-on"]["default"] == "error"
    for name, spec in inputs.items():
        assert spec.get("description"), name
        assert "default" in spec, name
        assert not spec.get("required"), name


def test_every_input_reaches_perfbot_review(tmp_path):
    inputs = set(ACTION["inputs"]) - {"github-token", "python"}  # env / the install step
    given = {name: f"value of {name}\nwith a second line and $HOME" for name in inputs}
    argv = review_argv(tmp_path, **given)
    assert argv[0] == "review"
    mapped = dict(a.partition("=")[::2] for a in argv[1:])
    assert set(mapped) == {"--" + name for name in inputs}
    for name in inputs:
        assert mapped["--" + name] == given[name]  # one argument each, never shell code
    known = {o for a in _review_parser()._actions for o in a.option_strings}
    assert set(mapped) <= known


def test_outputs_are_documented_and_written(gh, action):
    assert set(ACTION["outputs"]) == {"findings", "errors", "fixable"}
    assert all(spec["description"] for spec in ACTION["outputs"].values())
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.review.outputs.{name} }}}}"
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(pr)
    assert set(r.outputs) == set(ACTION["outputs"])


def test_inputs_and_outputs_are_in_the_docs():
    docs = (ROOT / "docs" / "github-action.md").read_text()
    for name in [*ACTION["inputs"], *ACTION["outputs"]]:
        assert f"`{name}`" in docs, name
    readme = (ROOT / "README.md").read_text()
    assert "uses: OWNER/perfbot@PERFBOT_SHA" in readme and "docs/github-action.md" in readme


def test_dockerfile_is_small_and_conventional():
    text = (ROOT / "Dockerfile").read_text()
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert re.fullmatch(r"FROM python:3\.11[0-9.]*-slim[a-z-]*@sha256:[0-9a-f]{64}", lines[0])
    assert 'ENTRYPOINT ["perfbot"]' in lines
    # dependencies only from the hashed lock file, then perfbot itself without resolving anything
    assert any("pip install --no-deps --require-hashes -r" in ln and "action.lock" in ln
               for ln in lines)  # fmt: skip
    assert any("pip install --no-deps --no-build-isolation --no-index" in ln for ln in lines)
    # GitHub runs Docker actions as root in /github/workspace: no USER or WORKDIR
    assert not any(ln.split()[0] in ("USER", "WORKDIR") for ln in lines)
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    for needed in ("!pyproject.toml", "!README.md", "!src/", "!requirements/action.lock"):
        assert needed in ignore
    for copied in re.findall(r"^COPY (.+) \S+$", text, re.MULTILINE):
        for path in copied.split():
            assert (ROOT / path).exists(), path


def test_the_review_step_with_default_inputs(gh, action, tmp_path):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    ws = action.workspace(pr)
    summary, output = action.env(event=action.event(pr), workspace=ws)
    argv = review_argv(tmp_path)
    assert argv[0] == "review" and "--fail-on=error" in argv and "--config=" in argv
    r = action.call(argv, summary, output)  # perfbot.cli.main(["review", ...])
    assert r.rc == 1
    assert len(gh.reviews) == 1 and len(gh.review_comments) == 4
    assert r.outputs == {"findings": "6", "errors": "2", "fixable": "6"}
    assert "## perfbot review" in r.summary
    assert "::error file=configs/toynet/README.md" in r.out


def test_the_review_step_with_every_input(gh, action, tmp_path):
    pr = gh.add_pull(
        changes={README: (None, BROKEN)},
        contents={"ci/perfbot.yml": "rules:\n  PB504: off\n"},
    )
    ws = action.workspace(pr)
    summary, output = action.env(event=action.event(pr), workspace=ws)
    argv = review_argv(
        tmp_path,
        config="ci/perfbot.yml",
        paths="configs/**/README.md\nother/README.md",
        **{
            "fail-on": "never",
            "filter-mode": "added",
            "max-comments": "1",
            "sarif-file": "out/perfbot.sarif",
            "findings-out": "out/findings.json",
        },
    )
    r = action.call(argv, summary, output)
    assert r.rc == 0
    assert len(gh.review_comments) == 1  # max-comments
    assert "PB504" not in str(gh.issue_comments)  # the config turned it off
    assert (ws / "out" / "perfbot.sarif").is_file() and (ws / "out" / "findings.json").is_file()


def test_fork_check_workflow_name_matches_the_post_trigger():
    check = yaml.safe_load((WORKFLOWS / "perfbot-fork-check.yml").read_text())
    post = yaml.safe_load((WORKFLOWS / "perfbot-fork-post.yml").read_text())
    assert post[True]["workflow_run"]["workflows"] == [check["name"]]
