"""Hostile ``.perfbot.yml`` files (security audit, finding 15): whatever a config holds, loading it
is a :class:`ConfigError` for that folder, never a crash for every file, and never a spin.

``load_yaml_bounded`` is the one way the core reads untrusted YAML (the rerun gate and ``plan``
use it too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfbot.cli import main
from perfbot.config import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    ConfigError,
    load_config,
    load_yaml_bounded,
)

# 8 cards x 64 / 0.93 s = 550.54 img/s, not 515.61: one PB401 finding on line 9
README = """\
# DiT

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
"""

# "billion laughs": 9**9 strings from a few hundred bytes, inside a benchmark (free-form there)
LAUGHS = (
    "benchmarks:\n  - name: b\n    command: [x]\n"
    "    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"    l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9))
)

HOSTILE: dict[str, bytes] = {
    "deep-flow": b"paths: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "deep-block": "".join("  " * i + f"k{i}:\n" for i in range(2000)).encode(),
    "big-int": b"review:\n  max_comments: " + b"9" * 5000 + b"\n",
    "not-utf8": b"paths: ['caf\xe9/README.md']\n",
    "alias-bomb": (LAUGHS + "    row: {model name: *l8}\n").encode(),
    "anchor-and-merge-key": b"rules: &r {PB203: off}\nbenchmarks: [{name: b, <<: *r}]\n",
    "oversized": b"paths:\n" + b"  - x/README.md\n" * (MAX_CONFIG_BYTES // 16 + 1),
    "python-tag": b"paths: !!python/object/apply:os.system [echo hi]\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("case", sorted(set(HOSTILE) - {"python-tag"}))  # that one always was
def test_hostile_config_is_that_folders_error(case: str, repo: Path, capsys) -> None:
    put(repo / "a" / ".perfbot.yml", HOSTILE[case])
    put(repo / "a" / "README.md", README)
    put(repo / "a" / "sub" / "README.md", README)
    put(repo / "b" / "README.md", README)
    rc = main(["check"])
    out, err = capsys.readouterr()
    assert rc == 2
    assert "internal error" not in err and "Traceback" not in err + out
    # the other folder is still checked ...
    assert "b/README.md:9: error PB401" in out
    # ... and the bad config is one error naming it (not one per README it governs)
    lines = [ln for ln in out.splitlines() if ln.startswith("a/.perfbot.yml: error: ")]
    assert len(lines) == 1, out
    assert "a/README.md:" not in out


def test_aliases_and_anchors_are_refused_with_the_place() -> None:
    with pytest.raises(ConfigError) as e:
        load_yaml_bounded("x: 1\ny: &a [1]\nz: *a\n", "cfg.yml")
    msg = str(e.value)
    assert msg.startswith("cfg.yml: ") and "anchors and aliases" in msg and "line 2" in msg


def test_nesting_limit() -> None:
    ok = "[" * (MAX_CONFIG_DEPTH - 1) + "]" * (MAX_CONFIG_DEPTH - 1)
    assert load_yaml_bounded(ok, "c") is not None
    deep = "[" * (MAX_CONFIG_DEPTH + 1) + "]" * (MAX_CONFIG_DEPTH + 1)
    with pytest.raises(ConfigError, match="nested more than"):
        load_yaml_bounded(deep, "c")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_load_yaml_bounded_raises_only_config_errors(case: str) -> None:
    data = HOSTILE[case]
    with pytest.raises(ConfigError) as e:
        load_yaml_bounded(data, "x/.perfbot.yml")
    assert str(e.value).startswith("x/.perfbot.yml: ")


def test_plain_yaml_still_loads() -> None:
    text = "\ufeffpaths: ['a/**/README.md']\nrules: {PB203: off, img-s-mismatch: warning}\n"
    assert load_yaml_bounded(text, "c") == {
        "paths": ["a/**/README.md"],
        "rules": {"PB203": False, "img-s-mismatch": "warning"},
    }
    assert load_yaml_bounded(text.encode("utf-8"), "c") == load_yaml_bounded(text, "c")
    assert load_yaml_bounded("", "c") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_explicit_config_that_is_a_fifo_is_refused_not_waited_on(repo: Path) -> None:
    os.mkfifo(repo / "cfg.yml")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(repo / "cfg.yml")
