"""`perfbot.rerun.refresh`: measured numbers become a minimal core Fix of their README row."""

# ruff: noqa: E501 - the fixtures are whole README table rows

import pytest

from perfbot.config import Config
from perfbot.engine import Context, check_source
from perfbot.fix import replacement
from perfbot.rerun.refresh import RowError, apply_refreshes, find_row, refresh
from perfbot.runner.bench import BenchResult
from perfbot.source import Source

README = """\
# DiT

## Performance

### Training

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |
| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | **0.93** | 550.54 |

### Inference

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | scheduler | steps | jit level | graph compile | s/step | img/s | s/img |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 1 | 256x256 | ddim | 50 | O2 | 1~2 mins | 0.08 | 0.25 | 4.00 |
"""


def result(**kw) -> BenchResult:
    base = {
        "name": "dit-1p",
        "readme": "README.md",
        "row": {"model name": "dit", "cards": "1", "recompute": "OFF"},
        "status": "ok",
        "cards": 1,
        "batch_size": 64,
        "s_per_step": 0.912345,
        "graph_compile_s": 250.0,
        "cv": 0.01,
        "environment": {"mindspore": "2.3.1"},  # the version of the tables below
    }
    base.update(kw)
    return BenchResult.model_validate(base)


def src(text: str = README) -> Source:
    return Source.from_text(text, path="README.md")


def changed_lines(old: str, new: str) -> list[tuple[str, str]]:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def findings(text: str, config: Config | None = None) -> set[str]:
    res = check_source(Source.from_text(text, path="README.md"), config or Config())
    return {f"{f.rule} {f.line}" for f in res.findings}


def derived_findings(text: str, config: Config | None = None, before: str = README) -> list[str]:
    """img/s and s/img findings after the refresh, and any finding the refresh added."""
    after = findings(text, config)
    added = after - findings(before, config)
    return sorted(added | {f for f in after if f.startswith(("PB401", "PB403"))})


def test_training_row_gets_new_step_time_and_img_s_only():
    (rr,) = refresh(src(), [result()])
    assert rr.problem is None and rr.line == 11
    new = apply_refreshes(src(), [rr])
    assert changed_lines(README, new) == [
        (
            "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |\n",
            "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n",
        )
    ]  # 250 s = 5 mins is inside 3~5 mins: left alone
    assert [(c.column, c.old, c.new) for c in rr.cells] == [
        ("s/step", "0.89", "0.91"),
        ("graph compile", "3~5 mins", "3~5 mins"),
        ("img/s", "71.91", "70.15"),
    ]
    assert rr.change == pytest.approx(0.912345 / 0.89 - 1)
    assert derived_findings(new) == []
    # as a suggestion: the whole line, with its line ending
    assert replacement(src(), rr.fix) == (
        11,
        11,
        "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n",
    )


def test_compile_outside_the_range_and_emphasis_kept():
    r = result(
        name="dit-8p",
        row={"model name": "dit", "cards": "8"},
        cards=8,
        s_per_step=0.8,
        graph_compile_s=421.0,
    )
    (rr,) = refresh(src(), [r])
    new = apply_refreshes(src(), [rr])
    ((_, line),) = changed_lines(README, new)
    assert line == "| dit | 8 | 64 | 256x256 | ON | O2 | 8 mins | **0.80** | 640.00 |\n"
    assert derived_findings(new) == []


def test_inference_row_updates_img_s_and_s_img():
    r = result(
        name="dit-infer",
        row=3,  # the third performance-table data row of the README
        batch_size=1,
        inference=True,
        sampling_steps=50,
        s_per_step=0.0712,
        graph_compile_s=30.0,
    )
    (rr,) = refresh(src(), [r])
    assert rr.problem is None and rr.line == 20
    new = apply_refreshes(src(), [rr])
    ((_, line),) = changed_lines(README, new)
    # 1 x 1 / (50 x 0.0712) = 0.28 img/s; 50 x 0.0712 = 3.56 s/img; 30 s -> 1 min: in 1~2
    assert line == "| dit | 1 | 1 | 256x256 | ddim | 50 | O2 | 1~2 mins | 0.07 | 0.28 | 3.56 |\n"
    assert derived_findings(new) == []


