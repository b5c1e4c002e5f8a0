"""One README in a fresh process (issue 11): what a cold `perfbot check` loads.

No wall-clock assertions (bench/bench_paths.py measures): these tests check which modules a fresh
interpreter imports, and that the hand-validated matrix rows say what pydantic said.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot.spec.matrix import Matrix, MatrixRow
from speedkit import NET_README

PROBE = """
import json, sys
import perfbot.cli
code = perfbot.cli.main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _cold_check(tmp_path: Path, *args: str) -> tuple[dict, str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "check", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def test_one_readme_without_config_does_not_import_pydantic(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the walk for .perfbot.yml stops here
    (tmp_path / "README.md").write_text(NET_README, encoding="utf-8")
    probe, out = _cold_check(tmp_path, "README.md")
    # the matrix was used (the CANN of another release is found) ...
    assert "perfbot.spec.matrix" in probe["modules"]
    assert "PB501" in out
    assert probe["code"] == 1
    # ... without pydantic (~150 ms of a one-README check, issue 11)
    assert not [m for m in probe["modules"] if m.split(".")[0] in ("pydantic", "pydantic_core")]


def test_a_config_with_matrix_rows_still_applies_them(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(NET_README, encoding="utf-8")
    (tmp_path / ".perfbot.yml").write_text(
        'matrix:\n  - {mindspore: "2.3.1", cann: "8.0.RC3.beta1"}\n', encoding="utf-8"
    )
    _, out = _cold_check(tmp_path, "README.md")
    assert "PB501" not in out
    assert "PB303" in out  # the rest is still checked


# what pydantic said for these rows (Matrix.merged's errors), kept word for word
NOT_TEXT = "Value error, must be a string (quote version numbers in YAML)"
BAD_ROWS = [
    ({"mindspore": "foo"}, "row: Value error, mindspore 'foo' is not a full MindSpore version"),
    ({"mindspore": "2.5"}, "row: Value error, mindspore '2.5' is not a full MindSpore version"),
    ({"mindspore": 2.5}, f"mindspore: {NOT_TEXT}"),
    ({"mindspore": None}, "mindspore: Input should be a valid string"),
    ({}, "mindspore: Field required"),
    (
        {"mindspore": "2.3.1", "cann": "latest"},
        "row: Value error, cann 'latest' is not a cann version",
    ),
    (
        {"mindspore": "2.3.1", "firmware": ""},
        "row: Value error, firmware '' is not a firmware version",
    ),
    (
        {"mindspore": "2.3.1", "unknown": "x", "zz": 1},
        "unknown: Extra inputs are not permitted; zz: Extra inputs are not permitted",
    ),
    (
        {"unknown": 1, "driver": 5, "sources": "x", "origin": None},
        "mindspore: Field required; "
        f"driver: {NOT_TEXT}; "
        "sources: Input should be a valid list; unknown: Extra inputs are not permitted",
    ),
    ({"mindspore": "2.3.1", "sources": ["a", 1]}, "sources.1: Input should be a valid string"),
    ({1: "x", "mindspore": "2.3.1"}, "1: Keys should be strings"),
]


@pytest.mark.parametrize(("row", "message"), BAD_ROWS)
def test_bad_rows_are_described_as_before(row: dict, message: str) -> None:
    merged = Matrix.merged([{"mindspore": "2.8.0"}, row])
    assert merged.errors == (f"matrix row 2: {message}",)
    assert merged.lookup("2.8.0").origin == "config"


def test_rows_dump_and_copy_as_the_models_did() -> None:
    row = MatrixRow.model_validate({"mindspore": " 2.4.1 ", "cann": "8.0.RC3.beta1"})
    assert row.model_dump() == {
        "mindspore": "2.4.1",
        "driver": None,
        "firmware": None,
        "cann": "8.0.RC3.beta1",
        "sources": [],
        "origin": "builtin",
    }
    assert row.model_dump(exclude_none=True) == {
        "mindspore": "2.4.1",
        "cann": "8.0.RC3.beta1",
        "sources": [],
        "origin": "builtin",
    }
    copy = row.model_copy(update={"origin": "config"})
    assert (copy.origin, row.origin) == ("config", "builtin")
    assert MatrixRow.model_validate(row) is row
    with pytest.raises(AttributeError):
        row.origin = "x"  # type: ignore[misc]
    builtin = Matrix.builtin()
    assert Matrix.from_rows(builtin.rows()) == builtin
    assert builtin.model_copy(update={"errors": ("e",)}).errors == ("e",)


# -- the hand validation against the pydantic model it replaced ---------------------------------


def _pydantic_row() -> type:
    """The pydantic MatrixRow perfbot had before (issue 11), to compare the error texts."""
    from typing import Any

    from pydantic import BaseModel, ConfigDict, field_validator, model_validator

    from perfbot.spec.versions import normalize_mindspore, parse_version

    class OldRow(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")

        mindspore: str
        driver: str | None = None
        firmware: str | None = None
        cann: str | None = None
        sources: list[str] = []
        origin: str = "builtin"

        @field_validator("mindspore", "driver", "firmware", "cann", mode="before")
        @classmethod
        def _text_only(cls, v: Any) -> Any:
            if v is not None and not isinstance(v, str):
                raise ValueError("must be a string (quote version numbers in YAML)")
            return v.strip() if isinstance(v, str) else v

        @model_validator(mode="after")
        def _parseable(self) -> OldRow:
            ms = normalize_mindspore(self.mindspore)
            if ms is None or ms.partial:
                raise ValueError(f"mindspore {self.mindspore!r} is not a full MindSpore version")
            for kind in ("driver", "firmware", "cann"):
                value = getattr(self, kind)
                if value is not None and parse_version(kind, value) is None:
                    raise ValueError(f"{kind} {value!r} is not a {kind} version")
            return self

    return OldRow


_OLD_ROW = _pydantic_row()

_values = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "2.3.1",
            " v2.3.1 ",
            "2.5",
            "foo",
            "",
            "24.1.RC2",
            "7.3.0.1.231",
            "8.0.RC2.beta1",
            "8.0.RC3",
            "latest",
            "2.3.0rc1",
        ]
    ),
    st.text(max_size=8),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.binary(max_size=3)), max_size=3),
    st.binary(max_size=3),
)
_rows = st.dictionaries(
    st.sampled_from(
        ["mindspore", "mindspore", "driver", "firmware", "cann", "sources", "origin", "extra"]
    ),
    _values,
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(_rows)
def test_hand_validation_says_what_pydantic_said(row: dict) -> None:
    from pydantic import ValidationError

    from perfbot.spec.matrix_rows import _short_error

    try:
        old = _OLD_ROW.model_validate(row)
    except ValidationError as e:
        expected = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'row'}: {err['msg']}" for err in e.errors()
        )
        with pytest.raises(ValueError) as got:
            MatrixRow.model_validate(row)
        assert _short_error(got.value) == expected
    else:
        assert MatrixRow.model_validate(row).model_dump() == old.model_dump()
