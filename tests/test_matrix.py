"""The compatibility matrix (SPEC §1): builtin rows, lookups, row checks, config overrides."""

from __future__ import annotations

import pytest

from perfbot.spec.matrix import Matrix, MatrixIssue, MatrixRow
from perfbot.spec.versions import parse_version


@pytest.fixture(scope="module")
def m() -> Matrix:
    return Matrix.builtin()


# The style guide's own table: its three rows are facts.
GUIDE_ROWS = [
    ("2.3.1", "24.1.RC2", "7.3.0.1.231", "8.0.RC2.beta1"),
    ("2.3.0", "24.1.RC2", "7.3.0.1.231", "8.0.RC2.beta1"),
    ("2.1.0", "23.0.rc2", "6.4.12.1.241", "6.3.RC2"),
]


@pytest.mark.parametrize("row", GUIDE_ROWS)
def test_guide_rows_are_valid(m: Matrix, row: tuple[str, str, str, str]) -> None:
    assert m.check_row(*row) == []


def test_builtin_is_cached_and_sorted(m: Matrix) -> None:
    assert Matrix.builtin() is m
    keys = [r.version.key for r in m.rows()]
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys))


def test_builtin_rows_are_sourced_and_canonical(m: Matrix) -> None:
    for row in m.rows():
        assert row.sources, row.mindspore
        assert row.origin == "builtin"
        for kind, value in row.values().items():
            if value is None:
                continue
            v = parse_version(kind, value)
            assert v is not None and v.canonical == value, (kind, value)


def test_cann_of_another_release_is_an_error(m: Matrix) -> None:
    issues = m.check_row("2.3.1", "24.1.RC2", "7.3.0.1.231", "8.0.RC3.beta1")
    assert issues == [
        MatrixIssue("cann", "8.0.RC3.beta1", "8.0.RC2.beta1", "error", "cann_mismatch", "2.3.1")
    ]
    assert "does not belong to MindSpore 2.3.1" in issues[0].message


def test_other_driver_is_a_warning(m: Matrix) -> None:
    issues = m.check_row("2.3.1", "24.1.RC3", "7.3.0.1.231", "8.0.RC2.beta1")
    assert [(i.field, i.found, i.expected, i.level) for i in issues] == [
        ("driver", "24.1.RC3", "24.1.RC2", "warning")
    ]


def test_other_firmware_is_a_warning(m: Matrix) -> None:
    issues = m.check_row("2.5.0", "24.1.0", "7.5.T11.0.B088", "8.0.0.beta1")
    assert [(i.field, i.level, i.code) for i in issues] == [
        ("firmware", "warning", "firmware_mismatch")
    ]


def test_lowercase_rc_is_no_issue(m: Matrix) -> None:
    assert m.check_row("2.1.0", "23.0.rc2", "6.4.12.1.241", "6.3.RC2") == []


def test_unknown_mindspore(m: Matrix) -> None:
    issues = m.check_row("1.8.0", "23.0.rc2", "6.4.12.1.241", "6.3.RC2")
    assert len(issues) == 1
    (i,) = issues
    assert (i.field, i.found, i.expected, i.level, i.code) == (
        "mindspore",
        "1.8.0",
        None,
        "warning",
        "unknown_mindspore",
    )
    assert m.lookup("1.8.0") is None
    assert m.canonical_row("1.8.0") == {}


def test_not_a_version_is_unknown_mindspore(m: Matrix) -> None:
    (i,) = m.check_row("mindpsore", "24.1.RC2", "7.3.0.1.231", "8.0.RC2.beta1")
    assert i.code == "unknown_mindspore"
    assert m.check_row("", "24.1.RC2", "7.3.0.1.231", "8.0.RC2.beta1") == []


def test_hunyuan_dit_style_row(m: Matrix) -> None:
    # the row exactly as mindone examples/hunyuan_dit/README.md writes it
    line = "| 2.3.1     |  24.1RC2      |7.3.0.1.231|   8.0.RC2.beta1   |"
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert m.check_row(*cells) == []


@pytest.mark.parametrize(
    "row",
    [
        ("**2.3.1**", "Ascend HDK 24.1.RC2", "7.3.0.1.231", "CANN 8.0.RC2.beta1"),
        ("[2.3.1](https://www.mindspore.cn/)", "24.1.RC2", "7.3.0.1.231", "[`CANN 8.0.RC2`](u)"),
        ("2.6.0", "25.0.rc1.1", "7.7.0.1.231", "8.1.RC1.beta1"),
        ("2.5.0", "24.1.0", "7.5.0.3.220", "8.0.0beta1"),
        ("2.3.0/2.3.1", "24.1.RC2", "7.3.0.1.231", "8.0.RC2.beta1"),
        ("2.5", "24.1.0", "7.5.0.3.220", "8.0.0.beta1"),
        ("2.0.0rc1", "23.0.rc1", "anything", "6.3.RC1.alpha003"),  # null firmware: not checked
    ],
)
def test_spelling_variants_accepted(m: Matrix, row: tuple[str, str, str, str]) -> None:
    assert m.check_row(*row) == []


