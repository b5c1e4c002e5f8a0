"""Hostile trees for ``perfbot check`` / ``fix`` (security audit, finding 14 and the robustness
table): FIFOs, devices, symlinks out of the tree. Each is an error for that one file; the other
files are still checked and nothing outside the tree is read or written.

The commands run as subprocesses with a timeout and a memory limit: on the code before this fix
a FIFO hangs and ``/dev/zero`` is read until memory runs out, and a test must fail, not hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs and devices are POSIX")

# 8 cards x 64 / 0.93 s = 550.54 img/s, not 515.61: PB401 on line 9, fixable
README = """\
# DiT

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
"""


def perfbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # 2 GB of address space: /dev/zero read whole fails fast, not the box
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run(
        [sys.executable, "-m", "perfbot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
        env={**os.environ, "PERFBOT_JOBS": "1"},
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    (r / "good").mkdir()
    (r / "good" / "README.md").write_text(README)
    (r / "bad").mkdir()
    return r


def assert_good_checked(out: str) -> None:
    assert "good/README.md:9: error PB401" in out, out


def test_fifo_named_readme_is_an_error_not_a_hang(repo: Path) -> None:
    os.mkfifo(repo / "bad" / "README.md")
    r = perfbot("check", ".", cwd=repo)
    assert r.returncode == 2, r.stderr
    assert_good_checked(r.stdout)
    assert "bad/README.md: error: not a regular file (a FIFO)" in r.stdout
    # named on the command line: the same
    r = perfbot("check", "bad/README.md", cwd=repo)
    assert r.returncode == 2 and "not a regular file (a FIFO)" in r.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_symlink_to_a_device_is_an_error_not_read(repo: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    (repo / "bad" / "README.md").symlink_to(device)
    r = perfbot("check", ".", cwd=repo)
    assert r.returncode == 2 and "internal error" not in r.stderr, r.stderr
    assert "bad/README.md: error: is a symlink to a file outside" in r.stdout
    r = perfbot("check", "bad/README.md", cwd=repo)  # named: followed, and refused
    assert r.returncode == 2 and "internal error" not in r.stderr, r.stderr
    assert "bad/README.md: error: not a regular file (a character device)" in r.stdout
    assert_good_checked(perfbot("check", ".", cwd=repo).stdout)


def test_walked_symlink_out_of_the_tree_is_not_followed(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "README.md"
    secret.parent.mkdir()
    secret.write_text(README.replace("dit", "secret-model"))
    (repo / "bad" / "README.md").symlink_to(secret)
    r = perfbot("check", ".", cwd=repo)
    assert r.returncode == 2
    assert_good_checked(r.stdout)
    assert "bad/README.md: error: is a symlink to a file outside" in r.stdout
    assert "secret-model" not in r.stdout + r.stderr
    # a symlink inside the tree is followed as before
    (repo / "bad" / "README.md").unlink()
    (repo / "bad" / "README.md").symlink_to("../good/README.md")
    r = perfbot("check", ".", cwd=repo)
    assert "bad/README.md:9: error PB401" in r.stdout


def test_fix_never_writes_through_a_symlink_out_of_the_tree(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "README.md"
    outside.parent.mkdir()
    outside.write_text(README)
    (repo / "bad" / "README.md").symlink_to(outside)
    for args in (["fix", "."], ["fix", "bad/README.md"], ["fix", "bad"]):
        r = perfbot(*args, "--unsafe-fixes", cwd=repo)  # the img/s fix changes a number
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert outside.read_text() == README, f"{args} wrote through the symlink"
        assert "bad/README.md: error: is a symlink to a file outside" in r.stdout + r.stderr
    # the regular file was fixed all the same
    assert "550.54" in (repo / "good" / "README.md").read_text()
    # a symlink to a file inside the repository is still fixed through
    (repo / "good" / "README.md").write_text(README)
    (repo / "bad" / "README.md").unlink()
    (repo / "bad" / "README.md").symlink_to("../good/README.md")
    r = perfbot("fix", "--unsafe-fixes", "bad/README.md", cwd=repo)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "550.54" in (repo / "good" / "README.md").read_text()


def test_a_tree_thousands_of_folders_deep(repo: Path) -> None:
    """The folder walk and the config lookup are loops: 1,300 nested folders (os.walk and a
    recursive lookup raised RecursionError, an internal error for every file)."""
    d = repo / "deep"
    d.mkdir()
    rel = "deep"
    for _ in range(1300):
        rel += "/a"
        os.mkdir(repo / rel)  # one level at a time: os.makedirs recurses too
    (repo / rel / "README.md").write_text(README)
    try:
        r = perfbot("check", ".", cwd=repo)
        assert "internal error" not in r.stderr, r.stderr[-500:]
        assert_good_checked(r.stdout)
        assert f"{rel}/README.md:9: error PB401" in r.stdout
    finally:
        _remove_bottom_up(repo / rel, repo)


def _remove_bottom_up(leaf: Path, top: Path) -> None:
    """Delete a folder chain deeper than shutil.rmtree can recurse (pytest's own clean-up of
    its temporary folders would fail on it with RecursionError and leave it behind)."""
    for child in leaf.iterdir():
        child.unlink()
    while leaf != top:
        leaf.rmdir()
        leaf = leaf.parent
