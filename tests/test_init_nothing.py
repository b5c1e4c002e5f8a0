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