MINDCV = """\
## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | params(M) | cards | batch size | resolution | jit level | graph compile | ms/step | img/s | acc@top1 |
|------------|-----------|-------|------------|------------|-----------|---------------|---------|---------|----------|
| resnet50   | 25.61     | 8     | 32         | 224x224    | O2        | 77s           | 33.09   | 7736.47 | 76.76    |
| resnet101  | 44.65     | 8     | 32         | 224x224    | O2        | 137.35s       | 99.93   | 2561.79 | 78.06    |
"""


def test_ms_per_step_table_seconds_compile_and_aligned_padding_kept():
    config = Config.model_validate(
        {"allow": {"ms_per_step": True, "compile_seconds": True}, "columns": [{"name": "acc@top1"}]}
    )
    r50 = result(
        name="resnet50",
        row={"model name": "resnet50"},
        cards=8,
        batch_size=32,
        s_per_step=0.0312345,
        graph_compile_s=80.456,
    )
    r101 = result(
        name="resnet101",
        row={"model name": "resnet101"},
        cards=8,
        batch_size=32,
        s_per_step=0.100052,
        graph_compile_s=139.123,
    )
    s = Source.from_text(MINDCV, path="README.md")
    a, b = refresh(s, [r50, r101], config)
    assert a.unit == "ms/step" and a.old_s_per_step == pytest.approx(0.03309)
    new = apply_refreshes(s, [a, b])
    assert changed_lines(MINDCV, new) == [
        (
            "| resnet50   | 25.61     | 8     | 32         | 224x224    | O2        | 77s           "
            "| 33.09   | 7736.47 | 76.76    |\n",
            "| resnet50   | 25.61     | 8     | 32         | 224x224    | O2        | 80s           "
            "| 31.23   | 8196.07 | 76.76    |\n",
        ),
        (
            "| resnet101  | 44.65     | 8     | 32         | 224x224    | O2        | 137.35s       "
            "| 99.93   | 2561.79 | 78.06    |\n",
            "| resnet101  | 44.65     | 8     | 32         | 224x224    | O2        | 139.12s       "
            "| 100.05  | 2558.67 | 78.06    |\n",
        ),
    ]
    assert derived_findings(new, config, MINDCV) == []


def test_crlf_and_div_wrapped_table_keep_their_bytes():
    text = (
        '<div align="center">\r\n\r\n'
        + README.split("### Training\n\n")[1].split("\n\n### Inference")[0].replace("\n", "\r\n")
        + "\r\n\r\n</div>\r\n"
    )
    s = Source.from_text(text, path="README.md")
    (rr,) = refresh(s, [result()])
    assert rr.problem is None
    new = apply_refreshes(s, [rr])
    assert new.count("\r\n") == text.count("\r\n") and "\n" not in new.replace("\r\n", "")
    assert "| 0.91 | 70.15 |\r\n" in new and new.startswith('<div align="center">\r\n')


@pytest.mark.parametrize(
    ("kw", "problem"),
    [
        ({"cards": 4}, "the row says cards 1 but the benchmark ran with 4"),
        ({"batch_size": 32}, "the row says batch size 64 but the benchmark ran with 32"),
        ({"status": "failed", "message": "the command exited with code 1", "s_per_step": None},
         "the command exited with code 1"),
        ({"status": "timeout", "message": "", "s_per_step": 0.5}, "status timeout"),
        ({"row": {"model name": "dit"}}, "3 rows have model name = dit (lines 11, 12, 20)"),
        ({"row": {"model name": "vit"}}, "no performance-table row has model name = vit"),
        ({"row": {"model name": "dit", "flash attn": "ON"}}, "no performance-table row"),
        ({"row": 4}, "row 4: the README's performance tables have 3 data rows"),
        ({"inference": True, "sampling_steps": 50}, "is an inference benchmark, but its row"),
        ({"row": 3, "batch_size": 1}, "the row is in an inference table, but"),
        ({"row": 3, "batch_size": 1, "inference": True, "sampling_steps": 40},
         "the row says steps 50 but the benchmark sampled 40 steps"),
    ],
)  # fmt: skip
def test_rows_that_cannot_take_the_numbers_get_no_fix(kw, problem):
    (rr,) = refresh(src(), [result(**kw)])
    assert rr.fix is None and problem in rr.problem


def test_two_benchmarks_on_one_row():
    a, b = refresh(src(), [result(), result(name="dit-1p-again")])
    assert a.fix is not None and b.fix is None and "dit-1p also measures this row" in b.problem


