"""setup/install.sh for real (a virtual environment, the locked wheels with their hashes, perfbot
from the action's tree), outside act: the `perfbot` it leaves names the action for perfbot's
links when GitHub's runner does not (it leaves github.action_repository/action_ref empty inside
composite actions, actions/runner#2473)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.act

SHOW = "import os; print(*(os.environ.get(f'GITHUB_ACTION_{k}') for k in ('REPOSITORY', 'REF')))"


def test_install_names_the_action_from_its_folder(tmp_path: Path, action_tree):
    source, wheels = action_tree
    # where GitHub's runner puts `uses: acme/perfbot@v1.4.0`: _work/_actions/OWNER/REPO/REF
    action = tmp_path / "_work" / "_actions" / "acme" / "perfbot" / "v1.4.0"
    shutil.copytree(source, action)
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path), "RUNNER_TEMP": str(temp),
        "PERFBOT_SRC": str(action / "setup" / ".."),  # as setup/action.yml names it
        "PERFBOT_ACTION_REPOSITORY": "", "PERFBOT_ACTION_REF": "",
        "PIP_FIND_LINKS": str(wheels), "PIP_NO_INDEX": "1", "PIP_NO_COMPILE": "1",
    }  # fmt: skip
    got = subprocess.run(
        ["bash", str(source / "setup" / "install.sh"), str(temp / "venv"), str(temp / "bin")],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    python = got.stdout.splitlines()[-1]
    assert python == str(temp / "venv" / "bin" / "python")
    assert sorted(p.name for p in (temp / "bin").iterdir()) == ["perfbot"]  # nothing else on PATH

    # the wrapper: the action's name when the step has none, the step's own otherwise
    wrapper = temp / "bin" / "perfbot"
    (temp / "venv" / "bin" / "perfbot").unlink()
    (temp / "venv" / "bin" / "perfbot").symlink_to(temp / "venv" / "bin" / "show")
    (temp / "venv" / "bin" / "show").write_text(f"#!{python}\n{SHOW}\n")
    (temp / "venv" / "bin" / "show").chmod(0o755)
    bare = {"PATH": os.environ["PATH"]}
    out = subprocess.run([str(wrapper)], env=bare, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["acme/perfbot", "v1.4.0"]
    named = {**bare, "GITHUB_ACTION_REPOSITORY": "x/y", "GITHUB_ACTION_REF": "r"}
    out = subprocess.run([str(wrapper)], env=named, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["x/y", "r"]
