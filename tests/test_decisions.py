"""Issue 22's decisions, where the guide's letter is silent: what a plain `perfbot fix` (safe
fixes only) may do, and what it must leave to `--unsafe-fixes` or to a person."""

from __future__ import annotations

from perfbot.engine import check_source, fix_source
from perfbot.source import Source

REQ = """\
## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

"""
SENTENCE = "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
HEAD = (
    "| model name | cards | batch size | resolution | psnr | s/img | jit level | graph compile "
    "| s/step | img/s |\n" + "|:--:" * 10 + "|\n"
)


def _doc(*rows: str) -> Source:
    return Source.from_text("# toy\n\n" + REQ + SENTENCE + HEAD + "".join(r + "\n" for r in rows))


def _pb410(src: Source) -> dict[str, str | None]:
    """PB410's fixes: the cell text -> the fix's applicability."""
    out: dict[str, str | None] = {}
    for f in check_source(src).findings:
        if f.rule == "PB410":
            cell = f.message.split("`")[3]
            out[cell] = f.fix.applicability if f.fix else None
    return out


def test_padding_is_safe_in_every_two_decimal_column():
    src = _doc("| toy | 1 | 49 | 256x256 | 28.1 | 1.0 | O2 | 3~5 mins | 1 | 49 |")
    assert _pb410(src) == {"28.1": "safe", "1": "safe", "49": "safe", "1.0": "safe"}
    safe, _ = fix_source(src, unsafe=False)
    assert "| toy | 1 | 49 | 256x256 | 28.10 | 1.00 | O2 | 3~5 mins | 1.00 | 49.00 |" in safe
    assert "precision nobody measured" not in " ".join(
        f.message for f in check_source(src).findings
    )


def test_rounding_by_more_than_half_a_percent_is_unsafe_and_says_by_how_much():
    src = _doc("| toy | 1 | 1 | 256x256 | 28.004 | 0.028 | O2 | 3~5 mins | 0.025 | 40.00 |")
    assert _pb410(src) == {"28.004": "safe", "0.025": "unsafe", "0.028": "unsafe"}
    msgs = {f.message for f in check_source(src).findings if f.rule == "PB410"}
    assert any("`0.025`" in m and "+20 %" in m for m in msgs)
    assert any("`0.028`" in m and "+7.1 %" in m for m in msgs)
    safe, _ = fix_source(src, unsafe=False)
    assert "| 28.00 |" in safe and "| 0.025 |" in safe and "| 0.028 |" in safe
    assert fix_source(Source.from_text(safe), unsafe=False)[0] == safe  # settles


def test_rounding_near_the_tolerance():
    # 71.5153 -> 71.52 (+0.007 %) and 2.005 -> 2.01 (+0.25 %) are safe; 0.995 -> 1.00 (+0.503 %)
    # and 0.8949 -> 0.89 (-0.55 %) are not
    src = _doc(
        "| toy | 1 | 64 | 256x256 | 28.00 | 2.005 | O2 | 3~5 mins | 0.8949 | 71.5153 |",
        "| toy | 1 | 64 | 256x256 | 28.00 | 1.00 | O2 | 3~5 mins | 0.995 | 64.32 |",
    )
    assert _pb410(src) == {
        "0.8949": "unsafe",
        "71.5153": "safe",
        "2.005": "safe",
        "0.995": "unsafe",
    }


# --- PB304: columns the guide does not place are not moved by plain `perfbot fix` ---------------

PERF = "# toy\n\n" + REQ + SENTENCE


def _pb304(table: str) -> tuple[str, str | None, str, str]:
    """(message, applicability, text after `perfbot fix`, after `--unsafe-fixes`)."""
    src = Source.from_text(PERF + table)
    (f,) = [f for f in check_source(src).findings if f.rule == "PB304"]
    return (
        f.message,
        f.fix.applicability if f.fix else None,
        fix_source(src, unsafe=False)[0],
        fix_source(src, unsafe=True)[0],
    )


