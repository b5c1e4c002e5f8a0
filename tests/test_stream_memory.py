"""Peak memory of `check` (issue 11): no output format keeps a file's source, messages or fix
edits once the file is checked. Text and github lines are printed at once; a JSON, SARIF or
rdjson document keeps each file's rendered part (perfbot.report.stream), made in the worker when
the pool is used, and is written at the end.

No RSS assertions (bench/bench_paths.py measures): these tests look at what is kept, and at the
memory Python allocates (tracemalloc) as the tree grows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfbot import cli
from perfbot.cli import batch
from perfbot.report import summary_line
from speedkit import NET_README


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    for i in range(3):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "README.md").write_text(NET_README, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list:
    """The results `check` holds until its summary line."""
    seen: list = []
    real = batch._Runner.report

    def spy(self, results, **kw):  # type: ignore[no-untyped-def]
        seen.extend(results)
        return real(self, results, **kw)

    monkeypatch.setattr(batch._Runner, "report", spy)
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


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["json", "sarif", "rdjson"])
def test_a_whole_document_format_keeps_no_source(
    tree: Path,
    kept: list,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    fmt: str,
    jobs: str,
) -> None:
    monkeypatch.setenv("PERFBOT_JOBS", jobs)
    assert cli.main(["check", "--format", fmt, "."]) == 1
    out = capsys.readouterr()
    assert len(kept) == 3
    assert all(r.source is None for r in kept)
    assert all(f.message == "" and f.extra == {} for r in kept for f in r.findings)
    assert all(not f.fix.edits for r in kept for f in r.findings if f.fix is not None)
    # yet the document has every message and fix
    if fmt == "json":
        data = json.loads(out.out)
        assert data["files"] == 3
        assert all(f["message"] for f in data["findings"])
        assert any(f["fix"] and f["fix"]["replacement"] for f in data["findings"])
    summary = out.err.splitlines()[-1]
    assert summary == summary_line(kept)


def _grown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, n: int) -> tuple[int, int]:
    """(bytes of output, peak bytes Python allocated) of `check --format fmt` on n READMEs."""
    import tracemalloc

    root = tmp_path / f"{fmt}{n}"
    (root / ".git").mkdir(parents=True)
    for i in range(n):
        (root / f"m{i}").mkdir()
        (root / f"m{i}" / "README.md").write_text(BIG.replace("net ", f"n{i:03d}"), "utf-8")
    monkeypatch.chdir(root)
    out = tmp_path / f"{fmt}{n}.out"
    tracemalloc.start()
    try:
        cli.main(["check", "--format", fmt, "-q", "--fail-on", "never", "-o", str(out), "."])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out.stat().st_size, peak


# a README with many rows, each with findings that have fixes (unsafe img/s, safe decimals)
_ROW = next(line + "\n" for line in NET_README.splitlines() if line.startswith("| net "))
BIG = NET_README.replace(_ROW, "".join(_ROW.replace("0.5 ", f"0.{i:02d}") for i in range(1, 60)))


@pytest.mark.parametrize("fmt", ["json", "sarif", "rdjson"])
def test_a_whole_document_grows_by_its_output_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, fmt: str
) -> None:
    # what each more file costs at the peak: its part of the output, packed (0.2-0.3x of the
    # output here) until the document is written, and the counts; not its source, parse and
    # finding objects, and the whole document as dicts and as one string at the end (7-11x the
    # output before)
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    _grown(tmp_path, monkeypatch, fmt, 2)  # imports and caches
    out_small, peak_small = _grown(tmp_path, monkeypatch, fmt, 4)
    out_large, peak_large = _grown(tmp_path, monkeypatch, fmt, 16)
    capsys.readouterr()
    per_byte = (peak_large - peak_small) / (out_large - out_small)
    assert per_byte < 1.0, per_byte


def test_streamed_and_whole_output_count_alike(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    assert cli.main(["check", "--format", "text", "."]) == 1
    streamed = capsys.readouterr().out.splitlines()[-1]
    assert cli.main(["check", "--format", "text", "--statistics", "."]) == 1
    whole = capsys.readouterr()
    assert streamed in whole.out + whole.err
