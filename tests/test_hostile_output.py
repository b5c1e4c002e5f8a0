"""Output on hostile trees (security audit, finding 12 and the robustness section): results are
printed file by file as each is checked, and file names cannot forge GitHub workflow commands
(``::error ...``) in the text output, the ``github`` output or stderr."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from perfbot import engine
from perfbot.cli import main
from perfbot.report import display_path, printable

# 8 cards x 64 / 0.93 s = 550.54 img/s, not 515.61: PB401 on line 9
README = """\
# DiT

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    return tmp_path


def put(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_results_print_as_each_file_finishes(
    fmt: str, repo: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the last file is being checked (a slow one, say), the first file's findings and the
    unreadable file's error are already out."""
    put(repo / "a" / "README.md", README)
    put(repo / "b" / "README.md", b"\x00binary")
    put(repo / "c" / "README.md", README)
    seen_before_c: list[str] = []
    real = engine.check_source

    def spy(src, *a, **kw):
        if src.path.startswith("c"):
            seen_before_c.append(capsys.readouterr().out)
        return real(src, *a, **kw)

    monkeypatch.setattr(engine, "check_source", spy)
    assert main(["check", "--format", fmt, "a", "b", "c"]) == 2
    rest = capsys.readouterr().out
    (before,) = seen_before_c
    if fmt == "text":
        assert "a/README.md:9: error PB401" in before
        assert "b/README.md: error: looks like a binary file" in before
        assert "c/README.md:9: error PB401" in rest and "c/README.md" not in before
    else:
        assert "::error file=a/README.md,line=9" in before
        assert "::error file=b/README.md,title=perfbot::looks like a binary" in before
        assert "file=c/README.md" in rest


EVIL = "x\n::error title=INJECTED::forged annotation"


def forged(text: str) -> list[str]:
    """Lines that a runner would read as a workflow command (it ignores leading blanks)."""
    return [ln for ln in text.splitlines() if ln.lstrip().startswith(("::", "##["))]


@pytest.mark.skipif(os.name != "posix", reason="newlines in file names")
@pytest.mark.parametrize("fmt", ["text", "github"])
def test_file_names_cannot_forge_workflow_commands(fmt: str, repo: Path, capsys) -> None:
    put(repo / EVIL / "README.md", README)  # checked: a finding
    put(repo / EVIL / "README_2.md", README.encode() + b"caf\xe9\n")  # a note on stderr
    put(repo / EVIL / "sub" / "README.md", b"\x00binary")  # an error
    put(repo / "::warning::folder" / "README.md", README)  # a name that *is* a command
    put(repo / "##[error]legacy" / "README.md", README)
    put(repo / "cfg" / ".perfbot.yml", "paths: [a]\n" + "x: 1\n")  # config error
    put(repo / "cfg" / "README.md", README)
    assert main(["check", "--format", fmt]) == 2
    out, err = capsys.readouterr()
    if fmt == "text":
        assert forged(out) == [], out
    else:
        # every line is one of perfbot's own commands, the path inside its escaped property
        own = re.compile(
            r"::(error|warning|notice) file=[^:,\n]*"
            r"(,line=\d+,endLine=\d+,title=PB\d{3} [a-z0-9-]+|,title=perfbot)::"
        )
        assert [ln for ln in out.splitlines() if not own.match(ln)] == []
    assert forged(err) == [], err
    assert "INJECTED" in out  # still named, escaped


@pytest.mark.skipif(os.name != "posix", reason="newlines in file names")
def test_fix_output_cannot_forge_workflow_commands(repo: Path, capsys) -> None:
    put(repo / EVIL / "README.md", README)
    assert main(["fix", "--unsafe-fixes"]) in (0, 1)
    out, err = capsys.readouterr()
    assert forged(out) == [] and forged(err) == []
    assert main(["fix", "--diff"]) in (0, 1)
    out, err = capsys.readouterr()
    assert forged(out) == [] and forged(err) == []


def test_printable_and_display_path() -> None:
    assert printable("a\nb\r\tc\x1b[31m\u2028") == "a\\nb\\r\\tc\\x1b[31m\\u2028"
    assert printable("plain 100% ok: yes, é") == "plain 100% ok: yes, é"
    assert display_path("::error::x/README.md") == "./::error::x/README.md"
    assert display_path("  ::error::x") == "./  ::error::x"
    assert display_path("##[error]x") == "./##[error]x"
    assert display_path("models/a::b/README.md") == "models/a::b/README.md"


def test_fix_prints_as_each_file_finishes(repo: Path, capsys, monkeypatch) -> None:
    put(repo / "a" / "README.md", README)
    put(repo / "c" / "README.md", README)
    seen_before_c: list[str] = []
    real = engine.check_source

    def spy(src, *a, **kw):
        if src.path.startswith("c") and not seen_before_c:
            seen_before_c.append(capsys.readouterr().out)
        return real(src, *a, **kw)

    monkeypatch.setattr(engine, "check_source", spy)
    main(["fix", "--unsafe-fixes", "a", "c"])  # the img/s fix changes a number: unsafe
    rest = capsys.readouterr().out
    assert seen_before_c[0].startswith("a/README.md: fixed ")
    assert "c/README.md: fixed " in rest and "Fixed " in rest
