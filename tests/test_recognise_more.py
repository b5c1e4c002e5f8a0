"""Issue 22 item 1: recognition that sees more tables and columns, and numbers checked in tables
that do not follow the guide's format. The fixtures are written here, in the shapes real READMEs
use; none is copied from one."""

from __future__ import annotations

import subprocess
import sys

import pytest

from perfbot.config import Config
from perfbot.context import Context
from perfbot.engine import check_source
from perfbot.source import Source

BOLD_EN = """# Toynet

## Results

| **Context** | **Model** | **Batch Size** | **Graph train 1P (ms/step)** | **(FPS)** | **Top-1** |
|:---|:---|:---:|:---:|:---:|:---:|
| Ascend 910x1 | toynet-s | 8 | 1094.86 | 7.37 | 71.20 |
| Ascend 910x1 | toynet-m | 16 | 500.00 | 32.00 | 75.10 |
"""

CHINESE = """# 玩具网络

## 性能

| **环境** | **模型名称** | **单卡批量** | **图模式单卡训练 (ms/step)** | **(FPS)** |
|:---|:---|:---:|:---:|:---:|
| Ascend 910 | toynet-s | 8 | 1094.86 | 7.37 |
| Ascend 910 | toynet-m | 16 | 500.00 | 32.00 |
"""


def findings(text: str) -> list[tuple[int, str]]:
    result = check_source(Source.from_text(text, path="README.md"), Config())
    return [(f.line, f.rule) for f in result.findings]


def messages(text: str, rule: str) -> list[str]:
    result = check_source(Source.from_text(text, path="README.md"), Config())
    return [f.message for f in result.findings if f.rule == rule]


def ctx_of(text: str) -> Context:
    return Context(Source.from_text(text, path="README.md"), Config())


def columns(text: str) -> list[tuple[str, str | None]]:
    ctx = ctx_of(text)
    (t,) = ctx.doc.tables
    return [(c.text, c.name) for c in ctx.recognised(t).columns]


@pytest.mark.parametrize("text", [BOLD_EN, CHINESE], ids=["bold-english", "chinese"])
def test_a_wrong_fps_in_a_table_of_another_format_is_found(text):
    # 1 card (`1P`, 单卡) × 8 / 1.09486 s = 7.31, not 7.37; the second row agrees (16 / 0.5 = 32)
    assert findings(text) == [(7, "PB401")]  # no format finding in a table of another format
    (msg,) = messages(text, "PB401")
    assert "`7.37`" in msg and "1 × 8 / 1094.86 ms = 7.31" in msg


@pytest.mark.parametrize("text", [BOLD_EN, CHINESE], ids=["bold-english", "chinese"])
def test_a_right_fps_in_a_table_of_another_format_is_quiet(text):
    assert findings(text.replace("| 7.37 |", "| 7.31 |")) == []


def test_explain_tables_shows_the_numbers_only_decision(tmp_path):
    p = tmp_path / "README.md"
    p.write_text(BOLD_EN, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", "--explain-tables", str(p)],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    assert "training (numbers only)" in out
    assert "named inside a longer header, in ms/step; the header gives 1 card(s)" in out
    assert "'**(FPS)**': img/s" in out


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("(image to 3D) s/step", "s/step"),
        ("(text to video) s/step", "s/step"),
        ("推理吞吐量（img/s）", "img/s"),
        ("Time(s/step)", "s/step"),
        ("Time (s/step)", "s/step"),
        ("Graph train 8P (ms/step)", "s/step"),
        ("train imgs/s", "img/s"),
        ("(image to 3D) img/s", "img/s"),
        ("Throughput", "img/s"),
        ("Speed (step/s)", "s/step"),
    ],
)
def test_guide_columns_named_inside_longer_headers(header, name):
    text = (
        "## Performance\n\n"
        f"| model name | cards | batch size | resolution | jit level | graph compile | {header} |\n"
        "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n"
        "| toy | 1 | 8 | 256x256 | O2 | 5 mins | 1.00 |\n"
    )
    assert columns(text)[-1] == (header, name)


