"""One settings type (issue 19): :class:`perfbot.config_light.Settings`, built by the fast reader
without pydantic; the pydantic schema (``perfbot.config_schema``) only words the errors of data
the fast reader refuses and coerces what it would coerce, and the answer is a ``Settings`` either
way. The two are held here to the same keys, the same defaults and the same answers.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from perfbot import cli
from perfbot.config import clear_caches
from perfbot.config_light import DEFAULT, KEYS, Settings, _NotPlain
from perfbot.config_schema import Config as Schema
from perfbot.config_tree import base_of, config_for, origins
from perfbot.registry import all_rules

RULES = all_rules()
RELS = ["README.md", "a/README.md", "configs/x/README.md", "README_CN.md", "b/c/README_CN.md"]


def answers(config: Any) -> dict[str, Any]:
    """What checking asks of a config."""
    return {
        "root": config.root,
        "paths": list(config.paths),
        "exclude": list(config.exclude),
        "allow": (config.allow.ms_per_step, config.allow.compile_seconds),
        "columns": [(c.name, list(c.aliases), c.form) for c in config.columns],
        "aliases": {k: list(v) for k, v in config.aliases.items()},
        "matrix": [r.model_dump() for r in config.matrix],
        "matrix_short": [r.model_dump(exclude_none=True) for r in config.matrix],
        "rules": dict(config.rules),
        "fixable": config.fixable,
        "unfixable": list(config.unfixable),
        "setting": [config.setting(r.id, r.slug) for r in RULES],
        "can_fix": [config.can_fix(r.id) for r in RULES],
        "readme": [config.is_model_readme(a, b) for a in RELS for b in (None, *RELS[:2])],
    }


PLAIN = [
    {},
    {"rules": {"PB303": "off", "img-s-mismatch": "warning", "pb202": False}},
    {"allow": {"ms_per_step": True}, "rules": {"PB203": "info"}},
    {"paths": ["configs/**/README.md", "README.md"], "exclude": ["**/README_CN.md"]},
    {
        "root": True,
        "columns": [
            {"name": "acc@top1", "aliases": ["top-1"]},
            {"name": "fps2", "form": "decimal2"},
        ],
        "aliases": {"img/s": ["imgs/sec"], "s/step": []},
        "matrix": [{"mindspore": "2.5.0", "driver": "24.1.0", "cann": "8.0.0.beta1"}],
        "fixable": ["PB3", "ALL", "img-s-mismatch"],
        "unfixable": ["PB401"],
    },
    {"fixable": None, "allow": {}, "matrix": [{"mindspore": "2.3.1", "firmware": None}]},
    {"review": {"max_comments": 3}, "benchmarks": []},
    {"review": {"filter_mode": "added"}, "benchmarks": [{"name": "x", "row": 1}]},
    {"rerun": {"min_permission": "maintain", "slower_threshold": 1, "noisy_cv": 0.5}},
    {"rerun": {"push": True, "runners": [["self-hosted", "ascend", "910b"], ["x"]]}},
    {"matrix": [{"mindspore": "2.6.0", "cann_accepted": ["8.2"]}]},
]


def fast(data: Any) -> Settings:
    return Settings._from(data)


def by_schema(data: Any) -> Settings:
    """What a file the fast reader refused would give: the schema's coerced values, read."""
    return Settings._from(Schema.model_validate(data).model_dump(exclude_unset=True))


def test_the_schema_and_settings_have_the_same_keys_and_defaults() -> None:
    from perfbot import config_light as light
    from perfbot import config_schema as schema

    assert tuple(Schema.model_fields) == KEYS
    assert set(Settings.__slots__) == {*KEYS, "_data", "_files", "_origins", "_source"}
    for model, part in [
        (schema.Allow, light.AllowSettings),
        (schema.ColumnConfig, light.ColumnSettings),
        (schema.MatrixRowConfig, light.MatrixRowSettings),
        (schema.ReviewConfig, light.ReviewSettings),
        (schema.RerunConfig, light.RerunSettings),
    ]:
        assert tuple(model.model_fields) == part._KEYS, part
        assert set(part.__slots__) == set(part._KEYS), part
    assert Settings().model_dump() == Schema().model_dump()
    assert DEFAULT.model_dump() == Schema().model_dump()
    assert not hasattr(Settings, "__getattr__")