def test_empty_cells_are_not_checked(m: Matrix) -> None:
    assert m.check_row("2.3.1", "", None, "  ") == []


def test_unparseable_cann_is_an_error(m: Matrix) -> None:
    (i,) = m.check_row("2.3.1", "24.1.RC2", "7.3.0.1.231", "latest")
    assert (i.field, i.level) == ("cann", "error")


def test_major_minor_lookup(m: Matrix) -> None:
    row = m.lookup("2.5")
    assert row is not None and row.mindspore == "2.5.0"
    assert m.lookup("2.4") is None  # 2.4.0 and 2.4.10
    assert [r.mindspore for r in m.candidates("2.4")] == ["2.4.0", "2.4.10"]
    (i,) = m.check_row("2.4", "24.1.RC3", "7.5.0.1.129", "8.0.RC3.beta1")
    assert i.code == "unknown_mindspore" and "2.4.10" in i.detail


def test_lookup_normalises(m: Matrix) -> None:
    assert m.lookup("v2.0.0-rc1").mindspore == "2.0.0rc1"
    assert m.lookup("**2.3.1**").mindspore == "2.3.1"
    assert m.lookup("not a version") is None


def test_canonical_row(m: Matrix) -> None:
    assert m.canonical_row("2.1.0") == {
        "mindspore": "2.1.0",
        "driver": "23.0.RC2",
        "firmware": "6.4.12.1.241",
        "cann": "6.3.RC2",
    }


def test_multi_version_cell_checks_each(m: Matrix) -> None:
    issues = m.check_row("2.6.0/2.7.2", "25.0.RC1", "7.7.0.1.231", "8.1.RC1")
    assert ("cann", "error", "2.7.2") in {(i.field, i.level, i.mindspore) for i in issues}


def test_range_cell_unknown_endpoint(m: Matrix) -> None:
    issues = m.check_row("2.2.10～2.2.15", "23.0.3", "7.1.0.5.220", "7.0.0 beta1")
    assert [(i.code, i.found) for i in issues] == [("unknown_mindspore", "2.2.15")]


def test_config_override_replaces_row(m: Matrix) -> None:
    merged = Matrix.merged(
        [{"mindspore": "2.3.1", "driver": "24.1.RC3", "firmware": None, "cann": "8.0.RC3.beta1"}]
    )
    row = merged.lookup("2.3.1")
    assert row is not None and row.origin == "config"
    assert (row.driver, row.firmware, row.cann) == ("24.1.RC3", None, "8.0.RC3.beta1")
    assert merged.check_row("2.3.1", "24.1.RC3", "7.5.T11.0", "8.0.RC3.beta1") == []
    assert len(merged.rows()) == len(m.rows())
    # the builtin matrix is untouched
    assert m.lookup("2.3.1").origin == "builtin"


def test_config_adds_row_and_instance_call(m: Matrix) -> None:
    merged = m.merged([MatrixRow(mindspore="2.11.0", cann="9.1.0")])
    assert merged.lookup("2.11.0").origin == "config"
    assert len(merged.rows()) == len(m.rows()) + 1
    assert merged.check_row("2.11.0", "24.1RC3", "7.3.0.1.231", "9.1.0") == []


def test_config_spelling_variants_override(m: Matrix) -> None:
    merged = Matrix.merged([{"mindspore": "v2.3.1", "cann": "8.0.RC2"}])
    assert len(merged.rows()) == len(m.rows())
    assert merged.lookup("2.3.1").origin == "config"


def test_merged_without_rows_is_builtin(m: Matrix) -> None:
    assert Matrix.merged([]) is m
    assert Matrix.merged(None) is m


def test_bad_config_rows_never_raise(m: Matrix) -> None:
    merged = Matrix.merged(
        [{"mindspore": "foo"}, {"mindspore": "2.5"}, {"mindspore": 2.5}, {"mindspore": "2.8.0"}]
    )
    assert len(merged.errors) == 3
    assert merged.lookup("2.8.0").origin == "config"


def test_row_validation() -> None:
    with pytest.raises(ValueError):
        MatrixRow(mindspore="2.3.1", cann="latest")
    with pytest.raises(ValueError):
        MatrixRow(mindspore="2.3.1", unknown="x")
    with pytest.raises(ValueError):
        Matrix.from_rows([{"mindspore": "2.3.1"}]).model_validate(
            {"entries": [{"mindspore": "2.3.1"}, {"mindspore": "v2.3.1"}]}
        )


@pytest.mark.parametrize(
    "cells",
    [
        (None, None, None, None),
        ("x" * 100_000, "y", "z", "w"),
        ("2.3.1", "|", "||", "\\|"),
        ("2.3.1", "<br>", "&nbsp;", "**"),
    ],
)
def test_check_row_never_raises(m: Matrix, cells: tuple) -> None:
    assert isinstance(m.check_row(*cells), list)