@pytest.mark.parametrize(
    "header",
    [
        "mIoU(ms)",  # a metric at multiple scales, not milliseconds
        "batch/s",  # batches per second: not img/s, not a batch size
        "throughput (k img/s)",  # thousands: not the guide's unit
        "video/s",  # another unit (a rate slot, not img/s)
        "Top-1 (FPS)",  # a metric's header, whatever its brackets say
        "video fps",  # a video's frame rate
        "tokens (throughput)",
        "img/s per card",
        "FPS / card",
        "ms",
    ],
)
def test_near_misses_are_not_read_as_guide_columns(header):
    text = (
        "## Performance\n\n"
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        f"| {header} |\n"
        "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n"
        "| toy | 1 | 8 | 256x256 | O2 | 5 mins | 1.00 | 8.00 |\n"
    )
    assert columns(text)[-1][1] is None


@pytest.mark.parametrize("header", ["mIoU(ms)", "batch/s"])
def test_a_metric_or_batch_rate_is_not_a_timing_column(header):
    # a timing column perfbot does not understand stops a reorder; these are not timing columns
    text = (
        "## Performance\n\n"
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        f"| img/s | {header} |\n"
        "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n"
        "| toy | 1 | 8 | 256x256 | O2 | 5 mins | 1.00 | 8.00 | 40.1 |\n"
    )
    ctx = ctx_of(text)
    (t,) = ctx.doc.tables
    assert ctx.recognised(t).reorder
    assert ctx.recognised(t).columns[-1].note.startswith("not a timing column")


def test_steps_per_second_is_checked_as_its_reciprocal():
    text = (
        "## Performance\n\n"
        "| Model | Cards | Batch Size | Speed (step/s) | FPS |\n"
        "|:-:|:-:|:-:|:-:|:-:|\n"
        "| toy | 1 | 8 | 2.00 | 16.00 |\n"  # 1 × 8 × 2 = 16: right
        "| toy | 1 | 8 | 2.00 | 4.00 |\n"  # wrong
    )
    assert [f for f in findings(text) if f[1] == "PB401"] == [(6, "PB401")]
    (msg,) = messages(text, "PB401")
    assert "1 × 8 / (1 / 2.00 step/s) = 16.00" in msg


@pytest.mark.parametrize(
    ("header", "row"),
    [
        # no card count anywhere: nothing to compute with
        ("| Model | Batch Size | Graph train (ms/step) | (FPS) |", "| toy | 8 | 1094.86 | 7.37 |"),
        # two step times before one throughput: which one is it?
        (
            "| Model | Batch Size | Graph 1P (ms/step) | PyNative 1P (ms/step) | (FPS) |",
            "| toy | 8 | 1094.86 | 1500.00 | 7.37 |",
        ),
        # a frame rate, not a throughput
        ("| Model | Batch Size | Train 1P (ms/step) | (FPS) |", "| toy | 8 | 1094.86 | 24 |"),
        # only a throughput
        ("| Model | Batch Size | Cards | (FPS) |", "| toy | 8 | 1 | 7.37 |"),
    ],
)
def test_tables_whose_numbers_cannot_be_paired_say_nothing(header, row):
    text = "## Results\n\n" + header + "\n" + "|---" * header.count("|") + "\n" + row + "\n"
    assert findings(text) == []


def test_each_throughput_is_checked_against_its_own_step_time():
    text = (
        "## Results\n\n"
        "| Model | Batch Size | Graph 1P (ms/step) | (FPS) | PyNative 1P (ms/step) | (FPS) |\n"
        "|---|---|---|---|---|---|\n"
        "| toy | 8 | 1000.00 | 8.00 | 2000.00 | 4.00 |\n"
        "| toy | 8 | 1000.00 | 9.00 | 2000.00 | 4.00 |\n"
        "| toy | 8 | 1000.00 | 8.00 | 2000.00 | 4.50 |\n"
    )
    assert findings(text) == [(6, "PB401"), (7, "PB401")]
    (second,) = [m for m in messages(text, "PB401") if "`4.50`" in m]
    assert "1 × 8 / 2000.00 ms = 4.00" in second