def test_unchanged_numbers_give_no_fix():
    (rr,) = refresh(src(), [result(s_per_step=0.89, graph_compile_s=200.0)])
    assert rr.problem is None and rr.fix is None
    assert [c.changed for c in rr.cells] == [False, False, False]
    assert rr.change == 0


def test_missing_compile_is_a_note_and_placeholders_are_filled():
    text = README.replace("| 3~5 mins | 0.89 | 71.91 |", "| - | xx.xx | - |")
    (rr,) = refresh(src(text), [result(graph_compile_s=None)])
    assert rr.old_s_per_step is None and rr.change is None
    assert any("graph compile was not measured" in n for n in rr.notes)
    new = apply_refreshes(src(text), [rr])
    assert "| 256x256 | OFF | O2 | - | 0.91 | 70.15 |" in new


def test_row_selector_uses_column_aliases_and_values_loosely():
    text = README.replace("| model name | cards |", "| Model | # cards |", 1)
    ctx = Context(src(text), Config())
    _, row = find_row(ctx, {"model name": "DIT", "cards": "8.0"})
    assert row.line == 12
    with pytest.raises(RowError, match="no performance table"):
        find_row(Context(src("# x\n"), Config()), 1)
    html = (
        "## Performance\n\n<table><tr><th>model name</th><th>s/step</th><th>img/s</th></tr>"
        "<tr><td>dit</td><td>0.89</td><td>71.91</td></tr></table>\n"
    )
    with pytest.raises(RowError, match="HTML <table>"):
        find_row(Context(src(html), Config()), 1)


def test_escaped_pipes_stay_escaped_and_aligned_pipes_stay_put():
    config = Config.model_validate({"allow": {"ms_per_step": True, "compile_seconds": True}})
    text = MINDCV.replace("| 33.09   |", "| 33.09 \\| |")
    r = result(name="r50", row=1, cards=8, batch_size=32, s_per_step=0.5, graph_compile_s=77.2)
    s = Source.from_text(text, path="README.md")
    (rr,) = refresh(s, [r], config)
    ((_, new_line),) = changed_lines(text, apply_refreshes(s, [rr]))
    assert "| 500.00 \\| | 512.00 |" in new_line
    assert rr.cell("s/step").old == "33.09 \\|"
    # a shorter number in an aligned column gets padding, so the next pipe does not move
    r = result(
        name="r101", row=2, cards=8, batch_size=32, s_per_step=0.00512, graph_compile_s=137.354
    )
    s = Source.from_text(MINDCV, path="README.md")
    (rr,) = refresh(s, [r], config)
    ((old_line, new_line),) = changed_lines(MINDCV, apply_refreshes(s, [rr]))
    assert "| 137.35s       | 5.12    | 50000.00 |" in new_line
    assert new_line.index("| 50000.00") == old_line.index("| 2561.79")


def test_img_s_comes_from_the_unrounded_step_time():
    # bench measured 0.0186127 s/step: it stores s/step rounded to 6 decimals (0.018613) and img/s
    # from the unrounded value (3438.512414); 64 / 0.018613 would give 3438.46
    (rr,) = refresh(src(), [result(s_per_step=0.018613, img_per_s=3438.512414)])
    assert rr.cell("img/s").new == "3438.51" and rr.cell("s/step").new == "0.02"
    # an img/s that does not belong to this s/step (cards or batch size changed) is not trusted
    (rr,) = refresh(src(), [result(s_per_step=0.018613, img_per_s=6877.02)])
    assert rr.cell("img/s").new == "3438.46"
    # inference: s/img from the same unrounded step time
    r = result(
        name="inf", row=3, batch_size=1, inference=True, sampling_steps=50,
        s_per_step=0.083333, img_per_s=0.240000,
    )  # fmt: skip
    (rr,) = refresh(src(), [r])
    assert rr.cell("img/s").new == "0.24" and rr.cell("s/img").new == "4.17"


