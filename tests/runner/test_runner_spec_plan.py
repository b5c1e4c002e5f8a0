"""Tests of `BenchmarkSpec`, loading `benchmarks:` from .perfbot.yml, and `perfbot plan`."""

import json

import pytest
import yaml
from pydantic import ValidationError

from perfbot.runner.plan import plan, plan_main, split_targets
from perfbot.runner.spec import (
    BenchmarkSpec,
    LogFormat,
    SpecError,
    load_benchmarks,
    validate_benchmarks,
)

MINIMAL = {
    "name": "dit-1p",
    "readme": "examples/dit/README.md",
    "row": {"model name": "dit", "cards": 1},
    "command": ["python", "train.py"],
    "cards": 1,
    "batch_size": 64,
}


def make(**kw) -> BenchmarkSpec:
    return BenchmarkSpec.model_validate({**MINIMAL, **kw})


def test_defaults():
    s = make()
    assert s.workdir == "."
    assert s.env == {}
    assert s.warmup == 5
    assert s.timeout == 3600
    assert s.log is None
    assert s.log_format is LogFormat.auto
    assert s.runs_on == ["self-hosted", "ascend"]
    assert not s.sink_mode and not s.inference


def test_command_string_is_split_but_never_shell_interpreted():
    s = make(command="python train.py --config 'configs/a b.yaml' && rm -rf / $HOME")
    assert s.command == [
        "python",
        "train.py",
        "--config",
        "configs/a b.yaml",
        "&&",
        "rm",
        "-rf",
        "/",
        "$HOME",
    ]
    assert make(command=["python", "-m", "x", 3]).command[-1] == "3"
    for bad in ("python 'unclosed", "", [], [""]):
        with pytest.raises(ValidationError):
            make(command=bad)


def test_row_normalisation():
    s = make(row={"Model Name": "dit", "cards": 8, "sink": True, "recompute": False})
    assert s.row == {"model name": "dit", "cards": "8", "sink": "ON", "recompute": "OFF"}
    assert make(row=3).row == 3
    for bad in (0, {}, True, "dit"):
        with pytest.raises(ValidationError):
            make(row=bad)


def test_env_and_timeout_coercion():
    s = make(env={"HCCL_BUFFSIZE": 200, "A": "b"}, timeout="90m")
    assert s.env == {"HCCL_BUFFSIZE": "200", "A": "b"}
    assert s.timeout == 5400
    assert make(timeout="2h").timeout == 7200
    with pytest.raises(ValidationError, match="quote"):
        make(env={"X": True})
    with pytest.raises(ValidationError):
        make(timeout="soon")
    with pytest.raises(ValidationError):
        make(timeout=0)


def test_numbers_and_names():
    for bad in ({"cards": 0}, {"batch_size": -1}, {"warmup": -1}, {"name": "has space"}):
        with pytest.raises(ValidationError):
            make(**bad)


def test_regex_rules():
    s = make(regex=r"took (?P<ms>[\d.]+) ms")
    assert s.log_format is LogFormat.regex
    with pytest.raises(ValidationError, match="named group"):
        make(regex=r"took ([\d.]+) ms")
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        make(regex=r"(?P<ms>")
    with pytest.raises(ValidationError, match="needs a 'regex'"):
        make(log_format="regex")
    with pytest.raises(ValidationError, match="only used with"):
        make(log_format="mindone", regex=r"(?P<s>\d+)")


def test_per_epoch_result_formats_need_steps_per_epoch():
    assert make(log_format="mindcv_result", steps_per_epoch=100).steps_per_epoch == 100
    with pytest.raises(ValidationError, match="steps_per_epoch"):
        make(log_format="mindocr_result")


def test_inference_needs_sampling_steps():
    assert make(inference=True, sampling_steps=50).sampling_steps == 50
    with pytest.raises(ValidationError, match="sampling_steps"):
        make(inference=True)
    with pytest.raises(ValidationError, match="only used with"):
        make(sampling_steps=50)


def test_extra_keys_are_rejected():
    with pytest.raises(ValidationError):
        make(batchsize=3)


# ---- loading ------------------------------------------------------------------------------


def test_load_benchmarks_reports_every_problem(tmp_path):
    cfg = tmp_path / ".perfbot.yml"
    cfg.write_text(
        "rules: {}\n"
        "benchmarks:\n"
        "  - name: a\n    readme: R.md\n    row: 1\n    command: python t.py\n"
        "    cards: 1\n    batch_size: 2\n"
        "  - name: a\n    readme: R.md\n    row: 1\n    command: python t.py\n"
        "    cards: 1\n    batch_size: 2\n"
        "  - name: b\n    readme: R.md\n    row: 1\n    command: x\n    cards: 0\n"
        "    batch-size: 2\n"
        "  - just a string\n"
    )
    with pytest.raises(SpecError) as info:
        load_benchmarks(cfg)
    msg = str(info.value)
    assert "already used" in msg
    assert "benchmarks[2] (b): cards: Input should be greater than 0" in msg
    assert "batch-size: unknown key; did you mean 'batch_size'?" in msg
    assert "batch_size: missing (required)" in msg
    assert "benchmarks[3]: must be a mapping" in msg


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("benchmarks: [\n", "not valid YAML"),
        ("- 1\n", "must be a mapping"),
        ("rules: {}\n", "has no 'benchmarks:'"),
        ("benchmarks: []\n", "is empty"),
        ("benchmarks: {a: 1}\n", "must be a list"),
    ],
)
def test_load_benchmarks_file_errors(tmp_path, text, expected):
    cfg = tmp_path / ".perfbot.yml"
    cfg.write_text(text)
    with pytest.raises(SpecError, match=expected.replace("(", r"\(")):
        load_benchmarks(cfg)


