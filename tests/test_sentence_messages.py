"""PB202 and PB201 messages say what is wrong with the sentence that is there
(`2026-12-newcomer-2.md` items 14 and 15)."""

from __future__ import annotations

import subprocess
import sys

TABLE = """\
| model name | cards | batch size | resolution | s/step | img/s |
|:----------:|:-----:|:----------:|:----------:|:------:|:-----:|
| m          | 1     | 1          | 256x256    | 1.00   | 1.00  |
"""


def check(tmp_path, sentence: str) -> list[str]:
    (tmp_path / "README.md").write_text(
        f"# M\n\n## Performance\n\n{sentence}\n\n{TABLE}", encoding="utf-8"
    )
    got = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", "-q", "--select", "PB201,PB202", "README.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode in (0, 1), got.stderr
    return got.stdout.splitlines()


def test_pb202_shows_the_misspelt_mode_it_did_not_read(tmp_path):
    (line,) = check(
        tmp_path,
        "Experiments are tested on Ascend Atlas 800T A2 machines with mindspore 2.3.1 "
        "pyantive mode.",
    )
    assert "PB202" in line and "does not name the mode" in line
    assert "2.3.1 pyantive mode.`" in line  # the quote keeps the end, where the typo is
    assert "(`pyantive`: did you mean `pynative`?)" in line


def test_pb201_names_the_text_that_says_it_in_other_words(tmp_path):
    (line,) = check(
        tmp_path,
        "We evaluated the training performance on Ascend NPUs. All experiments are running in "
        "PYNATIVE mode with MindSpore(>=2.6.0).",
    )
    assert "PB201" in line and "no sentence above this table" not in line
    assert "PYNATIVE mode with MindSpore(>=2.6.0).`" in line
    assert "mindspore 2.3.1 pynative mode.`" in line  # the mode it reads, not `graph`


def test_pb201_without_any_text_above_is_unchanged(tmp_path):
    (line,) = check(tmp_path, "Some words about the model.")
    assert "no sentence above this table says where it was measured" in line
