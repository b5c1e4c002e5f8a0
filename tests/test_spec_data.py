"""The guide's YAML and its generated JSON twins (perfbot.spec.data, issue 11).

The twins are what a check reads (no PyYAML import); the YAML stays what maintainers edit.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfbot.spec as spec_module
from perfbot.spec import builtin_spec, data, load_yaml
from perfbot.spec.matrix import Matrix

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", data.SOURCES)
def test_the_json_twin_is_what_the_yaml_gives(name: str) -> None:
    twin = Path(data.path(name + data.SUFFIX))
    assert twin.is_file(), f"{twin} is missing: run `{data.REGENERATE}`"
    assert twin.read_text(encoding="utf-8") == data.generate(name), (
        f"src/perfbot/spec/{name} changed but its JSON twin was not regenerated: "
        f"run `{data.REGENERATE}` and commit {twin.name}"
    )


@pytest.mark.parametrize("name", data.SOURCES)
def test_the_twin_is_read_without_yaml_and_holds_the_yamls_data(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_yaml = load_yaml(name)

    def no_yaml(raw: object) -> object:
        raise AssertionError("the YAML was parsed although its twin is current")

    monkeypatch.setattr(data, "parse_yaml", no_yaml)
    assert data.load(name) == from_yaml


def _copy_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    here = tmp_path / "spec"
    here.mkdir()
    for name in data.SOURCES:
        for f in (name, name + data.SUFFIX):
            shutil.copyfile(data.path(f), here / f)
    monkeypatch.setattr(data, "_HERE", str(here))
    return here


def test_an_edited_yaml_is_read_even_when_its_twin_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = _copy_spec(tmp_path, monkeypatch)
    text = (here / "columns.yaml").read_text(encoding="utf-8")
    edited = text.replace("aliases: [training method,", "aliases: [training recipe name,", 1)
    assert edited != text
    (here / "columns.yaml").write_text(edited, encoding="utf-8")
    loaded = data.load("columns.yaml")
    method = next(c for c in loaded["performance"]["columns"] if c["name"] == "method")
    assert method["aliases"][0] == "training recipe name"
    # a CRLF checkout of the same YAML still uses the twin
    rows = load_yaml("matrix.yaml")
    (here / "matrix.yaml").write_bytes((here / "matrix.yaml").read_bytes().replace(b"\n", b"\r\n"))
    monkeypatch.setattr(data, "parse_yaml", lambda raw: pytest.fail("parsed the YAML"))
    assert data.load("matrix.yaml") == rows


@pytest.mark.parametrize("twin", ["", "{not json", '{"crc32": 1, "data": {}}', "[]"])
def test_a_missing_or_broken_twin_falls_back_to_the_yaml(
    twin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = _copy_spec(tmp_path, monkeypatch)
    path = here / ("columns.yaml" + data.SUFFIX)
    if twin:
        path.write_text(twin, encoding="utf-8")
    else:
        path.unlink()
    assert data.load("columns.yaml") == load_yaml("columns.yaml")


def test_the_regenerate_script_checks_and_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = ROOT / "scripts" / "gen_spec_data.py"
    ok = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0, ok.stderr
    # the same, in process, on a copy with a stale twin
    sys.path.insert(0, str(script.parent))
    try:
        import gen_spec_data
    finally:
        sys.path.remove(str(script.parent))
    here = _copy_spec(tmp_path, monkeypatch)
    with (here / "matrix.yaml").open("a", encoding="utf-8") as f:
        f.write('\n- mindspore: "9.9.9"\n  driver: null\n  firmware: null\n  cann: null\n')
    assert gen_spec_data.main(["--check"]) == 1
    assert gen_spec_data.main([]) == 0
    assert gen_spec_data.main(["--check"]) == 0
    assert data.load("matrix.yaml")[-1]["mindspore"] == "9.9.9"


def test_a_value_json_cannot_hold_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime

    monkeypatch.setattr(data, "parse_yaml", lambda raw: {"when": datetime.date(2025, 1, 1)})
    with pytest.raises(TypeError):
        data.generate("columns.yaml")
    monkeypatch.setattr(data, "parse_yaml", lambda raw: {1: "an int key"})
    with pytest.raises(ValueError, match="does not survive JSON"):
        data.generate("columns.yaml")


def test_the_builtin_spec_and_matrix_are_the_yamls() -> None:
    spec = builtin_spec()
    cols = load_yaml("columns.yaml")
    assert isinstance(cols, dict)
    assert list(spec.performance.columns) == [c["name"] for c in cols["performance"]["columns"]]
    assert spec.other_hardware.pattern == cols["other_hardware"]
    assert Matrix.builtin() == Matrix.from_rows(load_yaml("matrix.yaml") or [])


# --- the guide's names keyed without peeling marks they do not have --------------------------

_MARKY = st.lists(
    st.sampled_from([*"ab _*`<>[]()^\\†¹#/\t\n\xa0", "<sup>", "</sup>", "[^"]), max_size=10
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(st.one_of(_MARKY, st.text(max_size=12)))
def test_a_guide_names_key_is_its_header_key(name: str) -> None:
    assert spec_module._guide_key(name) == spec_module.header_key(name)


def test_the_schemas_lookup_is_what_header_key_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = builtin_spec()
    monkeypatch.setattr(spec_module, "_guide_key", spec_module.header_key)
    for schema in (spec.requirements, spec.performance):
        again = spec_module.Schema(schema.kind, schema.columns)
        assert again._lookup == schema._lookup
        assert list(again._lookup) == list(schema._lookup)


def test_the_guides_patterns_are_compiled_when_first_used() -> None:
    import re

    builtin_spec.cache_clear()
    try:
        spec = builtin_spec()
        lazy = [
            spec.inference_headings,
            spec.training_headings,
            spec.requirements_headings,
            spec.timing_words,
            spec.other_hardware,
            *(p for _, p in spec.rate_units),
            *(p for _, p in spec.maybe_tail),
        ]
        assert len(lazy) == 9
        assert all(p._compiled is None for p in lazy)  # type: ignore[attr-defined]
        text = "Inference on GPU: 12 tokens/s, step time (s), 910B 推理"
        for p in lazy:
            want = re.compile(p.pattern)
            assert p.search(text) == want.search(text) or (
                p.search(text).span() == want.search(text).span()  # type: ignore[union-attr]
            )
            assert bool(p.match(text)) == bool(want.match(text))
            assert bool(p.fullmatch("tokens/s")) == bool(want.fullmatch("tokens/s"))
            assert p.findall(text) == want.findall(text)
            assert p.flags == want.flags
            assert p._compiled is not None  # type: ignore[attr-defined]
    finally:
        builtin_spec.cache_clear()