def test_load_benchmarks_missing_file(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        load_benchmarks(tmp_path / "nope.yml")


# ---- plan ---------------------------------------------------------------------------------


SPECS = [
    make(name="dit-1p"),
    make(name="dit-8p", row={"model name": "dit", "cards": 8}, cards=8),
    make(
        name="yolov8-n",
        readme="./configs/yolov8/README.md",
        row={"model name": "YOLOv8"},
        runs_on=["self-hosted", "910b"],
    ),
]


def names(matrix):
    return [e["name"] for e in matrix["include"]]


def test_plan_all_and_entry_shape():
    m = plan(SPECS)
    assert names(m) == ["dit-1p", "dit-8p", "yolov8-n"]
    assert m["include"][2] == {
        "name": "yolov8-n",
        "readme": "./configs/yolov8/README.md",
        "runs-on": ["self-hosted", "910b"],
    }


def test_plan_targets():
    assert names(plan(SPECS, ["dit-8p"])) == ["dit-8p"]
    assert names(plan(SPECS, ["dit"])) == ["dit-1p", "dit-8p"]  # model name
    assert names(plan(SPECS, ["yolov8"])) == ["yolov8-n"]  # model name, any case
    assert names(plan(SPECS, ["configs/yolov8/README.md"])) == ["yolov8-n"]
    assert names(plan(SPECS, ["./examples/dit/README.md"])) == ["dit-1p", "dit-8p"]
    assert names(plan(SPECS, ["configs/"])) == ["yolov8-n"]  # a directory
    assert names(plan(SPECS, ["configs/yolo"])) == []  # not a path prefix match
    assert names(plan(SPECS, [])) == []
    assert names(plan(SPECS, ["."])) == []


def test_split_targets():
    assert split_targets(["a,b", "c d\ne", ""]) == ["a", "b", "c", "d", "e"]


def test_plan_main_prints_one_compact_line(tmp_path, capsys):
    cfg = tmp_path / ".perfbot.yml"
    cfg.write_text(
        "benchmarks:\n"
        "  - {name: a, readme: x/README.md, row: 1, command: [t], cards: 1, batch_size: 1}\n"
        "  - {name: b, readme: y/README.md, row: 1, command: [t], cards: 1, batch_size: 1,"
        " runs_on: gpu}\n"
    )
    assert plan_main(["--config", str(cfg), "--targets", "y/README.md,zzz"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and " " not in out.strip()
    assert json.loads(out) == {
        "include": [{"name": "b", "readme": "y/README.md", "runs-on": ["gpu"]}]
    }
    assert plan_main(["--config", str(cfg)]) == 0
    assert len(json.loads(capsys.readouterr().out)["include"]) == 2


def test_plan_main_config_error(tmp_path, capsys):
    assert plan_main(["--config", str(tmp_path / "missing.yml")]) == 2
    err = capsys.readouterr().err
    assert "perfbot plan: error:" in err and "Traceback" not in err


def test_a_regex_says_whether_it_gives_step_or_epoch_times():
    rx = r"Train epoch time: [\d.]+ ms, per step time: (?P<ms>[\d.]+) ms"
    assert make(regex=rx).regex_times == "step"
    s = make(regex=rx, regex_times="epoch", steps_per_epoch=30)
    assert s.regex_times == "epoch" and s.steps_per_epoch == 30
    with pytest.raises(ValidationError, match="steps_per_epoch"):
        make(regex=rx, regex_times="epoch")
    with pytest.raises(ValidationError, match="only used with a 'regex'"):
        make(regex_times="epoch", steps_per_epoch=30)


def test_mode_is_auto_graph_or_pynative():
    assert make().mode == "auto"
    assert make(mode="pynative").mode == "pynative"
    with pytest.raises(ValidationError):
        make(mode="eager")


_ROW_BOMB = (
    "benchmarks:\n  - name: b\n    readme: README.md\n    command: [python, t.py]\n"
    "    cards: 1\n    batch_size: 1\n    row:\n"
    + "".join(
        f"      {c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
).replace("    row:\n", "    row:\n      a: &a [x, x, x, x, x, x, x, x, x]\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_ROW_BOMB, "anchors and aliases"),  # 9^9 cells once expanded: spun `plan` for minutes
        ("benchmarks: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than"),  # RecursionError
        (b"benchmarks: [\xff]\n", "not UTF-8"),
    ],
)
def test_plan_refuses_hostile_yaml_at_once(tmp_path, capsys, text, expected):
    cfg = tmp_path / ".perfbot.yml"
    if isinstance(text, bytes):
        cfg.write_bytes(text)
    else:
        cfg.write_text(text)
    assert plan_main(["--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


@pytest.mark.parametrize("timeout", [".inf", ".nan", "21601", "7h"])
def test_a_timeout_must_be_finite_and_at_most_six_hours(timeout):
    spec = {"name": "b", "readme": "R.md", "row": 1, "command": ["x"], "cards": 1, "batch_size": 1}
    with pytest.raises(SpecError, match="timeout"):
        validate_benchmarks([{**spec, "timeout": yaml.safe_load(timeout)}])
    assert validate_benchmarks([{**spec, "timeout": "6h"}])[0].timeout == 21600
