"""Speed without changing results (issue 11): work perfbot no longer does twice.

No wall-clock assertions here (those are in bench/): these tests count the work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot import cli
from perfbot.cli import batch
from perfbot.engine import check_source
from perfbot.source import read_source
from speedkit import count_parses

README = """\
# Net

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of every document parsed, in order."""
    return count_parses(monkeypatch)


def test_fix_parses_a_file_fixed_in_one_pass_twice(
    tmp_path: Path, parses: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # once to find the fixes, once to check the fixed text (reported and confirming it settled);
    # it used to be four times (the fix loop re-parsed the original, the CLI the result)
    p = tmp_path / "README.md"
    p.write_text(README, encoding="utf-8")
    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", str(p)]) == 0
    assert parses == [str(p), str(p)]
    out = capsys.readouterr().out
    assert "fixed 3 findings" in out
    # what fix reports for the new text is what check says about the written file
    src = read_source(p)
    after = check_source(src)
    assert [f.rule for f in after.findings] == ["PB303"]  # no Requirements fix left, no values
    assert after.findings[0].fix is None
    assert "1 finding (1 error" in out


# --- no .perfbot.yml: no pydantic ----------------------------------------------------------------

PROBE = """
import sys
from perfbot import cli
rc = cli.main(["check", "--fail-on", "never", sys.argv[1]])
print(rc, sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "perfbot")))
"""


def _modules_after_check(tmp_path: Path, text: str) -> str:
    import subprocess
    import sys

    p = tmp_path / "README.md"
    p.write_text(text, encoding="utf-8")
    (tmp_path / ".git").mkdir(
        exist_ok=True
    )  # the repository root: no config file above it is looked at
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(p)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[-1]


def test_checking_without_a_config_file_does_not_build_the_config_classes(tmp_path: Path) -> None:
    # a README whose tables need no compatibility matrix (which is pydantic too, for now)
    text = "# Net\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    loaded = _modules_after_check(tmp_path, text)
    assert loaded.startswith("0 ")
    assert "perfbot.engine" in loaded
    assert "perfbot.config'" not in loaded
    assert "pydantic" not in loaded
    # a config file is still read (a plain one without pydantic either: tests/test_config_plain.py)
    (tmp_path / ".perfbot.yml").write_text("rules:\n  PB303: off\n", encoding="utf-8")
    loaded = _modules_after_check(tmp_path, text)
    assert "'perfbot.config_read'" in loaded


# --- fix in the process pool ----------------------------------------------------------------------


def _tree(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"m{i:03d}"
        d.mkdir(parents=True)
        text = README.replace("| net ", f"| n{i:02d}") if i % 3 else README.replace("0.5 ", "0.50")
        (d / "README.md").write_text(text, encoding="utf-8")


def test_fix_on_many_files_runs_in_the_pool_and_writes_what_one_process_writes(
    tmp_path: Path,
    parses: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: no pool")
    n = 12
    _tree(tmp_path / "pool", n)
    _tree(tmp_path / "one", n)
    monkeypatch.chdir(tmp_path / "pool")
    monkeypatch.setenv("PERFBOT_JOBS", "2")  # a pool, whatever the size and the machine's load
    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", "--format", "json", "."]) == 0
    pooled = capsys.readouterr()
    # every file was read, checked and fixed in a worker (the main process checked a README of
    # its own before forking them, so that they start warm)
    assert parses == [batch.WARM_PATH]
    parses.clear()
    monkeypatch.chdir(tmp_path / "one")
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    assert cli.main(["fix", "--unsafe-fixes", "--fail-on", "never", "--format", "json", "."]) == 0
    serial = capsys.readouterr()
    assert len(parses) == 2 * n  # each file: its check, and the check of the fixed text
    assert pooled.out == serial.out
    assert pooled.err == serial.err
    fixed = sum(2 if i % 3 == 0 else 3 for i in range(n))  # one value already has 2 decimals
    assert f"Fixed {fixed} findings in {n} files" in pooled.err
    for i in range(n):
        rel = Path(f"m{i:03d}") / "README.md"
        assert (tmp_path / "pool" / rel).read_bytes() == (tmp_path / "one" / rel).read_bytes()


# --- quick wins ----------------------------------------------------------------------------------


class _CountingList(list):
    iterations = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).iterations += 1
        return super().__iter__()


def test_the_newline_of_a_source_is_counted_once() -> None:
    from perfbot.source import Source

    eols = _CountingList(["\r\n", "\r\n", "\n", ""])
    src = Source("x.md", "a\r\nb\r\nc\nd", ["a", "b", "c", "d"], eols)
    assert [src.newline for _ in range(50)] == ["\r\n"] * 50
    assert _CountingList.iterations == 1


def test_check_and_fix_collect_garbage_less_often(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    before = gc.get_threshold()
    p = tmp_path / "README.md"
    p.write_text(README, encoding="utf-8")
    try:
        gc.set_threshold(700, 10, 10)  # CPython's default
        cli.main(["check", "--fail-on", "never", str(p)])
        assert gc.get_threshold()[0] >= 10_000
        gc.set_threshold(700, 10, 10)
        cli.main(["rules"])
        assert gc.get_threshold() == (700, 10, 10)  # only check and fix
    finally:
        gc.set_threshold(*before)


# --- JSON output: orjson when installed, the same text -------------------------------------------

try:
    import orjson  # noqa: F401

    HAVE_ORJSON = True
except ImportError:
    HAVE_ORJSON = False

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.skipif(not HAVE_ORJSON, reason="orjson is not installed")
@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_json_output_is_the_standard_librarys_text(data: object) -> None:
    # any text: control characters, U+2028, emoji, lone surrogates (undecodable bytes read with
    # surrogateescape), integers beyond 64 bits: orjson or the fallback, never a difference

    from perfbot.report.json import dumps

    assert dumps(data) == json.dumps(data, indent=2, ensure_ascii=False)


@pytest.mark.skipif(not HAVE_ORJSON, reason="orjson is not installed")
def test_json_output_uses_orjson_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:

    from perfbot.report import json as report_json

    def refuse(*a: object, **k: object) -> str:
        raise AssertionError("the standard library's encoder was used")

    monkeypatch.setattr(json, "dumps", refuse)
    want = '{\n  "a": [\n    "é",\n    1,\n    null\n  ]\n}'
    assert report_json.dumps({"a": ["é", 1, None]}) == want
    # a lone surrogate falls back to it
    with pytest.raises(AssertionError, match="standard library"):
        report_json.dumps({"a": "\udc80"})


def test_the_pool_is_used_only_for_many_files_and_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.delenv("PERFBOT_JOBS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    small = tmp_path / "small.md"
    small.write_text("x" * 100)
    big = tmp_path / "big.md"
    big.write_text("x" * (batch.PARALLEL_MIN_BYTES // batch.PARALLEL_MIN_FILES + 1))
    many_small = [(str(small),)] * batch.PARALLEL_MIN_FILES
    many_big = [(str(big),)] * batch.PARALLEL_MIN_FILES
    few_big = [(str(big),)] * (batch.PARALLEL_MIN_FILES - 1)
    assert batch._pool_size(many_small) == 0  # 100 kB: not worth a pool
    assert batch._pool_size(few_big) == 0
    assert batch._pool_size(many_big) == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (4.5, 4.0, 3.0))  # two runnable per core
    assert batch._pool_size(many_big) == 0
    monkeypatch.setenv("PERFBOT_JOBS", "3")
    assert batch._pool_size([(str(small),)]) == 3
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert batch._pool_size(many_big) == 0


def test_the_builtin_matrix_is_read_with_the_spec_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    # libyaml's loader, as for columns.yaml (PyYAML's pure-Python parser took ~15 ms of a
    # one-README check); the same rows either way
    import yaml

    from perfbot.spec import matrix

    def pure_python(*a: object, **k: object) -> object:
        raise AssertionError("yaml.safe_load (the pure-Python parser) was used")

    monkeypatch.setattr(yaml, "safe_load", pure_python)
    builtin = matrix.Matrix.builtin()
    matrix._builtin.cache_clear()
    try:
        again = matrix.Matrix.builtin()
    finally:
        matrix._builtin.cache_clear()
    assert again.rows() == builtin.rows()
    assert len(again.rows()) >= 10


# --- the config search and the walk's listings ---------------------------------------------------


def _stats_of(monkeypatch: pytest.MonkeyPatch, names: set[str]) -> list[str]:
    """Paths ending in one of ``names`` that anything stats (Path.is_file and os.path.isfile
    alike go through os.stat)."""
    import os

    seen: list[str] = []
    real = os.stat

    def stat(path, *a, **k):
        if os.path.basename(os.fspath(path)) in names:
            seen.append(os.fspath(path))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "stat", stat)
    return seen


def test_the_config_search_takes_walked_folders_from_their_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a tree of one README per folder (as the corpus x10 is laid out): the walk has listed every
    # folder, so looking for .perfbot.yml / .git in them again was 3 stats a README (~50 ms for
    # 1,650 READMEs, in the main process before any worker starts)
    from perfbot.config import clear_caches

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for i in range(20):
        d = root / "models" / f"m{i}"
        d.mkdir(parents=True)
        (d / "README.md").write_text(README, encoding="utf-8")
    clear_caches()
    seen = _stats_of(monkeypatch, {".perfbot.yml", ".perfbot.yaml", ".git"})
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    assert cli.main(["check", "--fail-on", "never", "-q", str(root)]) == 0
    capsys.readouterr()
    # the walk listed models and each m<i>, which hold neither: none of them is stat-ed for a
    # config or .git (the repository's top, whose listing has .git, is still asked: by git_top,
    # and by the search's last step, once for all its READMEs)
    walked = {str(root / "models"), *(str(root / "models" / f"m{i}") for i in range(20))}
    assert [p for p in seen if str(Path(p).parent) in walked] == []
    assert len([p for p in seen if str(Path(p).parent) == str(root)]) <= 4


def test_configs_are_found_through_the_walks_listings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a config in a walked folder, one above the walked root, and a .git between them: what
    # the listings say must lead to the same configs as asking the file system
    from perfbot.config import clear_caches

    top = tmp_path / "top"
    (top / ".perfbot.yml").parent.mkdir(parents=True)
    (top / ".perfbot.yml").write_text("rules: {PB201: 'off'}\n", encoding="utf-8")
    repo = top / "repo"
    (repo / ".git").mkdir(parents=True)
    near = repo / "a" / "b"
    near.mkdir(parents=True)
    (repo / "a" / ".perfbot.yml").write_text("rules: {PB303: 'off'}\n", encoding="utf-8")
    (near / "README.md").write_text(README.replace("Experiments", "Tests"), encoding="utf-8")
    plain = repo / "c"
    plain.mkdir()
    (plain / "README.md").write_text(README.replace("Experiments", "Tests"), encoding="utf-8")
    monkeypatch.setenv("PERFBOT_JOBS", "1")
    seen = _stats_of(monkeypatch, {".perfbot.yml", ".perfbot.yaml", ".git"})
    for path in (repo, repo / "a", near):  # walked from several roots: the same answers
        clear_caches()
        seen.clear()
        cli.main(["check", "--format", "json", "--fail-on", "never", str(path)])
        # b and c were listed by the walk and hold neither: not asked again (the walk's root is,
        # by the walk's own search for the repository's top)
        listed = {near, plain} - {path}
        assert [p for p in seen if Path(p).parent in listed] == []

        rules = {}
        for f in json.loads(capsys.readouterr().out)["findings"]:
            rules.setdefault(Path(f["path"]).parent.name, set()).add(f["rule"])
        # a/.perfbot.yml governs a/b (PB303 off; the repository's .git stops the search above
        # it, so top's PB201-off does not apply); c has no config: every rule
        assert "PB303" not in rules["b"] and "PB201" in rules["b"]
        if path == repo:
            assert {"PB303", "PB201"} <= rules["c"]
    clear_caches()


def test_a_listing_with_a_config_name_in_another_case_is_left_to_the_file_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # on a case-insensitive file system (macOS, Windows) `.Perfbot.yml` is what the stat of
    # `.perfbot.yml` finds: a folder listing it must not be taken for one without a config
    from perfbot.config import clear_caches
    from perfbot.config_light import find_config_file, note_listing

    clear_caches()
    asked: list[str] = []
    monkeypatch.setattr("os.path.isfile", lambda p: asked.append(str(p)) or False)
    note_listing(str(tmp_path / "a"), ["README.md", ".Perfbot.yml"])
    note_listing(str(tmp_path / "b"), ["README.md", ".GIT"])
    note_listing(str(tmp_path / "c"), ["README.md"])
    for d in "abc":
        find_config_file(tmp_path / d)
    assert str(tmp_path / "a" / ".perfbot.yml") in asked
    assert str(tmp_path / "b" / ".perfbot.yml") in asked
    assert str(tmp_path / "c" / ".perfbot.yml") not in asked
    clear_caches()