def test_a_pynative_run_keeps_the_tables_notation_for_graph_compile():
    # step 1 of a PyNative run is slower too (kernel compile, warm-up): bench reports a "compile"
    text = README.replace(
        "2.3.1 graph mode.\n\n| model name | cards | batch size | resolution | recompute",
        "2.3.1 pynative mode.\n\n| model name | cards | batch size | resolution | recompute",
    )
    text = text.replace("| O2 | 3~5 mins | 0.89 | 71.91 |", "| O2 | N/A | 0.89 | 71.91 |")
    text = text.replace("| O2 | 3~5 mins | **0.93** |", "| O2 | 5 mins | **0.93** |")
    (rr,) = refresh(src(text), [result(graph_compile_s=2.27)])
    assert rr.cell("graph compile") is None and rr.problem is None
    new = apply_refreshes(src(text), [rr])
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | N/A | 0.91 | 70.15 |" in new
    # a number in a PyNative table's cell is left alone too, and said so
    (rr,) = refresh(
        src(text),
        [
            result(
                **{"name": "dit-8p", "cards": 8, "row": {"model name": "dit", "cards": "8"}},
                graph_compile_s=2.27,
            )
        ],
    )
    new = apply_refreshes(src(text), [rr])
    assert "| O2 | 5 mins | **0.91** | 561.19 |" in new
    assert any(
        "a PyNative run compiles no graph (the cell is left as it is)" in n for n in rr.notes
    )
    # the same row in a graph-mode table does get the compile time
    (rr,) = refresh(src(), [result(graph_compile_s=400.0)])
    assert rr.cell("graph compile").new == "7 mins"
    # a PyNative result (`run_mode`) never lands in the graph-mode table of its version: it
    # goes to a PyNative table of its own, with no graph compile
    pynative = result(graph_compile_s=400.0).model_copy(update={"run_mode": "pynative"})
    (rr,) = refresh(src(), [pynative])
    assert rr.cell("graph compile") is None and rr.fix is None
    assert rr.new_version == "2.3.1"
    new = apply_refreshes(src(), [rr])
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |" in new  # kept
    assert new.count("mindspore 2.3.1 pynative mode.") == 1
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | - | 0.91 | 70.15 |" in new
    # and a graph result for a row that is only in a PyNative table goes to a graph table
    graph = result(graph_compile_s=400.0).model_copy(update={"run_mode": "graph"})
    (rr,) = refresh(src(text), [graph])
    assert rr.new_version == "2.3.1"
    new = apply_refreshes(src(text), [rr])
    assert "with mindspore 2.3.1 graph mode.\n" in new
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | 7 mins | 0.91 | 70.15 |" in new


# --- another MindSpore version: a table of its own ----------------------------------------------

REQUIREMENTS = """\
## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

"""
WITH_REQ = README.replace("## Performance\n", REQUIREMENTS + "## Performance\n")


def on(mindspore, **env):
    return {"environment": {"mindspore": mindspore, **env}}


def test_a_cpu_runner_without_cann_gets_the_matrix_row_and_a_note():
    (rr,) = refresh(src(WITH_REQ), [result(**on("2.7.1"))])
    assert rr.fix is None and rr.new_version == "2.7.1"
    assert rr.new_row == "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |"
    (proposal,) = {id(rr.proposal): rr.proposal}.values()
    assert proposal.requirements == ["| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |"]
    assert any("the runner reported no CANN" in n and "`8.3.RC1`" in n for n in proposal.notes)
    new = apply_refreshes(src(WITH_REQ), [rr])
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |" in new  # old kept
    # the new table sits under the training table, before the inference heading
    training = new.split("### Inference")[0]
    assert training.endswith(
        "Experiments are tested on ascend 910* with mindspore 2.7.1 graph mode.\n\n"
        "| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n\n"
    )
    rules = {f.split()[0] for f in findings(new)}  # nothing new for the checker
    assert len(findings(new)) == len(findings(WITH_REQ)) and rules == {
        f.split()[0] for f in findings(WITH_REQ)
    }


def test_a_cann_the_matrix_does_not_pair_with_the_version_is_said():
    (rr,) = refresh(src(WITH_REQ), [result(**on("2.7.1", cann="8.0.RC2", driver="25.3.RC1"))])
    (proposal,) = {id(rr.proposal): rr.proposal}.values()
    assert proposal.requirements == ["| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.0.RC2 |"]
    assert any("CANN `8.0.RC2` does not belong to MindSpore 2.7.1" in n for n in proposal.notes)


