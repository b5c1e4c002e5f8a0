"""``perfbot init``: a first .perfbot.yml from the conventions the READMEs already follow."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from perfbot.cli import main
from perfbot.config import load_config

# mindcv-like: ms/step, graph compile in seconds, an acc@top1 column, and a Requirements row
# (CANN 8.0.RC3.beta1 with MindSpore 2.3.1) that perfbot's matrix pairs differently
HEADER = (
    "| model name | cards | batch size | resolution | acc@top1 | jit level | graph compile "
    "| ms/step | img/s |"
)
README = """\
# {name}

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

{header}
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| {name} | 8 | 32 | 224x224 | 76.76 | O2 | 77s | 33.09 | 7736.48 |
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    for name in ("resnet", "vgg", "vit"):
        p = tmp_path / "configs" / name / "README.md"
        p.parent.mkdir(parents=True)
        p.write_text(README.format(name=name, header=HEADER), encoding="utf-8")
    (tmp_path / "README.md").write_text("# the repository\n\nNo tables here.\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_states_the_conventions_with_counts(repo, capsys):
    assert main(["check", "-q", "."]) == 1
    capsys.readouterr()
    assert main(["init"]) == 0
    err = capsys.readouterr().err
    text = (repo / ".perfbot.yml").read_text(encoding="utf-8")
    assert "ms_per_step: true  # 3 of 3 READMEs with a step time write ms/step" in text
    assert "compile_seconds: true  # 3 of 3 READMEs" in text
    assert '- {name: "acc@top1"}  # 3 of 3 READMEs' in text
    data = yaml.safe_load(text)
    assert data["matrix"] == [
        {"mindspore": "2.3.1", "driver": "24.1.RC2", "firmware": "7.3.0.1.231",
         "cann": "8.0.RC3.beta1"}
    ]  # fmt: skip
    load_config(repo / ".perfbot.yml")
    assert "before: 9 findings (3 errors, 6 warnings, 0 info) in 3 files" in err
    assert "after:  No findings in 3 files" in err
    assert main(["check", "."]) == 0


def test_init_leaves_mixed_conventions_alone(repo, capsys):
    p = repo / "configs" / "vgg" / "README.md"
    p.write_text(p.read_text().replace("8.0.RC3.beta1", "8.0.RC2.beta1"))
    p = repo / "configs" / "vit" / "README.md"
    p.write_text(p.read_text().replace("| acc@top1 ", "| top1 ").replace("| 76.76 ", "| 1 "))
    assert main(["init", "--stdout"]) == 0
    data = yaml.safe_load(capsys.readouterr().out)
    assert "matrix" not in data  # two READMEs disagree on MindSpore 2.3.1's row
    assert data["columns"] == [{"name": "acc@top1"}]  # top1 is in one README only


def test_init_does_not_overwrite(repo, capsys):
    (repo / ".perfbot.yml").write_text("rules: {PB202: off}\n")
    assert main(["init"]) == 2
    assert "exists" in capsys.readouterr().err
    assert (repo / ".perfbot.yml").read_text() == "rules: {PB202: off}\n"
    assert main(["init", "--force"]) == 0
    assert "ms_per_step" in (repo / ".perfbot.yml").read_text()


def test_init_on_a_folder_without_readmes(tmp_path, capsys):
    assert main(["init", "--stdout", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "No convention" in out and yaml.safe_load(out) == {}
    assert main(["init", str(Path(tmp_path, "missing"))]) == 2


def test_init_never_declares_a_guide_column_as_the_repository_s_own(repo, capsys):
    # `precision` is a guide column (fp16/bf16); a repository using it for a detection score
    # does not get a `columns: [{name: precision}]` that would shadow it
    for name in ("resnet", "vgg", "vit"):
        p = repo / "configs" / name / "README.md"
        text = (
            p.read_text()
            .replace("| acc@top1 |", "| precision |")
            .replace("| 76.76 |", "| 79.38% |")
        )
        p.write_text(text)
    assert main(["init", "--stdout"]) == 0
    data = yaml.safe_load(capsys.readouterr().out)
    assert "columns" not in data
