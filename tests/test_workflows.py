"""The example workflows, the actions, the Dockerfile and every install line in the docs: what a
maintainer copies must be safe as written (scripts/check_workflows.sh adds zizmor, actionlint and
the JSON schemas in .ci/run)."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
ACTIONS = [ROOT / "action.yml", ROOT / "setup" / "action.yml"]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHA_PIN = re.compile(r"^[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}$")
OURS = re.compile(r"^OWNER/perfbot(?:/setup)?@PERFBOT_SHA$")


def load(path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def jobs(path):
    return load(path)["jobs"].items()


def steps(path):
    for _, job in jobs(path):
        yield from job.get("steps", [])


def doc_snippets():
    """Every ```yaml block of the docs that holds a workflow or a job's steps."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```ya?ml\n(.*?)```", text, re.S)):
            if re.search(r"^\s*(- )?(uses|run):", block, re.M):
                out.append(pytest.param(block, id=f"{doc.name}-{i}"))
    return out


def test_there_are_workflows_to_check():
    assert len(WORKFLOWS) == 5 and all(a.is_file() for a in ACTIONS)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_has_a_timeout_and_its_own_least_permissions(path):
    assert load(path)["permissions"] == {}
    for name, job in jobs(path):
        assert isinstance(job.get("timeout-minutes"), int), name
        assert isinstance(job.get("permissions"), dict) and job["permissions"], name
        assert all(v in ("read", "write") for v in job["permissions"].values()), name


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTIONS[1]], ids=lambda p: p.name)
def test_every_action_is_pinned_by_commit_sha_with_a_version_comment(path):
    text = path.read_text(encoding="utf-8")
    used = re.findall(r"^\s*(?:- )?uses: (\S+)(.*)$", text, re.M)
    assert used or path.name == "action.yml"
    for ref, rest in used:
        assert SHA_PIN.match(ref) or OURS.match(ref), ref
        assert re.match(r"\s+# v\d", rest), f"{ref}: no version comment"


@pytest.mark.parametrize("path", [*WORKFLOWS, *ACTIONS], ids=lambda p: p.name)
def test_no_expression_inside_a_script(path):
    data = load(path)
    scripts = [s.get("run", "") for s in steps(path)] if "jobs" in data else [
        s.get("run", "") for s in (data["runs"].get("steps") or [])
    ]  # fmt: skip
    for script in scripts:
        assert "${{" not in script, script


@pytest.mark.parametrize("block", doc_snippets())
def test_no_expression_inside_a_script_in_the_docs(block):
    for line in block.splitlines():
        m = re.match(r"\s*(?:- )?run: (.*)", line)
        if m:
            assert "${{" not in m.group(1), line


INSTALL = re.compile(
    r"^\s*(?:- run:\s*|\$\s*)?(?:python3? -m )?pip install\s+(?:-\S+\s+)*[\"']?perfbot\b(?![/\w-])"
    r"|perfbot\[github\]==|perfbot @ git\+|git\+https://\S*perfbot",
    re.M,
)


@pytest.mark.parametrize("path", [*WORKFLOWS, *DOCS, *ACTIONS], ids=lambda p: p.name)
def test_perfbot_is_never_installed_from_an_index_or_a_moving_ref(path):
    """perfbot is not on PyPI: `pip install perfbot` would install whoever registers the name.
    It comes from the action's own commit (setup/action.yml), or a checkout (`pip install -e .`)."""
    text = path.read_text(encoding="utf-8")
    assert not INSTALL.findall(text)


@pytest.mark.parametrize("path", [*WORKFLOWS, *DOCS, *ACTIONS, ROOT / "src/perfbot/docs.py"],
                         ids=lambda p: p.name)  # fmt: skip
def test_one_owner_placeholder(path):
    text = path.read_text(encoding="utf-8")
    assert not re.findall(r"\borg/perfbot\b|mindspore-lab/perfbot", text)


def test_the_owner_placeholder_is_explained():
    docs = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    assert "`OWNER`" in docs and "`PERFBOT_SHA`" in docs and "placeholder" in docs


def test_rerun_concurrency_cannot_be_used_by_a_random_comment():
    """Every comment starts a run: a workflow-level group would let "LGTM" cancel a queued rerun
    and hold an ok-to-test behind a running benchmark."""
    wf = load(ROOT / "examples" / "workflows" / "perfbot-rerun.yml")
    assert "concurrency" not in wf
    gate = wf["jobs"]["gate"]["concurrency"]
    assert "github.event.comment.id" in gate["group"]  # a group of its own: never queued
    for name in ("bench", "report"):
        c = wf["jobs"][name]["concurrency"]
        assert "needs.gate.outputs.pr" in c["group"] and c["cancel-in-progress"] is False
    assert "issues" not in wf["jobs"]["report"]["permissions"]
    assert wf["jobs"]["report"]["permissions"]["contents"] == "read"


def test_the_setup_action_installs_this_commit_with_hashes():
    setup = load(ACTIONS[1])
    assert setup["runs"]["using"] == "composite"
    (step,) = setup["runs"]["steps"]
    assert step["env"]["PERFBOT_SRC"] == "${{ github.action_path }}/.."
    script = step["run"]
    assert "--require-hashes" in script and "requirements/action.lock" in script
    assert '--no-index "$PERFBOT_SRC"' in script
    assert "--system-site-packages" in script and " -P -m " in script


def test_the_lock_file_pins_every_dependency_by_hash():
    lock = (ROOT / "requirements" / "action.lock").read_text(encoding="utf-8")
    names = {m.lower() for m in re.findall(r"^([A-Za-z0-9_.-]+)==", lock, re.M)}
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", lock.split("\n\n", 1)[-1])
    assert all("--hash=sha256:" in b for b in blocks if "==" in b)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for dep in ("mistune", "pydantic", "pyyaml", "pygithub", "psutil", "setuptools"):
        assert dep in names, dep
        assert dep == "setuptools" or re.search(dep, pyproject, re.I)


def test_the_fork_post_job_checks_out_only_the_default_branch():
    """The post job has a write token: its checkout is the default branch (the trusted
    .perfbot.yml), never the pull request's head, and keeps no credentials; it reads the pull
    request's READMEs through the API (`contents: read`)."""
    (job,) = load(ROOT / "examples" / "workflows" / "perfbot-fork-post.yml")["jobs"].values()
    assert job["permissions"]["contents"] == "read"
    checkouts = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts, "the post job checks out the default branch for its .perfbot.yml"
    for step in checkouts:
        with_ = step.get("with", {})
        assert "ref" not in with_ and "repository" not in with_, with_
        assert with_.get("persist-credentials") is False