def test_the_versions_own_table_is_used_when_there_is_one():
    table_271 = (
        "\n\nExperiments are tested on ascend 910* with mindspore 2.7.1 graph mode.\n\n"
        "| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 568.89 |\n"
    )
    req = WITH_REQ.replace(
        "| 8.0.RC2.beta1 |\n", "| 8.0.RC2.beta1 |\n| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |\n"
    )
    text = req.replace("| 550.54 |\n", "| 550.54 |" + table_271)
    # the 8-card row is in both tables: the runner's version picks the 2.7.1 one, in place
    r8 = result(name="dit-8p", row={"model name": "dit", "cards": "8"}, cards=8, **on("2.7.1"))
    (rr,) = refresh(src(text), [r8])
    assert rr.problem is None and rr.new_version is None
    assert (
        rr.line
        == text.splitlines().index(
            "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 568.89 |"
        )
        + 1
    )
    # the 1-card row is only in the 2.3.1 table: it joins the 2.7.1 table, no Requirements row
    (rr,) = refresh(src(text), [result(**on("2.7.1"))])
    assert rr.new_version == "2.7.1" and rr.proposal.requirements == []
    new = apply_refreshes(src(text), [rr])
    assert (
        "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 568.89 |\n"
        "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n"
    ) in new
    assert new.count("mindspore 2.7.1 graph mode") == 1
    # a runner on the table's own version: in place
    (rr,) = refresh(src(WITH_REQ), [result(**on("2.3.1"))])
    assert rr.new_version is None and rr.fix is not None
    # a runner that reported no MindSpore: nothing moves into or out of a version's table
    (rr,) = refresh(src(WITH_REQ), [result(**on(None))])
    assert rr.new_version is None and rr.fix is None
    assert "MindSpore version the benchmark ran is unknown" in (rr.problem or "")
    assert apply_refreshes(src(WITH_REQ), [rr]) == WITH_REQ
    # ... but a table that names no version is refreshed in place
    plain = WITH_REQ.replace("with mindspore 2.3.1 graph mode.", "in graph mode.")
    (rr,) = refresh(src(plain), [result(**on(None))])
    assert rr.problem is None and rr.fix is not None


def test_rows_added_unmeasured_to_a_versions_table_bring_the_note_once():
    """A row that joins the version's existing table with graph compile not measured gets the
    table's placeholder, and the table a note saying what it means (once: a second row, or a
    table that already says it, adds none), so check asks nobody to fill it in."""
    table_271 = (
        "\n\nExperiments are tested on ascend 910* with mindspore 2.7.1 graph mode.\n\n"
        "| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 4 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 284.44 |\n"
    )
    req = WITH_REQ.replace(
        "| 8.0.RC2.beta1 |\n", "| 8.0.RC2.beta1 |\n| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |\n"
    )
    text = req.replace("| 550.54 |\n", "| 550.54 |" + table_271).replace("**0.93**", "0.93")
    r1 = result(graph_compile_s=None, **on("2.7.1"))
    r8 = result(
        name="dit-8p", row={"model name": "dit", "cards": "8"}, cards=8, graph_compile_s=None,
        **on("2.7.1"),
    )  # fmt: skip
    rrs = refresh(src(text), [r1, r8])
    assert [rr.new_version for rr in rrs] == ["2.7.1", "2.7.1"]
    new = apply_refreshes(src(text), rrs)
    assert (
        "| dit | 4 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 284.44 |\n"
        "| dit | 1 | 64 | 256x256 | OFF | O2 | - | 0.91 | 70.15 |\n"
        "| dit | 8 | 64 | 256x256 | ON | O2 | - | 0.91 | 561.19 |\n"
        "\n`-`: not measured on MindSpore 2.7.1.\n\n### Inference"
    ) in new
    assert not [f for f in findings(new) if f.startswith("PB405")]
    rules = lambda t: sorted(f.split()[0] for f in findings(t))  # noqa: E731
    assert rules(new) == rules(text)  # nothing new for the checker
    # the same rows again, into a table that already says it: no second note
    said = text.replace("| 284.44 |\n", "| 284.44 |\n\n`-`: not measured on MindSpore 2.7.1.\n")
    again = apply_refreshes(src(said), refresh(src(said), [r1]))
    assert again.count("not measured") == 1


