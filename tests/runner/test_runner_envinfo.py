"""Tests of environment detection on a fake Ascend install tree (perfbot.runner.envinfo)."""

import subprocess
from pathlib import Path

from perfbot.runner.envinfo import (
    cann_version,
    detect_environment,
    driver_version,
    firmware_version,
    git_commit,
    mindspore_version,
)

ASCEND = Path("usr/local/Ascend")


def write(root: Path, rel: str | Path, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def fake_ascend(root: Path) -> Path:
    write(
        root,
        ASCEND / "ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info",
        "package_name=Ascend-cann-toolkit\nversion=8.0.RC2\ninnerversion=V100R001C18\n"
        "arch=aarch64\n",
    )
    write(root, ASCEND / "driver/version.info", "Version=24.1.rc2\nascendhal_version=7.35.19\n")
    write(root, ASCEND / "firmware/version.info", "Version=7.3.0.1.231\n")
    return root


def test_full_fake_tree(tmp_path):
    root = fake_ascend(tmp_path)
    info = detect_environment(
        root, environ={"RUNNER_NAME": "ascend-910b-01", "GITHUB_SHA": "a" * 40}
    )
    assert info.cann == "8.0.RC2"
    assert info.driver == "24.1.rc2"
    assert info.firmware == "7.3.0.1.231"
    assert info.runner == "ascend-910b-01"
    assert info.commit == "a" * 40
    assert info.mindspore is None  # not installed here, and root is not /
    assert info.python


def test_version_cfg_runtime_running_version(tmp_path):
    write(
        tmp_path,
        ASCEND / "ascend-toolkit/latest/version.cfg",
        "# version: 1.0\nruntime_running_version=[7.3.0.1.231:8.0.RC2]\n"
        "compiler_running_version=[7.3.0.1.231:8.0.RC2]\n",
    )
    assert cann_version(tmp_path, environ={}) == "8.0.RC2"


def test_version_cfg_with_version_key_in_arch_dir(tmp_path):
    write(tmp_path, ASCEND / "ascend-toolkit/latest/x86_64-linux/version.cfg", "version=7.0.0\n")
    assert cann_version(tmp_path, environ={}) == "7.0.0"


def test_ascend_toolkit_home_is_preferred(tmp_path):
    fake_ascend(tmp_path)
    write(tmp_path, "opt/cann/arm64-linux/ascend_toolkit_install.info", "version=8.1.RC1\n")
    assert cann_version(tmp_path, environ={"ASCEND_TOOLKIT_HOME": "/opt/cann"}) == "8.1.RC1"


def test_missing_and_broken_files_give_none(tmp_path):
    assert detect_environment(tmp_path, environ={}).model_dump(
        include={"cann", "driver", "firmware", "runner", "commit", "mindspore"}
    ) == dict.fromkeys(("cann", "driver", "firmware", "runner", "commit", "mindspore"))
    # a directory where a file is expected, an empty file, binary junk
    (tmp_path / ASCEND / "driver/version.info").mkdir(parents=True)
    write(tmp_path, ASCEND / "firmware/version.info", "")
    write(tmp_path, ASCEND / "ascend-toolkit/latest/version.cfg", "\x00\xff=garbage\n[")
    assert driver_version(tmp_path) is None
    assert firmware_version(tmp_path) is None
    assert cann_version(tmp_path, environ={}) is None
    assert detect_environment(tmp_path / "does-not-exist", environ={}).cann is None


def test_mindspore_not_looked_up_in_this_interpreter_for_a_fake_root(tmp_path):
    assert mindspore_version(tmp_path) is None


def test_git_commit_from_workdir_then_github_sha(tmp_path):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@e", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("commit", "-q", "--allow-empty", "-m", "x")
    sha = run("rev-parse", "HEAD").stdout.decode().strip()
    assert git_commit(repo, environ={"GITHUB_SHA": "b" * 40}) == sha
    plain = tmp_path / "plain"
    plain.mkdir()
    assert git_commit(plain, environ={"GITHUB_SHA": "b" * 40}) == "b" * 40
    assert git_commit(None, environ={}) is None


def test_version_files_that_are_fifos_devices_or_huge_are_not_read(tmp_path):
    """Security audit item 13: a FIFO named version.info hung bench before the benchmark
    started; a symlink to /dev/zero was read until memory ran out."""
    import os
    import threading

    root = fake_ascend(tmp_path)
    driver = root / ASCEND / "driver/version.info"
    driver.unlink()
    os.mkfifo(driver)  # nobody ever writes: a blocking open would wait forever
    firmware = root / ASCEND / "firmware/version.info"
    firmware.unlink()
    firmware.symlink_to("/dev/zero")
    cfg = root / ASCEND / "ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info"
    cfg.write_text("version=8.0.RC2\n" + "#" * (1 << 20))  # 1 MiB: over the cap
    found: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: found.update(
            driver=driver_version(root), firmware=firmware_version(root), cann=cann_version(root)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=60)
    if worker.is_alive():  # unblock the hung open so the test process can exit
        with open(driver, "w"):
            pass
        worker.join(timeout=10)
        raise AssertionError("reading a FIFO version file blocked")
    assert found == {"driver": None, "firmware": None, "cann": None}
