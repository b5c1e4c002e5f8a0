"""Version normalisation: every spelling in shared/spec/VERSION-SPELLINGS.md, plus properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot.spec.versions import (
    KINDS,
    Version,
    mindspore_versions,
    normalize_cann,
    normalize_driver,
    normalize_firmware,
    normalize_mindspore,
    parse_version,
    same_cann,
    same_driver,
    same_firmware,
    same_mindspore,
)

# (text, canonical) for every spelling VERSION-SPELLINGS.md lists, per kind.
DRIVER = [
    ("24.1.RC2", "24.1.RC2"),
    ("24.1.rc2", "24.1.RC2"),
    ("Version=24.1.rc3", "24.1.RC3"),
    ("package_version=24.1.rc3", "24.1.RC3"),
    ("24.1RC2", "24.1.RC2"),
    ("23.0.rc2", "23.0.RC2"),
    ("Ascend HDK 24.1.RC2", "24.1.RC2"),
    ("Ascend+HDK+25.2.0", "25.2.0"),
    ("25.0.rc1.1", "25.0.RC1.1"),
    ("25.0.RC1.1", "25.0.RC1.1"),
    ("npu-smi 25.0.rc1.1", None),  # a command line, not a cell
    ("25.3.RC1.2", "25.3.RC1.2"),
    ("1.0.22.alpha", "1.0.22.alpha"),
    ("1.0.27.alpha", "1.0.27.alpha"),
    ("1.0.RC2", "1.0.RC2"),
    # from the corpus
    ("24.1.RC3.b080", "24.1.RC3.B080"),
    ("24.1.0", "24.1.0"),
    ("23.0.3", "23.0.3"),
    ("Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run", "25.0.RC1.1"),
]

FIRMWARE = [
    ("7.3.0.1.231", "7.3.0.1.231"),
    ("7.5.0.1.129", "7.5.0.1.129"),
    ("7.5.0.3.220", "7.5.0.3.220"),
    ("7.7.0.1.231", "7.7.0.1.231"),
    ("6.4.12.1.241", "6.4.12.1.241"),
    ("7.5.T11.0.B088", "7.5.T11.0.B088"),
    ("7.3.t10", "7.3.T10"),
    ("7.0.t9.0.b221", "7.0.T9.0.B221"),
    ("25.0.RC1", "25.0.RC1"),  # an HDK version in the firmware column
    ("Ascend-hdk-910b-npu-firmware_7.3.0.1.231.run", "7.3.0.1.231"),
    ("Version=7.5.0.1.129", "7.5.0.1.129"),
    ("7.3.0.1.231:8.0.RC2", None),  # runtime:CANN from version.cfg, not a firmware
    ("7.5.0.1.129:8.0.RC3", None),
    ("7.5.T11.0", "7.5.T11.0"),
]

CANN = [
    ("8.0.RC2.beta1", "8.0.RC2.beta1"),
    ("8.0.RC2", "8.0.RC2"),
    ("8.0.0.beta1", "8.0.0.beta1"),
    ("8.0.0", "8.0.0"),
    ("8.1.RC1.beta1", "8.1.RC1.beta1"),
    ("8.1.RC1", "8.1.RC1"),
    ("8.0.0beta1", "8.0.0.beta1"),
    ("7.0.0 beta1", "7.0.0.beta1"),
    ("CANN 8.0.RC3.beta1", "8.0.RC3.beta1"),
    ("CANN 8.0.RC2.beta1", "8.0.RC2.beta1"),
    ("CANN\t8.0.RC2.beta1", "8.0.RC2.beta1"),
    ("CANN-7.0.RC1", "7.0.RC1"),
    ("cann_8.0.rc3", "8.0.RC3"),
    ("cann_8.0.0", "8.0.0"),
    ("8.3.rc1", "8.3.RC1"),
    ("8.0.RC3.alpha002", "8.0.RC3.alpha002"),
    ("8.2.RC1.alpha003", "8.2.RC1.alpha003"),
    ("5.1.RC2.alpha007", "5.1.RC2.alpha007"),
    ("6.3.RC2.alpha005", "6.3.RC2.alpha005"),
    ("7.0.RC1.alpha005", "7.0.RC1.alpha005"),
    ("8.5.0-beta.1", "8.5.0.beta1"),
    ("9.0.0-beta.2", "9.0.0.beta2"),
    ("Ascend-cann-toolkit_8.0.RC2_linux-aarch64.run", "8.0.RC2"),
    ("7.3.0.1.231:8.0.RC2", "8.0.RC2"),  # version.cfg: runtime:CANN
    ("[`CANN 8.0.RC2.beta1`](https://www.hiascend.com/software/cann)", "8.0.RC2.beta1"),
]

MINDSPORE = [
    ("2.6.0-rc1", "2.6.0rc1"),
    ("v2.6.0rc1", "2.6.0rc1"),
    ("2.6.0rc1", "2.6.0rc1"),
    ("2.5", "2.5"),
    ("**2.5.0**", "2.5.0"),
    ("`2.3.1`", "2.3.1"),
    ("[2.3.1](https://www.mindspore.cn/)", "2.3.1"),
    ("MindSpore 2.3.1", "2.3.1"),
    ("2.3.1", "2.3.1"),
    ("2.2.10～2.2.12", None),  # a range: see mindspore_versions
    ("2.3.0/2.3.1", None),
]

CASES = [
    *(("driver", t, c) for t, c in DRIVER),
    *(("firmware", t, c) for t, c in FIRMWARE),
    *(("cann", t, c) for t, c in CANN),
    *(("mindspore", t, c) for t, c in MINDSPORE),
]


@pytest.mark.parametrize(("kind", "text", "canonical"), CASES)
def test_spelling(kind: str, text: str, canonical: str | None) -> None:
    v = parse_version(kind, text)
    if canonical is None:
        assert v is None
        return
    assert v is not None
    assert v.canonical == canonical
    assert v.text == text
    assert v.kind == kind
    # idempotent
    again = parse_version(kind, v.canonical)
    assert again is not None and again.canonical == canonical and again.key == v.key


def test_normalize_aliases() -> None:
    assert normalize_driver("24.1rc2") == parse_version("driver", "24.1.RC2")
    assert normalize_firmware("7.3.0.1.231") == parse_version("firmware", "7.3.0.1.231")
    assert normalize_cann("cann_8.0.rc2") == parse_version("cann", "8.0.RC2")
    assert normalize_mindspore("v2.6.0rc1") == parse_version("mindspore", "2.6.0-rc1")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("24.1.RC2", "24.1.rc2"),
        ("24.1RC2", "24.1.RC2"),
        ("Ascend HDK 24.1.RC2", "24.1.RC2"),
        ("25.0.rc1.1", "25.0.RC1"),
        ("25.3.RC1.2", "25.3.RC1"),
        ("24.1.RC3.b080", "24.1.RC3"),
        ("Ascend+HDK+25.2.0", "25.2.0"),
        ("Version=24.1.rc3", "24.1.RC3"),
    ],
)
def test_same_driver(a: str, b: str) -> None:
    assert same_driver(a, b)
    assert same_driver(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [("24.1.RC2", "24.1.RC3"), ("24.1.0", "24.1.RC3"), ("23.0.3", "23.0.2"), ("x", "x"), ("", "")],
)
def test_different_driver(a: str, b: str) -> None:
    assert not same_driver(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("8.0.RC2.beta1", "8.0.RC2"),
        ("8.0.0.beta1", "8.0.0"),
        ("8.1.RC1.beta1", "8.1.RC1"),
        ("8.0.0beta1", "8.0.0.beta1"),
        ("7.0.0 beta1", "7.0.0.beta1"),
        ("CANN 8.0.RC3.beta1", "8.0.RC3.beta1"),
        ("CANN-7.0.RC1", "7.0.RC1"),
        ("cann_8.0.rc3", "8.0.RC3"),
        ("8.0.RC3.alpha002", "8.0.RC3"),
        ("8.5.0-beta.1", "8.5.0"),
        ("Ascend-cann-toolkit_8.0.RC2_linux-aarch64.run", "8.0.RC2.beta1"),
    ],
)
def test_same_cann(a: str, b: str) -> None:
    assert same_cann(a, b)
    assert same_cann(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [("8.0.RC2.beta1", "8.0.RC3.beta1"), ("8.0.0.beta1", "8.0.RC3"), ("8.1.RC1", "8.2.RC1")],
)
def test_different_cann(a: str, b: str) -> None:
    assert not same_cann(a, b)


def test_same_firmware() -> None:
    assert same_firmware("7.3.0.1.231", "Ascend-hdk-910b-npu-firmware_7.3.0.1.231.run")
    assert same_firmware("7.5.t11.0.b088", "7.5.T11.0.B088")
    assert not same_firmware("7.3.0.1.231", "7.3.0.2.220")
    assert not same_firmware("7.3.0.1.231:8.0.RC2", "7.3.0.1.231")


def test_same_mindspore() -> None:
    assert same_mindspore("2.6.0-rc1", "v2.6.0rc1")
    assert same_mindspore("**2.5.0**", "2.5.0")
    assert not same_mindspore("2.5", "2.5.0")
    assert not same_mindspore("2.6.0rc1", "2.6.0")


def test_same_accepts_version_objects() -> None:
    v = normalize_cann("8.0.RC2.beta1")
    assert same_cann(v, "8.0.RC2")
    assert not same_cann(None, "8.0.RC2")


@pytest.mark.parametrize(
    ("cell", "expected", "in_range"),
    [
        ("2.3.1", ["2.3.1"], False),
        ("2.3.0/2.3.1", ["2.3.0", "2.3.1"], False),
        ("2.6.0/2.7.0", ["2.6.0", "2.7.0"], False),
        ("2.3.0, 2.3.1", ["2.3.0", "2.3.1"], False),
        ("2.2.10～2.2.12", ["2.2.10", "2.2.12"], True),
        ("2.2.10~2.2.12", ["2.2.10", "2.2.12"], True),
        ("2.2.10 ~ 2.2.12", ["2.2.10", "2.2.12"], True),
        ("2.2.10-2.2.12", ["2.2.10", "2.2.12"], True),
        ("2.5", ["2.5"], False),
        ("v2.6.0rc1", ["2.6.0rc1"], False),
        ("2.6.0-rc1", ["2.6.0rc1"], False),
        ("**2.5.0**", ["2.5.0"], False),
        ("", [], False),
        ("-", [], False),
        ("2.3.1/foo", [], False),
        ("mindspore", [], False),
    ],
)
def test_mindspore_versions(cell: str, expected: list[str], in_range: bool) -> None:
    vs = mindspore_versions(cell)
    assert [v.canonical for v in vs] == expected
    assert all(v.in_range is in_range for v in vs)


def test_partial_and_order() -> None:
    v = normalize_mindspore("2.5")
    assert v is not None and v.partial
    assert normalize_mindspore("2.6.0rc1") < normalize_mindspore("2.6.0")
    assert normalize_cann("8.0.RC3") < normalize_cann("8.0.0")
    assert normalize_driver("24.1.RC3") < normalize_driver("24.1.0") < normalize_driver("25.0.RC1")
    assert normalize_cann("8.0.RC2.beta1") < normalize_cann("8.0.RC2")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "text",
    [None, 3, 2.5, b"2.3.1", "", " ", "N/A", "-", "x" * 10_000, "9" * 5000, "1." * 3000, "<br>"],
)
def test_bad_text_is_none(kind: str, text: object) -> None:
    assert parse_version(kind, text) is None
    assert mindspore_versions(text) == []


def test_unknown_kind() -> None:
    assert parse_version("python", "3.11") is None


# --- properties -------------------------------------------------------------------------------

_num = st.integers(0, 40).map(str)
_sep = st.sampled_from(["", ".", " ", "-", "_"])
_rc = st.builds(lambda r, n: f"{r}{n}", st.sampled_from(["RC", "rc", "Rc"]), _num)
_suffix = st.builds(
    lambda s, w, n: f"{s}{w}{n}",
    _sep,
    st.sampled_from(["beta", "BETA", "alpha", "beta.", "rc", "a", "b", "T", "B", "t"]),
    _num,
)
_prefix = st.sampled_from(
    ["", "v", "CANN ", "CANN-", "cann_", "Ascend HDK ", "MindSpore ", "Version=", "**", "`"]
)
_versionish = st.builds(
    lambda p, a, b, c, d, s: f"{p}{a}.{b}{c}{d}{s}",
    _prefix,
    _num,
    _num,
    st.one_of(_rc.map(lambda x: "." + x), _rc, _num.map(lambda x: "." + x)),
    st.one_of(st.just(""), _num.map(lambda x: "." + x)),
    st.one_of(st.just(""), _suffix),
)
_text = st.one_of(st.text(max_size=60), _versionish)


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(KINDS), text=_text)
def test_never_raises_and_idempotent(kind: str, text: str) -> None:
    v = parse_version(kind, text)
    mindspore_versions(text)
    if v is None:
        return
    assert isinstance(v, Version)
    again = parse_version(kind, v.canonical)
    assert again is not None
    assert again.canonical == v.canonical
    assert again.key == v.key
    assert again.base == v.base


@settings(max_examples=100, deadline=None)
@given(a=_text, b=_text)
def test_same_helpers_never_raise(a: str, b: str) -> None:
    for same in (same_cann, same_driver, same_firmware, same_mindspore):
        assert same(a, b) == same(b, a)