def test_untrusted_environment_values_never_reach_the_readme():
    env = on("2.7.1", driver="25.3.RC1 | `@admin`\n| x", cann="8.3.RC1")
    text = WITH_REQ.replace("| 550.54 |\n", "| 550.54 |\nNotes: medians of 200 steps.\n")
    (rr,) = refresh(src(text), [result(**env)])
    (proposal,) = {id(rr.proposal): rr.proposal}.values()
    assert proposal.requirements == ["| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |"]
    assert "the runner's driver is not a driver version; it is left out" in proposal.notes
    assert not any("@admin" in n for n in proposal.notes)
    new = apply_refreshes(src(text), [rr])
    assert "@admin" not in new
    # the text right under the old table stays apart from the new table
    assert "| 0.91 | 70.15 |\n\nNotes: medians of 200 steps.\n" in new


def test_the_versions_table_in_another_section_is_used():
    text = WITH_REQ.replace(
        "| 8.0.RC2.beta1 |\n", "| 8.0.RC2.beta1 |\n| 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |\n"
    ) + (
        "\n### Training on MindSpore 2.7.1\n\n"
        "Experiments are tested on ascend 910* with mindspore 2.7.1 graph mode.\n\n"
        "| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 568.89 |\n"
    )
    (rr,) = refresh(src(text), [result(**on("2.7.1"))])
    new = apply_refreshes(src(text), [rr])
    assert new.endswith(
        "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.90 | 568.89 |\n"
        "| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n"
    )
    assert new.count("mindspore 2.7.1 graph mode") == 1


def test_a_step_rate_column_is_not_given_seconds():
    # `step/s` is read as s/step = 1/x (issue 22): a refresh must not write seconds into it
    text = README.replace(
        "| s/step | img/s |\n|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|",
        "| step/s | img/s |\n|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|",
        1,
    )
    assert "| step/s |" in text
    (rr,) = refresh(src(text), [result()])
    assert rr.fix is None and "steps per second" in (rr.problem or "")


ACC_README = """\
## Requirements

| mindspore | ascend driver |  firmware   | cann toolkit/kernel |
|:---------:|:-------------:|:-----------:|:-------------------:|
|   2.5.0   |    24.1.0     | 7.5.0.3.220 |     8.0.0.beta1     |

## Performance

Experiments are tested on ascend 910* with mindspore 2.5.0 graph mode.

| model name | params(M) | cards | batch size | resolution | jit level | graph compile | ms/step | img/s | acc@top1 | recipe |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| resnet18 | 11.70 | 1 | 64 | 224x224 | O2 | 5s | 600.00 | 106.67 | 70.21 | [yaml](r.yaml) |
"""


def test_a_moved_row_carries_only_what_was_measured():
    """The new version's row keeps the settings, gets the measured cells, and the placeholder
    (with a note) for graph compile when it was not measured and for accuracy: the old
    version's values are not measurements on the new one (issue 23 item 2)."""
    r = result(
        row={"model name": "resnet18"},
        batch_size=64,
        s_per_step=0.5,
        graph_compile_s=None,
        img_per_s=128.0,
        **on("2.10.0"),
    )
    (rr,) = refresh(src(ACC_README), [r])
    assert rr.new_version == "2.10.0"
    assert rr.new_row == (
        "| resnet18 | 11.70 | 1 | 64 | 224x224 | O2 | - | 500.00 | 128.00 | - | [yaml](r.yaml) |"
    )
    assert any("`graph compile`" in n and "`acc@top1`" in n for n in rr.notes)
    assert not any("left as it is" in n for n in rr.notes)
    # measured compile: the new value, accuracy still not
    (rr,) = refresh(src(ACC_README), [r.model_copy(update={"graph_compile_s": 6.2})])
    assert "| O2 | 6s | 500.00 | 128.00 | - |" in (rr.new_row or "")


def test_the_new_requirements_row_is_padded_like_its_aligned_table():
    r = result(row={"model name": "resnet18"}, s_per_step=0.5, img_per_s=128.0, **on("2.10.0"))
    (rr,) = refresh(src(ACC_README), [r])
    (line,) = rr.proposal.requirements
    # the matrix's row for 2.10.0 (its driver and firmware have no source: `-`)
    assert line == "|   2.10.0  |    -          | -           |     9.1.0           |"
    header = ACC_README.splitlines()[2]
    assert [i for i, c in enumerate(line) if c == "|"] == [
        i for i, c in enumerate(header) if c == "|"
    ]
    # the sentence's device is the old table's: said, not hidden
    assert any("perfbot does not detect the chip" in n for n in rr.proposal.notes)
