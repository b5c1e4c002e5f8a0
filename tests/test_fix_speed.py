"""`perfbot fix` does no more work than `check` plus writing (issue 11): each file is read once,
parsed once per pass, and its new text is not split or parsed again after the loop; a worker
sends back only the check to report; files that do not change are not written.

No wall-clock assertions here (those are in bench/bench_paths.py): these tests count the work.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfbot import cli
from perfbot.cli import batch, commands
from perfbot.engine import FileResult, check_source, fix_source
from perfbot.source import Source
from speedkit import count_parses

# one pass fixes everything: 0.5 -> 0.50, 64 -> 64.00 (img/s), the Requirements are unsafe
ONE_PASS = """\
# Net

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""

# renaming, centring, 2 decimals and the column order touch the same lines: fixed over passes
OVERLAPPING = """\
# Dit

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| Model Name | resolution | cards | batch size | jit level | graph compile | img/s | s/step |
|------------|:----------:|:-----:|:----------:|:---------:|:-------------:|:-----:|:------:|
| dit        | 256x256    | 1     | 64         | O2        | 3~5 mins      | 71.9  | 0.89   |
"""

NOT_A_MODEL_README = "# Tools\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


def _passes(text: str, unsafe: bool) -> int:
    """How many checks the fix loop makes of ``text``: one per pass, the last finding nothing
    to apply."""
    from perfbot.engine import applicable
    from perfbot.fix import apply_fixes

    src = Source.from_text(text, path="x.md")
    n = 1
    while True:
        todo = [f.fix for f in check_source(src).findings if f.fix and applicable(f, unsafe)]
        if not todo:
            return n
        src = Source.from_text(apply_fixes(src, todo), path="x.md")
        n += 1


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean, _ = fix_source(Source.from_text(ONE_PASS, path="x.md"), unsafe=True)
    assert clean != ONE_PASS
    for name, text in {
        "clean": clean,
        "onepass": ONE_PASS,
        "overlap": OVERLAPPING,
        "tools": NOT_A_MODEL_README,
    }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    return tmp_path


