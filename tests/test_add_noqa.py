"""``perfbot check --add-noqa``: directives that silence today's findings, written in place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from perfbot.cli import main

BROKEN = Path(__file__).resolve().parents[1] / "examples" / "broken" / "README.md"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    shutil.copy(BROKEN, tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_add_noqa_silences_and_is_idempotent(repo, capsys):
    before = (repo / "README.md").read_text(encoding="utf-8")
    assert main(["check", "--add-noqa", "."]) == 0
    assert "Added 3 directive(s) in 1 file(s)" in capsys.readouterr().err
    text = (repo / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    # above the Requirements table, and above each Performance table's sentence
    assert lines[4].startswith("<!-- perfbot-disable-next-table PB301 PB305 PB501")
    assert lines[11].startswith("<!-- perfbot-disable-next-table PB202 PB302 PB304 PB401")
    assert lines[12].startswith("Experiments are tested on Ascend Atlas 800T A2")
    assert lines[21].startswith("<!-- perfbot-disable-next-table PB203 PB601")
    # nothing else changed
    assert [ln for ln in lines if not ln.startswith("<!-- perfbot-")] == before.splitlines()
    assert main(["check", "."]) == 0
    assert main(["check", "--add-noqa", "."]) == 0
    assert "Added 0 directive(s)" in capsys.readouterr().err
    assert (repo / "README.md").read_text(encoding="utf-8") == text
    # a table's directive names its rules: a new kind of finding on it is reported
    bad = text.replace(
        "| toy | 1 | 8 | 512x512 | O2 | 2 mins |", "| toy | 1 | 8 | 512x512 | o2 | 2 mins |"
    )
    assert bad != text
    (repo / "README.md").write_text(bad, encoding="utf-8")
    capsys.readouterr()
    main(["check", "-q", "."])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and " PB413 " in out[0]


def test_add_noqa_keeps_crlf(repo, capsys):
    data = BROKEN.read_bytes().replace(b"\n", b"\r\n")
    (repo / "README.md").write_bytes(data)
    assert main(["check", "--add-noqa", "."]) == 0
    out = (repo / "README.md").read_bytes()
    assert b"\r\n<!-- perfbot-disable-next-table" in out and b"\n\n" not in out.replace(
        b"\r\n", b""
    )
    assert main(["check", "."]) == 0


def test_add_noqa_refuses_other_gate_options(repo, capsys):
    assert main(["check", "--add-noqa", "--baseline", "x.json", "."]) == 2


def test_two_tables_under_one_sentence(repo, capsys):
    # the second table has no sentence of its own (perfbot sees the first one above both)
    text = BROKEN.read_text(encoding="utf-8")
    second = text[text.index("| model name | cards | batch size |") :]
    text = text.replace(
        second, second + "\nOn another machine:\n\n" + second.replace("0.45", "0.4")
    )
    (repo / "README.md").write_text(text, encoding="utf-8")
    assert main(["check", "--add-noqa", "."]) == 0
    assert main(["check", "."]) == 0, capsys.readouterr().out


def test_add_noqa_never_splits_a_paragraph(tmp_path, monkeypatch, capsys):
    """A sentence on the last line of a paragraph: the directive goes above the paragraph (an
    HTML comment line between two of its lines would split it in two on GitHub)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from gfm import render

    (tmp_path / ".git").mkdir()
    text = (
        "# toy\n\n## Performance\n\n"
        "Speed of the toy net, measured by us.\n"
        "Experiments are tested on Ascend Atlas 800T A2 machines with mindspore 2.3.1 graph mode.\n"
        "\n| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        "| img/s |\n" + "|:--:" * 8 + "|\n| toy | 1 | 8 | 512x512 | O2 | 2 mins | 0.50 | 16.00 |\n"
    )
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--add-noqa", "--select", "PB202", "."]) == 0
    after = (tmp_path / "README.md").read_text(encoding="utf-8")
    lines = after.splitlines()
    assert lines[4].startswith("<!-- perfbot-disable-next-table PB202")
    assert lines[5] == "Speed of the toy net, measured by us."
    assert render(after).replace("<!-- perfbot-disable-next-table PB202 -->\n", "") == render(text)
