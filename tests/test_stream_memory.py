"""Peak memory of `check` (issue 11): streamed output (text, github) keeps no file's source,
messages or fix edits once the file is printed, so memory does not grow with the tree.

No RSS assertions (bench/bench_paths.py measures): these tests look at what is kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot import cli
from perfbot.report import summary_line

README = """\
# Net

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:---------:|:-------------:|:--------:|:-------------------:|
| 2.3.1     | 24.1.RC2      | 7.3.0.1.231 | 8.0.RC3.beta1    |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    for i in range(3):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "README.md").write_text(README, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list:
    """The results `check` holds until its summary line."""
    seen: list = []
    real = cli._Runner.report

    def spy(self, results, **kw):  # type: ignore[no-untyped-def]
        seen.extend(results)
        return real(self, results, **kw)

    monkeypatch.setattr(cli._Runner, "report", spy)
    return seen


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["text", "github"])
def test_streamed_output_keeps_no_source(
    tree: Path,
    kept: list,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    fmt: str,
    jobs: str,
) -> None:
    monkeypatch.setenv("PERFBOT_JOBS", jobs)  # "2": a pool, whatever the size and the load
    assert cli.main(["check", "--format", fmt, "."]) == 1
    out = capsys.readouterr()
    assert len(kept) == 3
    assert all(r.source is None for r in kept)
    assert all(f.message == "" and f.extra == {} for r in kept for f in r.findings)
    assert all(not f.fix.edits for r in kept for f in r.findings if f.fix is not None)
    # the counts are the same as from the full results (JSON keeps everything)
    summary = out.out.splitlines()[-1] if fmt == "text" else out.err.splitlines()[-1]
    assert summary == summary_line(kept)
    assert "3 files" in summary and "fixable with `perfbot fix`" in summary
    assert "more with `perfbot fix --unsafe-fixes`" in summary


def test_a_whole_document_format_still_has_the_sources(
    tree: Path, kept: list, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    assert cli.main(["check", "--format", "json", "."]) == 1
    capsys.readouterr()
    assert len(kept) == 3
    assert all(r.source is not None for r in kept)
    assert all(f.message for r in kept for f in r.findings)


def test_streamed_and_whole_output_count_alike(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    assert cli.main(["check", "--format", "text", "."]) == 1
    streamed = capsys.readouterr().out.splitlines()[-1]
    assert cli.main(["check", "--format", "text", "--statistics", "."]) == 1
    whole = capsys.readouterr()
    assert streamed in whole.out + whole.err