FLOOR = """# Toy

## Requirements

| mindspore | ascend driver | cann toolkit/kernel |
|:-:|:-:|:-:|
| >=2.6.0 | >=24.1.RC3 | >=8.1.RC1 |

## Performance

Experiments are tested on ascend 910* with mindspore {version} graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|
| toy | 1 | 8 | 256x256 | O2 | 5 mins | 1.00 | 8.00 |
"""


@pytest.mark.parametrize(
    ("version", "reported"),
    [("2.5.0", True), ("2.3.1", True), ("2.6.0", False), ("2.6", False), ("2.7.0", False)],
)
def test_a_table_measured_below_the_requirements_floor(version, reported):
    found = messages(FLOOR.format(version=version), "PB203")
    assert bool(found) == reported
    if reported:
        assert f"`{version}`, below the Requirements table's minimum `>=2.6.0`" in found[0]


def _requirements(first_header: str, first_cell: str) -> str:
    return (
        "# Toy\n\n## Requirements\n\n"
        f"| {first_header} | mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
        "|:-:|:-:|:-:|:-:|:-:|\n"
        f"| {first_cell} | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |\n"
    )


@pytest.mark.parametrize(
    ("header", "cell"),
    [("NPU type", "Atlas 800T A2"), ("芯片", "昇腾 910"), ("", "Ascend 910*"), ("Hardware", "A2")],
)
def test_a_requirements_table_whose_first_column_names_the_device(header, cell):
    text = _requirements(header, cell)
    ctx = ctx_of(text)
    (t,) = ctx.doc.tables
    assert ctx.recognised(t).kind == "requirements"
    assert (7, "PB501") in findings(text)  # the wrong CANN is found


@pytest.mark.parametrize(("header", "cell"), [("mindyolo", "0.4.0"), ("", "v1"), ("model", "toy")])
def test_a_first_column_of_another_product_is_still_a_mapping(header, cell):
    text = _requirements(header, cell)
    ctx = ctx_of(text)
    (t,) = ctx.doc.tables
    assert t.kind == "other" and ctx.recognised(t).numbers_only  # not the guide's table
    assert findings(text) == [(7, "PB501")]  # but its wrong CANN is found


SIDEWAYS = """# Toy

## Requirements

| software | version |
|---|---|
| mindspore | 2.3.1 |
| ascend driver | 24.1.RC2 |
| firmware | 7.3.0.1.231 |
| cann toolkit/kernel | {cann} |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|
| toy | 1 | 8 | 256x256 | O2 | 5 mins | 1.00 | 8.00 |
"""

VERSION_COLUMNS = """# Toy

## Requirements

| mindspore | 2.3.1 | 2.3.0 |
|---|---|---|
| ascend driver | 24.1.RC2 | 24.1.RC2 |
| cann toolkit/kernel | 8.0.RC2.beta1 | {cann} |
| python | 3.9 | 3.9 |
"""


def test_versions_written_as_rows_are_checked_against_the_matrix():
    text = SIDEWAYS.format(cann="8.0.RC3.beta1")
    assert findings(text) == [(10, "PB501")]  # the wrong CANN; no PB101, no format finding
    assert findings(SIDEWAYS.format(cann="8.0.RC2.beta1")) == []


