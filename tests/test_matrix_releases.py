"""The matrix as MindSpore states it (issue 21): the recommended pairing of each release, the CANN
its wheel accepts, the HDKs Ascend pairs with a CANN; `perfbot matrix`; and
scripts/matrix_wheels.py, tested on small stand-in wheels built here (never the network)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from perfbot.spec.matrix import Matrix, MatrixRow
from perfbot.spec.versions import normalize_mindspore

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def m() -> Matrix:
    return Matrix.builtin()


def _codes(issues) -> list[tuple[str, str, str]]:
    return [(i.field, i.level, i.code) for i in issues]


# -- what a release accepts ------------------------------------------------------------------


def test_a_cann_the_wheel_accepts_is_a_warning_not_an_error(m: Matrix) -> None:
    # MindSpore 2.7.0's run_check accepts 7.7 (CANN 8.1.RC1's internal number) and 8.2
    (i,) = m.check_row("2.7.0", "25.0.RC1", "7.7.0.1.231", "8.1.RC1")
    assert (i.level, i.code, i.expected) == ("warning", "cann_accepted", "8.2.RC1")
    assert "8.1.RC1, 8.2" in i.accepted


def test_a_patch_release_of_the_recommended_cann_is_clean(m: Matrix) -> None:
    assert m.check_row("2.7.2", "25.5.0", "7.8.0.5.216", "8.5.1") == []
    assert m.check_row("2.4.10", "24.1.0", "7.5.0.3.220", "8.0.1") == []
    # another RC of the same series is another release
    assert _codes(m.check_row("2.3.1", "24.1.RC2", "7.3.0.1.231", "8.0.RC3")) == [
        ("cann", "error", "cann_mismatch")
    ]


def test_a_cann_outside_what_the_release_accepts_is_an_error_naming_the_range(m: Matrix) -> None:
    (i,) = [x for x in m.check_row("2.10.0", "", "", "8.0.0") if x.field == "cann"]
    assert (i.level, i.code) == ("error", "cann_mismatch")
    assert i.accepted == "8.2–9.1 (8.2, 8.3, 8.5, 9.0, 9.1)"
    assert "8.2–9.1" in i.message


@pytest.mark.parametrize("version", ["2.4.1", "2.8.0", "2.10.0", "2.7.1.post1", "2.2.11"])
def test_new_releases_are_checked(m: Matrix, version: str) -> None:
    issues = m.check_row(version, "1.0.0", "", "5.0.RC1")
    assert issues and all(i.code != "unknown_mindspore" for i in issues)


def test_pep440_versions() -> None:
    post = normalize_mindspore("2.7.1.post1")
    assert post is not None and (post.canonical, post.base) == ("2.7.1.post1", "2.7.1")
    assert normalize_mindspore("2.7.1") < post < normalize_mindspore("2.7.2")
    assert normalize_mindspore("2.3.0rc1").canonical == "2.3.0rc1"
    assert normalize_mindspore("2.5.post1") is None


def test_a_post_release_without_a_row_uses_its_release(m: Matrix) -> None:
    assert m.lookup("2.7.1.post1").mindspore == "2.7.1.post1"
    assert m.lookup("2.7.2.post3").mindspore == "2.7.2"
    assert m.canonical_row("2.7.2.post3")["mindspore"] == "2.7.2.post3"
    assert m.canonical_row("2.7.2.post3")["cann"] == "8.5.0"


def test_major_minor_with_rc_rows_and_agreeing_rows(m: Matrix) -> None:
    assert m.lookup("2.6").mindspore == "2.6.0"  # 2.6.0rc1 is a pre-release of 2.6.0
    assert m.lookup("2.0").mindspore == "2.0.0"
    assert m.lookup("2.3").mindspore == "2.3.0"  # 2.3.0 and 2.3.1 agree on everything
    assert m.lookup("2.2") is None  # 2.2.0, 2.2.1 and 2.2.1x disagree
    assert m.lookup("2.7") is None


def test_drivers_are_judged_against_the_cann_range(m: Matrix) -> None:
    # CANN 8.5.0's release notes: HDK 25.0.X, 25.2.X, 25.3.X, 25.5.X
    assert m.check_row("2.7.2", "25.0.RC1", "7.7.0.1.231", "8.5.0") == []
    assert m.check_row("2.7.2", "25.3.RC1.2", "", "8.5.0") == []
    (i,) = m.check_row("2.7.2", "24.1.0", "", "8.5.0")
    assert (i.field, i.code) == ("driver", "driver_mismatch")
    assert i.compatible == "25.0.X, 25.2.X, 25.3.X, 25.5.X"
    # CANN 9.0.X works with HDK 25.0.X ... 26.1.0 (CANN 9.1.0 notes)
    assert m.check_row("2.9.0", "25.5.1", "", "9.0.0") == []
    assert _codes(m.check_row("2.9.0", "26.2.0", "", "9.0.0")) == [
        ("driver", "warning", "driver_mismatch")
    ]


def test_a_null_driver_is_checked_against_what_is_known(m: Matrix) -> None:
    row = m.lookup("2.10.0")
    assert row.driver is None and "conflicting" in row.notes["driver"]
    assert m.check_row("2.10.0", "26.0.RC1", "", "9.1.0") == []
    assert _codes(m.check_row("2.10.0", "25.0.RC1", "", "9.1.0")) == [
        ("driver", "warning", "driver_mismatch")
    ]


@pytest.mark.parametrize(
    ("firmware", "said"),
    [
        ("7.6.0.1.220", "CANN 8.0.0's own version number"),
        ("7.35.23", "ascendhal_version"),
        ("24.1.0", "Ascend HDK (driver) version"),
        ("8.0.0.beta1", "CANN version"),
    ],
)
def test_not_a_firmware_version(m: Matrix, firmware: str, said: str) -> None:
    (i,) = m.check_row("2.5.0", "24.1.0", firmware, "8.0.0.beta1")
    assert (i.field, i.code) == ("firmware", "not_firmware")
    assert said in i.message and "is not a firmware version" in i.message


def test_config_row_sets_what_it_accepts(m: Matrix) -> None:
    merged = Matrix.merged(
        [{"mindspore": "2.4.1", "cann": "8.0.RC3.beta1", "cann_accepted": ["8.0.RC2", "8.1"]}]
    )
    row = merged.lookup("2.4.1")
    assert row.cann_accepted == ("8.0.RC2", "8.1")
    assert _codes(merged.check_row("2.4.1", "", "", "8.1.RC1")) == [
        ("cann", "warning", "cann_accepted")
    ]
    assert _codes(merged.check_row("2.4.1", "", "", "8.0.0")) == [
        ("cann", "error", "cann_mismatch")
    ]
    with pytest.raises(ValueError):
        MatrixRow(mindspore="2.4.1", cann_accepted=["latest"])
    assert len(Matrix.merged([{"mindspore": "2.4.1", "cann_accepted": "8.1"}]).errors) == 1


# -- the CLI, as users run it ------------------------------------------------------------------


def _perfbot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfbot", *args], capture_output=True, text=True, cwd=cwd
    )


def test_perfbot_matrix_lists_releases_and_what_they_accept(tmp_path: Path) -> None:
    out = _perfbot("matrix", str(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = {line.split("|")[1].strip(): line for line in out.stdout.splitlines() if "|" in line}
    for v in ("2.0.0", "2.2.1", "2.2.11", "2.4.1", "2.8.0", "2.10.0", "2.7.1.post1"):
        assert v in lines, v
    assert "| 8.2–9.1 (8.2, 8.3, 8.5, 9.0, 9.1) |" in lines["2.10.0"]
    assert "accepted cann" in out.stdout
    data = json.loads(_perfbot("matrix", str(tmp_path), "--format", "json").stdout)
    rows = {r["mindspore"]: r for r in data["rows"]}
    assert rows["2.10.0"]["accepted"] == ["8.2", "8.3", "8.5", "9.0", "9.1"]
    assert rows["2.10.0"]["accepted_from"].startswith("pypi:mindspore==2.10.0")
    assert rows["2.10.0"]["wheel"]["built_with"] == "9.1.0"
    assert rows["2.4.1"]["sources"] and rows["2.4.1"]["wheel"] is None
    assert {e["cann"] for e in data["cann"]["hdk"]} >= {"8.5", "9.0", "9.1"}


def test_perfbot_check_done_when(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "# M\n\n## Requirements\n\n"
        "| mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
        "| :-: | :-: | :-: | :-: |\n"
        "| 2.7.0 | 25.0.RC1 | 7.7.0.1.231 | 8.1.RC1 |\n"
        "| 2.7.2 | 25.5.0 | 7.8.0.5.216 | 8.5.1 |\n"
        "| 2.10.0 | 26.0.RC1 | | 8.0.0 |\n",
        encoding="utf-8",
    )
    out = _perfbot("check", "--select", "PB5", "README.md", cwd=tmp_path)
    errors = [line for line in out.stdout.splitlines() if " error " in line]
    assert len(errors) == 1 and ":9: error PB501" in errors[0] and "8.2–9.1" in errors[0]
    assert ":7: warning PB501" in out.stdout


# -- scripts/matrix_wheels.py on stand-in wheels ---------------------------------------------


@pytest.fixture(scope="module")
def mw():
    spec = importlib.util.spec_from_file_location(
        "matrix_wheels", ROOT / "scripts/matrix_wheels.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CHECK_VERSION = """
