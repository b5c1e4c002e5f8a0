"""A plain ``.perfbot.yml`` answered without pydantic (perfbot.config_light.PlainConfig, issue 11).

PlainConfig takes only data pydantic would take as written; its answers are held to those of the
pydantic ``Config`` of the same data, and anything else goes to pydantic (same errors).
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
from perfbot.config import Config, clear_caches
from perfbot.config import config_for as full_config_for
from perfbot.config_light import PlainConfig, _NotPlain, config_for
from perfbot.config_tree import base_of, origins
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
]


@pytest.mark.parametrize("data", PLAIN)
def test_a_plain_config_answers_as_pydantics(data: dict, tmp_path: Path) -> None:
    path = tmp_path / ".perfbot.yml"
    plain = PlainConfig(data, path)
    assert answers(plain) == answers(Config.model_validate(data))


NOT_PLAIN = [
    {"rules": {"PB999": "off"}},  # an error pydantic words
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
    {"review": {"max_comments": 3}},  # not what checking reads: pydantic's
    {"benchmarks": []},
    {"unknown": 1},
    {"root": "yes"},
    {"fixable": ["nope"]},
    {1: "x"},
]


@pytest.mark.parametrize("data", NOT_PLAIN)
def test_what_pydantic_would_coerce_or_refuse_is_left_to_it(data: dict, tmp_path: Path) -> None:
    with pytest.raises(_NotPlain):
        PlainConfig(data, tmp_path / ".perfbot.yml")


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
    | st.sampled_from(["rules", "fixable", "unfixable", "review", "other"]),
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
def test_plain_config_takes_only_what_pydantic_takes_and_answers_alike(data: dict) -> None:
    path = Path("/nowhere/.perfbot.yml")
    try:
        plain = PlainConfig(data, path)
    except _NotPlain:
        return
    try:
        real = Config.model_validate(data)
    except ValidationError as e:
        raise AssertionError(f"PlainConfig took what pydantic refuses: {e}") from None
    assert answers(plain) == answers(real)


# --- where configs are found ---------------------------------------------------------------------


def _repo(tmp_path: Path, text: str) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "configs" / "net").mkdir(parents=True, exist_ok=True)
    readme = tmp_path / "configs" / "net" / "README.md"
    readme.write_text("# Net\n", encoding="utf-8")
    (tmp_path / ".perfbot.yml").write_text(text, encoding="utf-8")
    clear_caches()
    return readme


def test_config_for_answers_a_plain_file_without_pydantic(tmp_path: Path) -> None:
    readme = _repo(tmp_path, 'paths: ["configs/**/README.md"]\nrules:\n  PB303: off\n')
    got, found = config_for(readme)
    assert isinstance(got, PlainConfig)
    assert found == tmp_path / ".perfbot.yml"
    real, real_found = full_config_for(readme)
    assert real_found == found
    assert answers(got) == answers(real)
    assert origins(got) == origins(real)
    assert base_of(got, "paths", "x") == base_of(real, "paths", "x") == str(tmp_path)
    # what checking does not read comes from the real Config of the same file
    assert got.review == real.review
    assert got.model_dump() == real.model_dump()
    assert answers(pickle.loads(pickle.dumps(got))) == answers(got)


@pytest.mark.parametrize(
    "text",
    [
        "rules:\n  PB999: off\n",  # pydantic's error
        "allow:\n  ms_per_step: yes\n",  # YAML 1.1 reads `yes` as True: plain
        "allow:\n  ms_per_step: 'yes'\n",  # pydantic coerces the string
        "review:\n  max_comments: 3\n",
        "rules: [1\n",  # not YAML
    ],
)
def test_other_files_get_what_they_got_before(text: str, tmp_path: Path) -> None:
    readme = _repo(tmp_path, text)
    try:
        want: Any = answers(full_config_for(readme)[0])
    except Exception as e:
        want = f"{type(e).__name__}: {e}"
    clear_caches()
    try:
        got: Any = answers(config_for(readme)[0])
    except Exception as e:
        got = f"{type(e).__name__}: {e}"
    assert got == want


def test_nested_configs_are_composed_by_pydantic(tmp_path: Path) -> None:
    readme = _repo(tmp_path, "rules:\n  PB303: off\n")
    (readme.parent / ".perfbot.yml").write_text("allow:\n  ms_per_step: true\n", encoding="utf-8")
    clear_caches()
    got, _ = config_for(readme)
    assert not isinstance(got, PlainConfig)
    assert got.rules == {"PB303": "off"}
    assert got.allow.ms_per_step
    # `root: true` in the nearer file stops the walk: that one alone is plain
    (readme.parent / ".perfbot.yml").write_text("root: true\n", encoding="utf-8")
    clear_caches()
    got, _ = config_for(readme)
    assert isinstance(got, PlainConfig)
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
    assert "perfbot.config" not in probe["modules"]


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