def test_the_default_settings_are_one_instance_in_a_worker_too() -> None:
    assert pickle.loads(pickle.dumps(DEFAULT)) is DEFAULT
    copy = DEFAULT.model_copy(update={"rules": {"PB303": "off"}})
    assert copy.rules == {"PB303": "off"} and DEFAULT.rules == {}
    assert type(copy) is Settings


@pytest.mark.parametrize("data", PLAIN)
def test_the_fast_reader_answers_as_the_schema(data: dict) -> None:
    plain = fast(data)
    assert answers(plain) == answers(by_schema(data))
    assert plain.model_dump() == Schema.model_validate(data).model_dump()
    assert plain.model_dump(exclude_unset=True) == by_schema(data).model_dump(exclude_unset=True)
    assert answers(pickle.loads(pickle.dumps(plain))) == answers(plain)


NOT_PLAIN = [
    {"rules": {"PB303": True}},
    {"rules": {"PB303": "ERROR"}},
    {"allow": {"ms_per_step": "yes"}},  # pydantic coerces "yes"
    {"allow": {"ms_per_step": 1}},
    {"allow": {"other": True}},
    {"paths": "README.md"},
    {"paths": [1]},
    {"columns": [{"name": "x", "form": "nope"}]},
    {"columns": [{"name": "x", "unit": "s"}]},
    {"matrix": [{"mindspore": 2.5}]},
    {"matrix": [{"driver": "24.1.0"}]},
    {"review": {"max_comments": "3"}},
    {"review": {"max_comments": -1}},
    {"review": {"filter_mode": "all"}},
    {"rerun": {"runners": [[]]}},
    {"rerun": {"runners": [["a b"]]}},
    {"rerun": {"slower_threshold": "0.1"}},
    {"rerun": {"push": "yes"}},
    {"benchmarks": [1]},
    {"benchmarks": {}},
    {"unknown": 1},
    {"root": "yes"},
    {1: "x"},
]


@pytest.mark.parametrize("data", NOT_PLAIN)
def test_what_pydantic_would_coerce_or_refuse_is_left_to_it(data: dict) -> None:
    with pytest.raises(_NotPlain):
        fast(data)
    try:
        got = Settings.model_validate(data)
    except ValidationError:
        return
    assert type(got) is Settings  # coerced by the schema, read by the fast reader


_names = st.sampled_from(
    ["PB303", "pb303", "img-s-mismatch", "PB3", "PB", "ALL", "all", "PB999", "nope", "PB401"]
)
_text = st.sampled_from(["README.md", "**/README_CN.md", "a/*", "x", "", "configs/**"]) | st.text(
    max_size=6
)
_any = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(0, 3), _text)


def _maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return strategy | _any | st.lists(_any, max_size=2)


_config = st.dictionaries(
    st.sampled_from(["root", "paths", "exclude", "allow", "columns", "aliases", "matrix"])
    | st.sampled_from(["rules", "fixable", "unfixable", "review", "rerun", "other"]),
    st.one_of(
        _maybe(st.lists(_text, max_size=3)),
        _maybe(
            st.dictionaries(
                st.sampled_from(["ms_per_step", "compile_seconds", "x"]), _maybe(st.booleans())
            )
        ),
        _maybe(
            st.lists(
                st.fixed_dictionaries(
                    {"name": _maybe(_text)},
                    optional={
                        "aliases": _maybe(st.lists(_text, max_size=2)),
                        "form": _maybe(st.sampled_from(["any", "decimal2", "link", "bogus"])),
                    },
                ),
                max_size=2,
            )
        ),
        _maybe(st.dictionaries(_text, _maybe(st.lists(_text, max_size=2)), max_size=2)),
        _maybe(
            st.lists(
                st.fixed_dictionaries(
                    {"mindspore": _maybe(st.sampled_from(["2.3.1", "2.5.0", "x"]))},
                    optional={"driver": _maybe(st.just("24.1.0")), "cann": _any, "other": _any},
                ),
                max_size=2,
            )
        ),
        _maybe(
            st.dictionaries(
                _names, _maybe(st.sampled_from(["off", "error", "warning", "info", False, True]))
            )
        ),
        _maybe(st.lists(_names, max_size=3)),
    ),
    max_size=4,
)


