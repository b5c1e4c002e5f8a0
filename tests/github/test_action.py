"""action.yml, the Dockerfile and the example workflows; the Docker entrypoint run outside Docker
with the arguments and environment the runner would give it."""

import re
from pathlib import Path

import pytest
import review_kit
import yaml
from review_kit import BROKEN, README

from perfbot.github.review import _review_parser

action = review_kit.action  # the fixture

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = ROOT / "examples" / "workflows"
INPUTS = ["github-token", "config", "paths", "fail-on", "filter-mode", "max-comments", "sarif-file"]
EXPR = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def test_a_docker_action_on_the_dockerfile():
    assert ACTION["runs"]["using"] == "docker"
    assert ACTION["runs"]["image"] == "Dockerfile"
    assert ACTION["runs"]["env"] == {"GITHUB_TOKEN": "${{ inputs.github-token }}"}
    assert ACTION["runs"]["args"][0] == "review"
    assert ACTION["name"] and ACTION["description"] and ACTION["branding"]


def test_inputs_have_descriptions_and_defaults():
    inputs = ACTION["inputs"]
    assert set(INPUTS) <= set(inputs)
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["fail-on"]["default"] == "error"
    for name, spec in inputs.items():
        assert spec.get("description"), name
        assert "default" in spec, name
        assert not spec.get("required"), name


def test_every_input_reaches_perfbot_review():
    args = ACTION["runs"]["args"][1:]
    mapped = {}
    for arg in args:
        flag, _, value = arg.partition("=")
        (name,) = EXPR.findall(value)
        mapped[name] = flag
    inputs = set(ACTION["inputs"]) - {"github-token"}  # the token goes through the environment
    assert set(mapped) == inputs
    known = {o for a in _review_parser()._actions for o in a.option_strings}
    assert set(mapped.values()) <= known
    for name, flag in mapped.items():
        assert flag == "--" + name, (name, flag)


def test_outputs_are_documented_and_written(gh, action):
    assert set(ACTION["outputs"]) == {"findings", "errors", "fixable"}
    assert all(spec["description"] for spec in ACTION["outputs"].values())
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


def with_inputs(**given: str) -> list[str]:
    """The container's arguments, as the runner evaluates action.yml's expressions."""
    values = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    values.update(given)
    return [EXPR.sub(lambda m: values[m[1]], a) for a in ACTION["runs"]["args"]]


def test_the_entrypoint_with_default_inputs(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    ws = action.workspace(pr)
    summary, output = action.env(event=action.event(pr), workspace=ws)
    argv = with_inputs()
    assert argv[0] == "review" and "--fail-on=error" in argv and "--config=" in argv
    r = action.call(argv, summary, output)  # perfbot.cli.main(["review", ...]), the ENTRYPOINT
    assert r.rc == 1
    assert len(gh.reviews) == 1 and len(gh.review_comments) == 4
    assert r.outputs == {"findings": "6", "errors": "2", "fixable": "6"}
    assert "## perfbot review" in r.summary
    assert "::error file=configs/toynet/README.md" in r.out


def test_the_entrypoint_with_every_input(gh, action, tmp_path):
    pr = gh.add_pull(
        changes={README: (None, BROKEN)},
        contents={"ci/perfbot.yml": "rules:\n  PB504: off\n"},
    )
    ws = action.workspace(pr)
    summary, output = action.env(event=action.event(pr), workspace=ws)
    argv = with_inputs(
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


@pytest.mark.parametrize(
    "name", ["perfbot.yml", "perfbot-fork-check.yml", "perfbot-fork-post.yml", "perfbot-sarif.yml"]
)
def test_example_workflows_parse(name):
    wf = yaml.safe_load((WORKFLOWS / name).read_text())
    assert wf["jobs"] and wf["permissions"] == {}  # each job asks for what it needs
    perms = {k: v for job in wf["jobs"].values() for k, v in job["permissions"].items()}
    on = wf[True]  # YAML reads the key `on` as true
    steps = [s for job in wf["jobs"].values() for s in job["steps"]]
    uses = [s.get("uses", "") for s in steps]
    if name == "perfbot.yml":
        assert "pull_request" in on and perms["pull-requests"] == "write"
        checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
        assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
        assert "OWNER/perfbot@PERFBOT_SHA" in uses
    elif name == "perfbot-fork-check.yml":
        assert "pull_request" in on and "pull_request_target" not in on
        step = next(s for s in steps if s.get("uses") == "OWNER/perfbot@PERFBOT_SHA")
        assert step["with"]["findings-out"] == "perfbot-findings.json"
        assert any(u.startswith("actions/upload-artifact") for u in uses)
    elif name == "perfbot-fork-post.yml":
        assert on["workflow_run"]["workflows"] == ["perfbot check"]
        # only the default branch is checked out (nothing from the fork), and the fork's
        # artifact is downloaded outside that checkout
        for s in steps:
            if s.get("uses", "").startswith("actions/checkout"):
                assert "ref" not in s.get("with", {}) and "path" not in s.get("with", {})
            if s.get("uses", "").startswith("actions/download-artifact"):
                assert s["with"]["path"].startswith("${{ runner.temp }}/")
        step = next(s for s in steps if s.get("uses") == "OWNER/perfbot@PERFBOT_SHA")
        assert step["with"]["findings"].endswith("perfbot-findings.json")
        assert any(u.startswith("actions/download-artifact") for u in uses)
    else:
        assert perms["security-events"] == "write"
        assert any("--format sarif" in s.get("run", "") for s in steps)
        assert any(u.startswith("github/codeql-action/upload-sarif") for u in uses)


def test_fork_check_workflow_name_matches_the_post_trigger():
    check = yaml.safe_load((WORKFLOWS / "perfbot-fork-check.yml").read_text())
    post = yaml.safe_load((WORKFLOWS / "perfbot-fork-post.yml").read_text())
    assert post[True]["workflow_run"]["workflows"] == [check["name"]]