def test_a_reorder_that_moves_a_task_or_metric_column_is_unsafe():
    table = (
        "| model name | task | cards | batch size | resolution | jit level | graph compile "
        "| s/step | img/s | map |\n" + "|:--:" * 10 + "|\n"
        "| toy | detection | 8 | 16 | 640x640 | O2 | 3 mins | 0.50 | 256.00 | 37.3 |\n"
    )
    msg, how, safe, unsafe = _pb304(table)
    assert how == "unsafe"
    assert "`task`, `map`, which the guide does not place" in msg
    assert safe == PERF + table  # plain `perfbot fix` moves nothing
    assert "| model name | cards | batch size | resolution | task |" in unsafe


def test_a_reorder_of_placed_columns_around_a_metric_that_stays_is_safe():
    # near miss: the metric column keeps its place, only the guide's own columns are swapped
    table = (
        "| model name | cards | batch size | resolution | acc@top1 | jit level | graph compile "
        "| img/s | s/step |\n" + "|:--:" * 9 + "|\n"
        "| toy | 8 | 16 | 224x224 | 80.1 | O2 | 3 mins | 256.00 | 0.50 |\n"
    )
    msg, how, safe, _ = _pb304(table)
    assert how == "safe" and "does not place" not in msg
    assert "| acc@top1 | jit level | graph compile | s/step | img/s |" in safe


# --- img/s per sampling step in an inference table: a warning, not an error ----------------------


def test_img_s_per_sampling_step_is_a_warning_with_both_numbers():
    head = (
        "| model name | cards | batch size | resolution | scheduler | steps | jit level "
        "| graph compile | s/step | img/s |\n" + "|:--:" * 10 + "|\n"
    )
    src = Source.from_text(
        PERF + head + "| toy | 1 | 4 | 512x512 | ddim | 50 | O1 | 5 mins | 0.20 | 20.00 |\n"
        "| toy | 1 | 4 | 512x512 | ddim | 50 | O1 | 5 mins | 0.20 | 40.00 |\n"
    )
    per_step, other = [f for f in check_source(src).findings if f.rule == "PB401"]
    assert per_step.severity == "warning" and per_step.fix is None
    assert "4 / 0.20 = 20.00" in per_step.message and "(50 × 0.20) = 0.40" in per_step.message
    assert other.severity == "error"  # 100 ×: not the steps


def test_padding_that_the_row_contradicts_is_not_safe():
    """img/s `399.3` agrees with 8 × 10 / 200.37 ms = 399.26; `399.30` would not (a precision the
    other cells contradict): the fix is the recomputed value, unsafe. Near miss: `399.26`."""
    head = (
        "| model name | cards | batch size | resolution | jit level | graph compile | ms/step "
        "| img/s |\n" + "|:--:" * 8 + "|\n"
    )
    src = Source.from_text(
        PERF + head + "| toy | 8 | 10 | 256x256 | O2 | 3 mins | 200.37 | 399.3 |\n"
        "| toy | 8 | 10 | 256x256 | O2 | 3 mins | 200.37 | 399.26 |\n"
    )
    (f,) = [f for f in check_source(src).findings if f.rule == "PB410"]
    assert f.fix is not None and f.fix.applicability == "unsafe"
    assert "perfbot suggests `399.26`" in f.message and "`399.30` would not agree" in f.message
    safe, _ = fix_source(src, unsafe=False)
    assert "| 399.3 |" in safe
    assert not [x for x in check_source(src).findings if x.rule == "PB401"]


def test_the_expected_order_keeps_headers_in_the_readme_s_language():
    table = (
        "| **模型名称** | **卡数** | **单卡批量大小** | **分辨率** | jit level | graph compile "
        "| img/s | s/step |\n" + "|:--:" * 8 + "|\n"
        "| toy | 8 | 16 | 224x224 | O2 | 3 mins | 256.00 | 0.50 |\n"
    )
    msg, how, _, _ = _pb304(table)
    assert "expected `| **模型名称** | **卡数** | **单卡批量大小** | **分辨率** | jit level" in msg
    assert how == "safe"  # only the guide's own columns move