_valid_names = st.sampled_from(["PB303", "pb303", "img-s-mismatch", "PB3", "ALL", "PB401"])
_plain_like = st.fixed_dictionaries(
    {},
    optional={
        "root": st.booleans(),
        "paths": st.lists(_text, max_size=3),
        "exclude": st.lists(_text, max_size=2),
        "allow": st.dictionaries(
            st.sampled_from(["ms_per_step", "compile_seconds"]), st.booleans()
        ),
        "columns": st.lists(
            st.fixed_dictionaries(
                {"name": _text},
                optional={
                    "aliases": st.lists(_text, max_size=2),
                    "form": st.sampled_from(["any", "decimal2", "link", "switch"]),
                },
            ),
            max_size=2,
        ),
        "aliases": st.dictionaries(_text, st.lists(_text, max_size=2), max_size=2),
        "matrix": st.lists(
            st.fixed_dictionaries(
                {"mindspore": st.sampled_from(["2.3.1", "2.5.0", "x"])},
                optional={
                    "driver": st.sampled_from(["24.1.0", None]),
                    "cann": st.sampled_from(["8.0.0", None]),
                },
            ),
            max_size=2,
        ),
        "rules": st.dictionaries(
            st.sampled_from(["PB303", "pb202", "img-s-mismatch", "PB401"]),
            st.sampled_from(["off", "error", "warning", "info", False]),
        ),
        "fixable": st.none() | st.lists(_valid_names, max_size=2),
        "unfixable": st.lists(_valid_names, max_size=2),
    },
)


@settings(max_examples=400, deadline=None)
@given(_config | _plain_like)
def test_the_fast_reader_takes_only_what_pydantic_takes_and_answers_alike(data: dict) -> None:
    try:
        plain = fast(data)
    except _NotPlain:
        try:
            Schema.model_validate(data)
        except ValidationError:
            return
        assert type(by_schema(data)) is Settings  # what the schema coerced, the reader takes
        return
    try:
        real = Schema.model_validate(data)
    except ValidationError as e:
        raise AssertionError(f"the fast reader took what pydantic refuses: {e}") from None
    assert plain.model_dump() == real.model_dump()
    assert answers(plain) == answers(by_schema(data))


# --- where configs are found ---------------------------------------------------------------------


def _repo(tmp_path: Path, text: str) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "configs" / "net").mkdir(parents=True, exist_ok=True)
    readme = tmp_path / "configs" / "net" / "README.md"
    readme.write_text("# Net\n", encoding="utf-8")
    (tmp_path / ".perfbot.yml").write_text(text, encoding="utf-8")
    clear_caches()
    return readme


def test_config_for_answers_a_plain_file_with_settings(tmp_path: Path) -> None:
    readme = _repo(tmp_path, 'paths: ["configs/**/README.md"]\nrules:\n  PB303: off\n')
    got, found = config_for(readme)
    assert type(got) is Settings
    assert found == tmp_path / ".perfbot.yml"
    assert got.rules == {"PB303": "off"} and got.paths == ["configs/**/README.md"]
    assert origins(got) == {"paths": found, "rules.PB303": found}
    assert base_of(got, "paths", "x") == str(tmp_path)
    # every key is there, with its default: nothing is asked of another type
    assert got.review.max_comments == 50 and got.rerun.min_permission == "write"
    assert got.model_dump(exclude_unset=True) == {
        "paths": ["configs/**/README.md"],
        "rules": {"PB303": "off"},
    }
    assert answers(pickle.loads(pickle.dumps(got))) == answers(got)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("allow:\n  ms_per_step: yes\n", {"allow": {"ms_per_step": True}}),  # YAML 1.1: True
        ("allow:\n  ms_per_step: 'yes'\n", {"allow": {"ms_per_step": True}}),  # coerced
        ("review:\n  max_comments: '3'\n", {"review": {"max_comments": 3}}),
        ("rerun:\n  noisy_cv: 1\n", {"rerun": {"noisy_cv": 1.0}}),
        ("rules:\n  img-s-mismatch: off\n", {"rules": {"img-s-mismatch": "off"}}),
    ],
)
def test_a_file_the_schema_coerces_gives_settings(text: str, want: dict, tmp_path: Path) -> None:
    readme = _repo(tmp_path, text)
    got, _ = config_for(readme)
    assert type(got) is Settings
    assert got.model_dump(exclude_unset=True) == want