def test_versions_written_as_columns_are_checked_against_the_matrix(tmp_path):
    text = VERSION_COLUMNS.format(cann="7.0.0.beta1")
    assert findings(text) == [(8, "PB501")]
    assert findings(VERSION_COLUMNS.format(cann="8.0.RC2.beta1")) == []
    # the unsafe fix edits the cell where it is, and only it
    p = tmp_path / "README.md"
    p.write_text(text, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "perfbot", "fix", "--unsafe-fixes", str(p)],
        capture_output=True, check=False,
    )  # fmt: skip
    assert p.read_text(encoding="utf-8") == VERSION_COLUMNS.format(cann="8.0.RC2.beta1")


@pytest.mark.parametrize(
    "table",
    [
        # a product's version mapping: its first column is not the guide's columns
        "| mindyolo | mindspore | cann |\n|---|---|---|\n| 0.4 | 2.3.1 | 8.0.RC2 |\n",
        # two of the guide's names in a first column: a list of packages, not the guide's table
        "| package | version |\n|---|---|\n| mindspore | 2.3.1 |\n| cann | 7.0.0.beta1 |\n",
    ],
)
def test_near_misses_of_a_sideways_requirements_table(table):
    assert findings("# Toy\n\n## Notes\n\n" + table) == []


def _video(resolution: str, img_s: str = "8.00") -> str:
    return (
        "## Performance\n\n"
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        "| img/s |\n"
        "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n"
        f"| toy | 1 | 8 | {resolution} | O2 | 5 mins | 1.00 | {img_s} |\n"
    )


def test_a_frames_last_resolution_is_reported_without_a_fix():
    result = check_source(Source.from_text(_video("256x256x32"), path="README.md"), Config())
    (f,) = [f for f in result.findings if f.rule == "PB412"]
    assert "frames first" in f.message and "`256x256x32`" in f.message
    assert f.fix is None  # which number is which is the author's to say


@pytest.mark.parametrize("resolution", ["32x256x256", "512x512x3", "96x96x96", "256x256"])
def test_resolutions_that_are_not_frames_last(resolution):
    assert "PB412" not in [r for _, r in findings(_video(resolution))]


def test_img_s_counting_the_frames_of_a_frames_last_resolution_agrees():
    # 1 × 8 × 32 frames / 1.00 s = 256: the F of `256x256x32`, written last
    assert "PB401" not in [r for _, r in findings(_video("256x256x32", "256.00"))]
    assert "PB406" not in [r for _, r in findings(_video("256x256x32", "256.00"))]


def _guide_table(header: str, value: str) -> str:
    return (
        "## Performance\n\n"
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        f"| model name | cards | batch size | resolution | jit level | graph compile | {header} "
        "| img/s |\n"
        "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n"
        f"| toy | 1 | 8 | 256x256 | O2 | 5 mins | {value} | 8.00 |\n"
    )


def test_a_step_rate_is_told_with_the_s_step_it_gives():
    (msg,) = messages(_guide_table("step/s", "2.00"), "PB306")
    assert "steps per second" in msg and "(2.00 step/s is 0.50 s/step)" in msg
    # and its img/s is checked as 1 × 8 / 0.50 = 16, not 8
    assert [r for _, r in findings(_guide_table("step/s", "2.00"))].count("PB401") == 1


def test_ms_per_step_inside_a_longer_header_is_told_like_ms_per_step():
    text = _guide_table("Graph train (ms/step)", "1000.00")
    assert len(messages(text, "PB306")) == 1
    assert "PB401" not in [r for _, r in findings(text)]  # 1 × 8 / 1 s = 8.00


def test_a_first_column_of_package_names_beside_descriptions_is_not_a_requirements_table():
    table = (
        "| component | what it is |\n|---|---|\n| mindspore | the framework |\n"
        "| ascend driver | the NPU driver |\n| cann | the compute library |\n"
    )
    ctx = ctx_of("# Toy\n\n## Requirements\n\n" + table)
    (t,) = ctx.doc.tables
    assert ctx.recognised(t).kind == "other"


