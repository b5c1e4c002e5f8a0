"""The example workflows, the actions, the Dockerfile and every install line in the docs: what a
maintainer copies must be safe as written (scripts/check_workflows.sh adds zizmor, actionlint and
the JSON schemas in .ci/run)."""

import re
import shutil
import subprocess
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


# A Python older than 3.11, as far as the actions can tell: no -P, and its version.
OLD_PYTHON = """#!/bin/sh
for a in "$@"; do [ "$a" = -P ] && { echo "Unknown option: -P" >&2; exit 2; }; done
case "$*" in
  *"< (3, 11)"*) exit 1 ;;
  *version_info*) echo 3.10 ;;
esac
"""


def run_install_step(action: Path, tmp_path: Path, python: str, path: str) -> tuple:
    """The action's install step as the runner runs it: its env (``${{ }}`` evaluated), then its
    script through ``bash -eo pipefail``. Returns (exit code, stderr, GITHUB_PATH's text)."""
    step = next(s for s in load(action)["runs"]["steps"] if s.get("id") == "install")
    values = {
        "github.action_path": str(action.parent),
        "inputs.python": python,
        "github.action_repository": "",  # as GitHub's runner leaves them in composite actions
        "github.action_ref": "",
    }
    expr = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")
    env = {k: expr.sub(lambda m: values[m[1]], str(v)) for k, v in step["env"].items()}
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    for tool in ("bash", "tail", "rm", "mkdir", "cat"):  # PATH holds no other Python
        if not (Path(path) / tool).exists():
            (Path(path) / tool).symlink_to(shutil.which(tool))
    (tmp_path / "path").write_text("")
    (tmp_path / "output").write_text("")
    got = subprocess.run(
        ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env={"PATH": path, "RUNNER_TEMP": str(temp), "GITHUB_PATH": str(tmp_path / "path"),
             "GITHUB_OUTPUT": str(tmp_path / "output"), **env},
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    return got.returncode, got.stderr, (tmp_path / "path").read_text()


@pytest.mark.parametrize("action", ACTIONS, ids=["action", "setup"])
def test_an_older_python_is_refused_in_words(action, tmp_path):
    """perfbot needs 3.11; MindSpore's Python may be 3.9 or 3.10: say so, not `Unknown option`."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python3.10").write_text(OLD_PYTHON)
    (bin_ / "python3.10").chmod(0o755)
    rc, err, path = run_install_step(action, tmp_path, str(bin_ / "python3.10"), str(bin_))
    assert rc != 0 and path == ""
    assert "perfbot needs Python 3.11 or later" in err and "is Python 3.10" in err, err
    assert "Unknown option" not in err


@pytest.mark.parametrize("action", ACTIONS, ids=["action", "setup"])
def test_no_python_on_path_is_refused_in_words(action, tmp_path):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python3").write_text(OLD_PYTHON)
    (bin_ / "python3").chmod(0o755)
    rc, err, path = run_install_step(action, tmp_path, "", str(bin_))
    assert rc != 0 and path == ""
    assert "perfbot needs Python 3.11 or later and found none on PATH" in err, err
    assert "python3 3.10" in err and "actions/setup-python" in err


def test_the_install_script_installs_this_commit_with_hashes():
    script = (ROOT / "setup" / "install.sh").read_text(encoding="utf-8")
    assert "--require-hashes" in script and "requirements/action.lock" in script
    assert '--no-index "$src"' in script and " -P -m " in script
    assert "--system-site-packages" not in script  # perfbot's Python is not the benchmark's


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
