"""`perfbot init` writes no file when it has nothing to set (`2026-12-newcomer-2.md` item 19: it
wrote a `.perfbot.yml` holding only `{}`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_init_with_nothing_to_set_writes_nothing(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "README.md").write_bytes((ROOT / "examples/broken/README.md").read_bytes())
    got = subprocess.run(
        [sys.executable, "-m", "perfbot", "init"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    assert not (tmp_path / ".perfbot.yml").exists()
    assert "nothing written" in got.stderr and "before: 17 findings" in got.stderr


FLOORS = """\
# {name}

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:---------:|:-------------:|:--------:|:-------------------:|
| >=2.6.0   | >=24.1.0      | >=7.5.0  | >=8.1.RC1           |
"""


def test_init_writes_its_commented_proposals_when_it_sets_nothing(tmp_path):
    """A repository-wide convention (minimum versions, PB103) is proposed as a commented
    `rules:` line; `perfbot init` writes it rather than "nothing written" (newcomer-2 item 6)."""
    (tmp_path / ".git").mkdir()
    for name in "abcdef":
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(FLOORS.format(name=name), encoding="utf-8")
    run = [sys.executable, "-m", "perfbot"]
    got = subprocess.run([*run, "init"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    written = (tmp_path / ".perfbot.yml").read_text(encoding="utf-8")
    assert "#   PB103: off" in written and "{}" not in written
    assert "nothing written" not in got.stderr
    cfg = subprocess.run(
        [*run, "config"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert cfg.returncode == 0, cfg.stderr  # a file of comments only loads (the defaults)