def test_a_throughput_beside_a_sequence_length_is_not_read_as_img_s():
    text = (
        "## Results\n\n"
        "| Model | Cards | Batch Size | Seq Len | Train (s/step) | Throughput |\n"
        "|---|---|---|---|---|---|\n"
        "| toy | 8 | 1 | 4096 | 2.00 | 16384.00 |\n"
    )
    assert findings(text) == []


def test_a_video_height_in_a_timing_header_is_not_a_card_count():
    text = (
        "## Results\n\n"
        "| Model | Batch Size | 720p (s/step) | (FPS) |\n"
        "|---|---|---|---|\n"
        "| toy | 1 | 2.00 | 0.50 |\n"
    )
    assert findings(text) == []


MAPPING = """# Toy

## Versions

| toyzoo | mindspore | ascend driver | firmware | cann toolkit/kernel |
|:-:|:-:|:-:|:-:|:-:|
| master | master | 24.1.0 | 7.5.0.3.220 | 8.0.0.beta1 |
| 0.2.0 | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | {cann} |
"""


def test_a_product_version_mapping_has_its_cann_checked_and_nothing_else():
    assert findings(MAPPING.format(cann="8.0.RC3.beta1")) == [(8, "PB501")]
    assert findings(MAPPING.format(cann="8.0.RC2.beta1")) == []
    ctx = ctx_of(MAPPING.format(cann="8.0.RC2.beta1"))
    (t,) = ctx.doc.tables
    assert t.kind == "other" and ctx.recognised(t).numbers_only


def test_a_version_mapping_is_not_the_models_requirements_table():
    text = (
        MAPPING.format(cann="8.0.RC2.beta1")
        + "\n## Performance\n\n"
        + _guide_table("s/step", "1.00").split("## Performance\n\n", 1)[1]
    )
    assert "PB101" in [r for _, r in findings(text)]


def test_an_html_table_is_never_read_for_its_numbers():
    text = (
        "## Results\n\n<table>\n<tr><th>Model</th><th>Batch Size</th>"
        "<th>Graph train 1P (ms/step)</th><th>(FPS)</th></tr>\n"
        "<tr><td>toy</td><td>8</td><td>1094.86</td><td>7.37</td></tr>\n</table>\n"
    )
    assert [r for _, r in findings(text) if r != "PB602"] == []


@pytest.mark.parametrize(
    ("words", "cards"), [("图模式八卡训练", 8), ("Graph train single-card", 1)]
)
def test_a_card_count_in_words(words, cards):
    text = (
        "## Results\n\n"
        f"| Model | Batch Size | {words} (ms/step) | (FPS) |\n"
        "|---|---|---|---|\n"
        f"| toy | 8 | 1000.00 | {8 * cards + 1}.00 |\n"
    )
    (msg,) = messages(text, "PB401")
    assert f"{cards} × 8 / 1000.00 ms = {8 * cards}.00" in msg


def test_the_cards_of_each_row_from_the_machine_its_context_cell_names():
    text = (
        "## Results\n\n"
        "| **Model** | **Context** | **Batch Size** | **Graph train (ms/step)** | **(FPS)** |\n"
        "|---|---|---|---|---|\n"
        "| toy | D910x8-G | 32 | 400.00 | 640.00 |\n"  # 8 × 32 / 0.4 s: right
        "| toy | Ascend 910*x4 | 32 | 400.00 | 320.00 |\n"  # 4 cards: right
        "| toy | D910x8-G | 32 | 400.00 | 600.00 |\n"  # wrong
    )
    assert findings(text) == [(7, "PB401")]


def test_a_card_count_in_the_timing_header_wins_over_the_context_cell():
    text = (
        "## Results\n\n"
        "| Model | Context | Batch Size | Graph train 1P (ms/step) | (FPS) |\n"
        "|---|---|---|---|---|\n"
        "| toy | D910x8-G | 8 | 1000.00 | 8.00 |\n"
    )
    assert findings(text) == []