class EnvChecker:
    pass


class AscendEnvChecker(EnvChecker):
    def __init__(self, library_path):
        self.library_path = library_path
        self.version = ["8.2", "8.3", "8.5", "9.0", "9.1", "9.2"]
        self.v = "9.2"
"""


def _wheel(
    folder: Path, version: str, check: str | None = CHECK_VERSION, info: str | None = None
) -> Path:
    path = folder / f"mindspore-{version}-cp311-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        if check is not None:
            z.writestr("mindspore/run_check/_check_version.py", check)
        if info is not None:
            z.writestr("mindspore/lib/plugin/ascend/custom_ascendc_910b/version.info", info)
        z.writestr(
            "mindspore/.commit_id", "__commit_id__ = '[sha1]:0123abcd,[branch]:(HEAD,r2.11)'\n"
        )
    return path


def test_the_script_reads_a_wheel(mw, tmp_path: Path) -> None:
    path = _wheel(tmp_path, "2.11.0", info="custom_opp_compiler_version=9.2.0\n")
    got = mw.read_wheel(path)
    assert got["mindspore"] == "2.11.0"
    assert got["accepted"] == ["8.2", "8.3", "8.5", "9.0", "9.1", "9.2"]
    assert got["built_with"] == "9.2.0"
    assert got["commit"] == "0123abcd"
    assert len(got["sha256"]) == 64


def test_the_script_regenerates_and_says_what_changed(mw, tmp_path: Path, capsys) -> None:
    out = tmp_path / "matrix_wheels.yaml"
    out.write_text(mw.render([{"mindspore": "2.10.0", "accepted": ["8.2"], "built_with": "9.1.0"}]))
    a = _wheel(tmp_path, "2.10.0", check=CHECK_VERSION.replace(', "9.2"]', "]"))
    b = _wheel(tmp_path, "2.11.0", info="custom_opp_compiler_version=9.2.0\n")
    assert mw.main(["--wheel", str(a), str(b), "--output", str(out)]) == 0
    said = capsys.readouterr().out
    assert "~ 2.10.0: accepted ['8.2'] -> ['8.2', '8.3', '8.5', '9.0', '9.1']" in said
    assert "~ 2.10.0: built_with 9.1.0 -> None" in said
    assert "+ 2.11.0: accepts 8.2, 8.3, 8.5, 9.0, 9.1, 9.2" in said
    entries = mw.load(out)
    assert [e["mindspore"] for e in entries] == ["2.10.0", "2.11.0"]
    # the file is what perfbot reads: every entry's accepted list parses
    from perfbot.spec.matrix_facts import _accepted_spec

    assert all(_accepted_spec(x) for e in entries for x in e["accepted"])
    # run again: nothing changes
    assert mw.main(["--wheel", str(a), str(b), "--output", str(out)]) == 0
    assert "no change" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (None, "has no mindspore/run_check/_check_version.py"),
        ("class AscendEnvChecker:\n    pass\n", "no AscendEnvChecker self.version"),
        ("def (:\n", "does not parse"),
    ],
)
def test_the_script_refuses_a_wheel_without_the_list(mw, tmp_path: Path, check, message) -> None:
    with pytest.raises(mw.WheelError, match=message):
        mw.read_wheel(_wheel(tmp_path, "2.11.0", check=check))


def test_the_builtin_wheel_data_is_the_scripts_format(mw) -> None:
    path = ROOT / "src/perfbot/spec/matrix_wheels.yaml"
    assert path.read_text(encoding="utf-8") == mw.render(mw.load(path))