def _per_path(seen: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in seen:
        key = Path(p).parent.name
        out[key] = out.get(key, 0) + 1
    return out


def test_fix_parses_each_file_once_per_pass_and_builds_no_other_source(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    built: list[str] = []
    real_from_text = Source.from_text.__func__  # type: ignore[attr-defined]

    def counting_from_text(cls, text, path="<text>", **kw):  # type: ignore[no-untyped-def]
        built.append(path)
        return real_from_text(cls, text, path, **kw)

    passes = _passes(OVERLAPPING, unsafe=True)
    assert passes >= 3  # the case this test is about: fixes that wait for another pass

    parsed = count_parses(monkeypatch)
    monkeypatch.setattr(Source, "from_text", classmethod(counting_from_text))
    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", "."]) == 0
    out = capsys.readouterr().out
    assert "Fixed" in out and "in 2 files" in out
    # nothing to fix, or not a model README: read and parsed once
    # fixed: one parse per pass of the loop, the last one being the check that is reported
    assert _per_path(parsed) == {"clean": 1, "tools": 1, "onepass": 2, "overlap": passes}
    # one Source per parse: the new text is neither split again nor read back after writing
    assert _per_path(built) == _per_path(parsed)


def _stat(p: Path) -> tuple[int, int, bytes]:
    st = p.stat()
    return st.st_ino, st.st_mtime_ns, p.read_bytes()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fix_does_not_write_files_it_does_not_change(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    if jobs == "2" and (os.cpu_count() or 1) < 2:
        pytest.skip("one core: no pool")
    monkeypatch.setenv("PERFBOT_JOBS", jobs)
    # only unsafe fixes left (img/s recomputed): not written without --unsafe-fixes
    unsafe_only, _ = fix_source(Source.from_text(ONE_PASS, path="x.md"), unsafe=False)
    (tree / "onepass" / "README.md").write_text(unsafe_only, encoding="utf-8")
    before = {d: _stat(tree / d / "README.md") for d in ("clean", "tools", "onepass")}
    os.utime(tree / "clean" / "README.md", ns=(1_000_000_000, 1_000_000_000))
    before["clean"] = _stat(tree / "clean" / "README.md")
    assert cli.main(["fix", "--fail-on", "never", "."]) == 0
    assert {d: _stat(tree / d / "README.md") for d in before} == before
    assert "Fixed" in capsys.readouterr().out  # the overlapping one was fixed


def test_streamed_fix_output_gets_no_source_back_from_the_workers(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a worker returns crosses a process boundary: for text output (printed file by file)
    it holds the findings to print, not the file's text, old or new; JSON output, which prints
    the fixes' text, gets the new text's source."""
    got: list[tuple] = []
    real = batch._map_checks

    def recording(jobs, func=batch._check_one):  # type: ignore[no-untyped-def]
        for item in real(jobs, func):
            got.append(item)
            yield item

    monkeypatch.setattr(commands, "_map_checks", recording)

    def sources_in(x: object) -> list[Source]:
        if isinstance(x, Source):
            return [x]
        if isinstance(x, FileResult):
            return [x.source] if x.source is not None else []
        if isinstance(x, tuple | list):
            return [s for y in x for s in sources_in(y)]
        return []

    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", "."]) == 0
    assert len(got) == 4
    assert [s.path for item in got for s in sources_in(item)] == []
    assert "Fixed" in capsys.readouterr().out

    got.clear()
    for d in ("onepass", "overlap"):
        text = ONE_PASS if d == "onepass" else OVERLAPPING
        (tree / d / "README.md").write_text(text, encoding="utf-8")
    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", "--format", "json", "."]) == 0
    kept = {Path(s.path).parent.name: s for item in got for s in sources_in(item)}
    assert set(kept) == {"clean", "onepass", "overlap"}  # the checked files; not the tools one
    for d, s in kept.items():  # the check reported is the new text's
        assert s.text == (tree / d / "README.md").read_text(encoding="utf-8")
    capsys.readouterr()


def _run(where: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple:
    os.chdir(where)
    rc = cli.main(["fix", *args, "."])
    out = capsys.readouterr()
    files = {p.relative_to(where).as_posix(): p.read_bytes() for p in sorted(where.rglob("*.md"))}
    return rc, out.out, out.err, files


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--unsafe-fixes", "-q"],
        ["--format", "github"],
        ["--format", "sarif", "--unsafe-fixes"],
        ["--format", "json", "--statistics"],
        ["--diff"],
        ["--diff", "--format", "json", "--unsafe-fixes"],
    ],
)
def test_the_pool_and_one_process_print_and_write_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args
) -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: no pool")
    import shutil

    outside = tmp_path / "elsewhere.md"
    outside.write_text(ONE_PASS, encoding="utf-8")
    root = tmp_path / "tree"  # one path for both runs: SARIF prints it

    def fresh() -> Path:
        shutil.rmtree(root, ignore_errors=True)
        for i, text in enumerate([ONE_PASS, OVERLAPPING, NOT_A_MODEL_README, ONE_PASS] * 3):
            (root / f"m{i:02d}").mkdir(parents=True)
            (root / f"m{i:02d}" / "README.md").write_text(text, encoding="utf-8")
        (root / ".git").mkdir()
        (root / "link").mkdir()
        (root / "link" / "README.md").symlink_to(outside)  # outside the tree: not followed
        return root

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    one = _run(fresh(), args, capsys)
    monkeypatch.setenv("PERFBOT_JOBS", "2")
    pool = _run(fresh(), args, capsys)
    assert pool == one
    rc, out, err, files = one
    assert rc == 2  # the link is refused
    assert "symlink to a file outside" in out + err  # not read, and so not written
    assert outside.read_text(encoding="utf-8") == ONE_PASS
    overlapping = [p for p in files if p.startswith("m") and int(p[1:3]) % 4 == 1]
    if "--diff" in args:  # a diff writes nothing
        assert all(files[p] == OVERLAPPING.encode() for p in overlapping)
        assert "+++ b/m01/README.md" in out
    else:
        assert all(files[p] != OVERLAPPING.encode() for p in overlapping)


# --- selecting the edits to apply: by line, the same choice ---------------------------------------


def _old_select_edits(edits: list) -> list:
    """select_edits as it was (every edit compared with every one taken)."""
    from perfbot.fix import _overlaps

    taken: list = []
    for e in edits:
        if e in taken:
            continue
        if any(_overlaps(e, t) or _overlaps(t, e) for t in taken):
            continue
        taken.append(e)
    return taken


def _old_select_fixes(fixes: list) -> list:
    from perfbot.fix import _overlaps

    taken: list = []
    for fx in fixes:
        new = [e for e in fx.edits if e not in taken]
        if any(_overlaps(e, t) or _overlaps(t, e) for e in new for t in taken):
            continue
        taken.extend(_old_select_edits(new))
    return taken


def _edits():
    from hypothesis import strategies as st

    from perfbot.fix import Edit

    def edit(line: int, a: int, n: int, text: str) -> Edit:
        return Edit(line, a, a + n, text)

    return st.builds(
        edit, st.integers(1, 3), st.integers(0, 6), st.integers(0, 3), st.sampled_from("ab")
    )


def test_edits_are_selected_as_before() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from perfbot.fix import Fix, select_edits, select_fixes

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.lists(_edits(), min_size=1, max_size=4), max_size=6))
    def same(groups: list) -> None:
        fixes = [Fix("t", tuple(g)) for g in groups]
        flat = [e for g in groups for e in g]
        assert select_edits(flat) == _old_select_edits(flat)
        assert select_fixes(fixes) == _old_select_fixes(fixes)

    same()


def test_selecting_the_edits_of_a_long_table_compares_edits_of_one_line_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A column-order fix rewrites every row of a table: with thousands of rows, comparing each
    edit with every edit taken was quadratic."""
    from perfbot import fix
    from perfbot.fix import Edit, Fix

    calls = 0
    real = fix._overlaps

    def counting(a: Edit, b: Edit) -> bool:
        nonlocal calls
        calls += 1
        return real(a, b)

    monkeypatch.setattr(fix, "_overlaps", counting)
    rows = 2000
    reorder = Fix("order", tuple(Edit(n, 0, 10, "x") for n in range(1, rows + 1)))
    cells = [Fix("cell", (Edit(n, 2, 3, "y"),)) for n in range(1, rows + 1)]
    taken = fix.select_fixes([reorder, *cells])
    assert taken == list(reorder.edits)
    assert calls <= 4 * rows