@pytest.mark.parametrize("text", ["rules: [1\n", "review: 3\n", "rules: {PB401: loud}\n"])
def test_a_file_the_schema_refuses_is_a_config_error(text: str, tmp_path: Path) -> None:
    from perfbot.config import ConfigError

    readme = _repo(tmp_path, text)
    with pytest.raises(ConfigError, match=r"\.perfbot\.yml: "):
        config_for(readme)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules:\n  PB999: off\n", "rules: unknown rule 'PB999'"),
        ("fixable: [nope]\n", "fixable: unknown rule 'nope'"),
        ("unfixable: [PB1, PB9]\n", "unfixable: unknown rule 'PB9'"),
    ],
)
def test_a_rule_name_that_is_no_rule_is_the_configs_error_where_the_engine_plans(
    text: str, message: str, tmp_path: Path
) -> None:
    from perfbot.config import ConfigError
    from perfbot.engine import check_source
    from perfbot.source import Source

    readme = _repo(tmp_path, text)
    config, found = config_for(readme)  # the settings keep the names as written
    with pytest.raises(ConfigError) as e:
        check_source(Source.from_text("# Net\n", path=str(readme)), config)
    assert str(e.value).startswith(f"{found}: {message}")


def test_a_rule_name_error_names_the_nearest_file_that_wrote_one(tmp_path: Path) -> None:
    from perfbot.config import ConfigError
    from perfbot.rules import check_names

    readme = _repo(tmp_path, "rules:\n  PB999: off\n  PB303: off\n")
    child = readme.parent / ".perfbot.yml"
    child.write_text("rules:\n  typo-rule: off\n", encoding="utf-8")
    clear_caches()
    config, _ = config_for(readme)
    with pytest.raises(ConfigError) as e:
        check_names(config)
    assert str(e.value) == f"{child}: rules: unknown rule 'typo-rule' (see `perfbot rules`)"
    child.write_text("rules:\n  PB202: off\n", encoding="utf-8")
    clear_caches()
    config, _ = config_for(readme)
    with pytest.raises(ConfigError, match=r"^/.*/\.perfbot\.yml: rules: unknown rule 'PB999'"):
        check_names(config)


def test_nested_configs_compose_into_settings(tmp_path: Path) -> None:
    readme = _repo(tmp_path, "rules:\n  PB303: off\n")
    (readme.parent / ".perfbot.yml").write_text("allow:\n  ms_per_step: true\n", encoding="utf-8")
    clear_caches()
    got, _ = config_for(readme)
    assert type(got) is Settings
    assert got.rules == {"PB303": "off"}
    assert got.allow.ms_per_step
    assert len(got._files) == 2
    # `root: true` in the nearer file stops the walk
    (readme.parent / ".perfbot.yml").write_text("root: true\n", encoding="utf-8")
    clear_caches()
    got, _ = config_for(readme)
    assert got.rules == {}


PROBE = """
import json, sys
code = __import__("perfbot.cli").cli.main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_a_cold_check_with_a_plain_config_imports_no_pydantic(tmp_path: Path) -> None:
    readme = _repo(tmp_path, 'paths: ["configs/**/README.md"]\nrules:\n  PB303: warning\n')
    readme.write_text(
        "# Net\n\n## Performance\n\n| model name | cards | img/s |\n|---|---|---|\n"
        "| net | 1 | 64 |\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            "check",
            "--fail-on",
            "never",
            "--force-exclude",
            str(readme),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    probe = json.loads(proc.stderr.strip().splitlines()[-1])
    assert "warning PB303" in proc.stdout  # the config's severity applies
    assert probe["code"] == 0
    assert not [m for m in probe["modules"] if m.split(".")[0] in ("pydantic", "pydantic_core")]
    assert "perfbot.config_schema" not in probe["modules"]


def test_select_on_a_plain_config_still_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = _repo(tmp_path, "rules:\n  PB303: warning\n")
    readme.write_text(
        "# Net\n\n## Performance\n\n| model name | cards | img/s |\n|---|---|---|\n"
        "| net | 1 | 64 |\n",
        encoding="utf-8",
    )
    assert cli.main(["check", "--select", "PB303", "--fail-on", "never", str(readme)]) == 0
    out = capsys.readouterr().out
    assert "warning PB303" in out
    assert "PB30" in out
