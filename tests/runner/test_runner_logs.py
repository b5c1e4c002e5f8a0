"""Unit tests of the per-format log parsers and format detection (perfbot.runner.logs)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfbot.runner.logs import (
    PARSERS,
    LogFormatError,
    Samples,
    StepSample,
    _plain_run,
    _row_keys,
    clean_lines,
    detect_format,
    parse_log,
)


def parse(text: str, fmt: str = "auto", **kw) -> list[StepSample]:
    used, samples = parse_log(text, fmt, **kw)
    if fmt == "auto":
        assert used is not None
    return samples


def approx(samples, expected):
    """Compare (step, seconds, span[, kind]) tuples, seconds approximately."""
    assert len(samples) == len(expected), samples
    for s, e in zip(samples, expected, strict=True):
        assert s.step == e[0]
        assert s.seconds == pytest.approx(e[1], rel=1e-9)
        assert s.span == e[2]
        if len(e) > 3:
            assert s.kind == e[3]


# ---- cleaning ---------------------------------------------------------------------------


def test_clean_lines_strips_ansi_crlf_and_partial_last_line():
    text = "\x1b[32mgreen\x1b[0m line\r\nsecond\rthird\nunfinished 12"
    assert clean_lines(text) == ["green line", "second", "third"]


def test_partial_last_line_is_not_read_as_a_short_number():
    text = (
        "epoch 1, step 1, loss 0.5, loss scale 1, global_step 1, step_time(ms) 3000.0\n"
        "epoch 1, step 2, loss 0.5, loss scale 1, global_step 2, step_time(ms) 100.0\n"
        "epoch 1, step 3, loss 0.5, loss scale 1, global_step 3, step_time(ms) 1"
    )
    approx(parse(text, "mindone"), [(1, 3.0, 1), (2, 0.1, 1)])


# ---- mindone ----------------------------------------------------------------------------


def test_mindone_step_time_lines_with_and_without_lr():
    text = (
        "epoch 1, step 1, lr 0.0001000, loss 0.500000, loss scale 65536, global_step 1, "
        "step_time(ms) 5000.0\n"
        "some warning in between\n"
        "epoch 1, step 2, loss 0.400000, loss scale 65536, global_step 2, step_time(ms) 250.5\n"
    )
    approx(parse(text), [(1, 5.0, 1), (2, 0.2505, 1)])


def test_mindone_log_interval_windows_span_the_steps_since_last_line():
    lines = [
        f"epoch 1, step {g}, lr 0.1, loss 0.5, loss scale 1, global_step {g}, step_time(ms) {ms}"
        for g, ms in ((10, 400.0), (20, 100.0), (30, 110.0))
    ]
    approx(parse("\n".join(lines) + "\n"), [(10, 0.4, 10), (20, 0.1, 10), (30, 0.11, 10)])


def test_mindone_without_global_step_counts_epochs():
    text = "".join(
        f"epoch {e}, step {s}, loss 0.5, loss scale 1, step_time(ms) 100.0\n"
        for e in (1, 2)
        for s in (5, 10)
    )
    assert [(s.step, s.span) for s in parse(text, "mindone")] == [(5, 5), (10, 5), (15, 5), (20, 5)]


def test_mindone_result_divides_time_since_last_row_by_steps():
    text = "step\tloss\tlr\ttrain_time(s)\n1\t0.5\t0.0000\t30.0000\n5\t0.4\t0.0000\t0.8000\n"
    approx(parse(text), [(1, 30.0, 1), (5, 0.2, 4)])


def test_mindone_result_restarts_on_a_second_header():
    text = (
        "step\tloss\tlr\ttrain_time(s)\n1\t0.5\t0.0\t9.0\n2\t0.5\t0.0\t1.0\n"
        "step\tloss\tlr\ttrain_time(s)\n1\t0.5\t0.0\t8.0\n"
    )
    approx(parse(text), [(1, 9.0, 1), (2, 1.0, 1), (1, 8.0, 1)])


def test_perf_recorder_seconds_per_row_and_eval_rows_skipped():
    text = (
        f"{'step':<7}\t{'loss':<10}\ttrain_time(s)\tpsnr\n"
        f"{1:<7}\t{0.5:<10.6f}\t{12.5:<13.3f}\n"
        f"{2:<7}\t{0.5:<10.6f}\t{0.25:<13.3f}\n"
        f"{'-':<7}\t{'-':<10}\t{'-':<8}\t28.5\n"
        f"{3:<7}\t{0.5:<10.6f}\t{150.0:<13.3f}\n"  # checkpoint row: kept here, dropped by measure
        "garbage\tline\n"
    )
    assert detect_format(text) == "perf_recorder"
    approx(parse(text), [(1, 12.5, 1), (2, 0.25, 1), (3, 150.0, 1)])


def test_opensora_pku_variant_without_lr_is_per_step():
    text = "step\tloss\ttrain_time(s)\tshape\n1\t0.5\t20.0\t(1,2)\n2\t0.5\t0.5\t(1,2)\n"
    assert detect_format(text) == "perf_recorder"


# ---- mindcv -----------------------------------------------------------------------------

CV = (
    "[2024-06-01 10:00:00] mindcv.train INFO - Epoch: [{e}/2], batch: [{b}/200], "
    "loss: 2.302585, lr: 0.100000, time: {t}s\n"
)


def test_mindcv_accumulated_time_is_divided_by_batches_since_last_line():
    text = (
        CV.format(e=1, b=1, t="80.000000")
        + CV.format(e=1, b=100, t="9.900000")  # 99 steps
        + CV.format(e=1, b=200, t="10.000000")
        + "Total time since last epoch: 101.000000(train: 100.000000, val: 1.000000)s, ETA: 1s\n"
        + CV.format(e=2, b=1, t="0.100000")
        + CV.format(e=2, b=100, t="9.900000")
    )
    assert detect_format(text) == "mindcv"
    approx(
        parse(text),
        [(1, 80.0, 1), (100, 0.1, 99), (200, 0.1, 100), (201, 0.1, 1), (300, 0.1, 99)],
    )


def test_mindcv_sink_mode_lines_are_epoch_samples():
    text = "".join(
        f"Epoch: [{e}/3], batch: [50/50], loss: 2.3, lr: 0.1, time: {t}s\n"
        for e, t in ((1, "100.0"), (2, "5.0"), (3, "5.5"))
    )
    approx(
        parse(text, "mindcv"), [(50, 2.0, 50, "epoch"), (100, 0.1, 50, "epoch"), (150, 0.11, 50)]
    )


def test_mindcv_result_needs_steps_per_epoch():
    text = "".join(
        f"{v:<20}" for v in ("Epoch", "TrainLoss", "Top1-Acc", "TrainTime", "EvalTime", "TotalTime")
    )
    text += "\n" + "".join(f"{v:<20}" for v in ("1", "2.3", "10.0000%", "60.00", "5.00", "65.00"))
    text += "\n" + "".join(f"{v:<20}" for v in ("2", "2.2", "11.0000%", "10.00", "5.00", "15.00"))
    text += "\n"
    assert detect_format(text) == "mindcv_result"
    with pytest.raises(LogFormatError, match="steps_per_epoch"):
        parse_log(text)
    approx(parse(text, steps_per_epoch=100), [(100, 0.6, 100, "epoch"), (200, 0.1, 100, "epoch")])


def test_mindocr_result_per_epoch():
    text = (
        "Epoch\tloss\thmean\ttrain_time\teval_time\n1\t0.5\t0.8\t40.0\t2.0\n2\t0.5\tNA\t10.0\tNA\n"
    )
    assert detect_format(text) == "mindocr_result"
    approx(parse(text, steps_per_epoch=50), [(50, 0.8, 50), (100, 0.2, 50)])


# ---- mindyolo / mindocr / TimeMonitor / mindaudio -----------------------------------------


def test_mindyolo_windows_and_epoch_lines():
    text = (
        "2024-06-01 10:00:00,000 [INFO] Epoch 1/2, Step 10/20, imgsize (640, 640), loss: 5.0\n"
        "2024-06-01 10:00:00,000 [INFO] Epoch 1/2, Step 10/20, step time: 1500.00 ms\n"
        "2024-06-01 10:00:00,000 [INFO] Epoch 1/2, Step 20/20, step time: 100.00 ms\n"
        "2024-06-01 10:00:00,000 [INFO] Epoch 1/2, epoch time: 0.30 min.\n"
        "2024-06-01 10:00:00,000 [INFO] Epoch 2/2, Step 10/20, step time: 110.00 ms\n"
    )
    assert detect_format(text) == "mindyolo"
    approx(
        parse(text),
        [(10, 1.5, 10), (20, 0.1, 10), (20, 0.9, 20, "epoch"), (30, 0.11, 10, "step")],
    )


def test_mindyolo_sink_mode_epoch_minutes():
    text = (
        "[WARNING] In the data sink mode, log output will only occur once each epoch is "
        "completed.\n"
        "[INFO] Epoch 1/3, Step 100/100, loss: 5.0, cur_lr: 0.01\n"
        "[INFO] Epoch 1/3, epoch time: 2.00 min.\n"
        "[INFO] Epoch 2/3, Step 100/100, loss: 4.0, cur_lr: 0.01\n"
        "[INFO] Epoch 2/3, epoch time: 0.50 min.\n"
    )
    approx(parse(text), [(100, 1.2, 100, "epoch"), (200, 0.3, 100, "epoch")])


def test_mindocr_step_and_epoch_lines():
    text = (
        "epoch: [1/2] step: [10/20], loss: 0.5, lr_0: 0.001, per step time: 900.000 ms, "
        "fps per card: 8.9 img/s\n"
        "epoch: [1/2] step: [20/20], loss: 0.5, lr: 0.001, per step time: 100.000 ms, "
        "fps per card: 80 img/s\n"
        "epoch: [1/2], loss: 0.5, epoch time: 10.000 s, per step time: 500.000 ms, "
        "fps per card: 16 img/s\n"
    )
    assert detect_format(text) == "mindocr"
    approx(parse(text), [(10, 0.9, 10), (20, 0.1, 10), (20, 0.5, 20, "epoch")])


def test_timemonitor_epoch_lines_from_the_mindcv_tutorial():
    text = (
        "epoch: 1 step: 5, loss is 0.5195528864860535\n"
        "Train epoch time: 17270.144 ms, per step time: 1151.343 ms\n"
        "epoch: 2 step: 5, loss is 0.4\n"
        "Train epoch time: 1372.549 ms, per step time: 91.503 ms\n"
        "epoch time: 1380.0 ms, per step time: 92.0 ms\n"  # older TimeMonitor spelling
    )
    assert detect_format(text) == "timemonitor"
    samples = parse(text)
    assert [(s.step, s.span, s.kind) for s in samples] == [
        (15, 15, "epoch"),
        (30, 15, "epoch"),
        (45, 15, "epoch"),
    ]
    assert samples[0].total_seconds == pytest.approx(17.270144)


def test_mindaudio_step_time_seconds():
    text = "".join(
        f"[Train] Epoch: [1/1], Step: [{s}/100], Step Time: {t} sec, lr: 0.001000, "
        "Total Loss: 1.0, Overflow: False, Scale: 1024, Rank: 0.\n"
        for s, t in ((1, "9.0000"), (2, "0.1000"), (12, "0.1200"))
    )
    assert detect_format(text) == "mindaudio"
    approx(parse(text), [(1, 9.0, 1), (2, 0.1, 1), (12, 0.12, 10)])


# ---- regex ------------------------------------------------------------------------------


def test_regex_with_ms_and_step_groups():
    text = "it 1: 900 ms\nit 3: 100 ms\nnoise\nit 4: 110 ms\n"
    approx(
        parse(text, "regex", regex=r"it (?P<step>\d+): (?P<ms>[\d.]+) ms"),
        [(1, 0.9, 1), (3, 0.1, 2), (4, 0.11, 1)],
    )


def test_regex_with_seconds_and_no_step_group():
    approx(
        parse("t=2.0s\nt=0.5s\n", "regex", regex=r"t=(?P<s>[\d.]+)s"), [(1, 2.0, 1), (2, 0.5, 1)]
    )


def test_regex_errors_are_user_errors():
    with pytest.raises(LogFormatError):
        parse_log("x\n", "regex")
    with pytest.raises(LogFormatError):
        parse_log("x\n", "regex", regex="(?P<ms>")
    with pytest.raises(LogFormatError, match="unknown log format"):
        parse_log("x\n", "nope")


# ---- detection & robustness -------------------------------------------------------------


def test_detect_nothing_in_garbage():
    assert detect_format("hello\nworld\n\x00\x01binary\n") is None
    assert parse_log("hello\n") == (None, [])
    assert detect_format("") is None


def test_every_parser_survives_garbage():
    garbage = (
        "\x1b[31m\r\n\t\t\n-\t-\t-\nstep\nEpoch: [x/y]\nepoch time: nan ms, per step time: 0 ms\n"
    )
    for name, parser in PARSERS.items():
        kw = {"regex": r"(?P<ms>\d+)", "steps_per_epoch": 10}
        assert isinstance(parser(clean_lines(garbage), **kw), Samples), name


def test_coloured_crlf_mindyolo_log():
    text = (
        "\x1b[32m2024-06-01 10:00:00\x1b[0m [INFO] Epoch 1/1, Step 5/10, step time: 900.00 ms\r\n"
        "\x1b[32m2024-06-01 10:00:00\x1b[0m [INFO] Epoch 1/1, Step 10/10, step time: 100.00 ms\r\n"
    )
    approx(parse(text), [(5, 0.9, 5), (10, 0.1, 5)])


@pytest.mark.parametrize("bad", ["inf", "-inf", "1e400", "nan"])
def test_result_files_skip_infinite_step_cells(bad: str):
    text = (
        f"{'step':<7}\t{'loss':<10}\ttrain_time(s)\n"
        f"{1:<7}\t{0.5:<10.6f}\t{12.5:<13.3f}\n"
        f"{bad:<7}\t{0.5:<10.6f}\t{0.25:<13.3f}\n"
        f"{3:<7}\t{0.5:<10.6f}\t{0.25:<13.3f}\n"
    )
    approx(parse(text, "perf_recorder"), [(1, 12.5, 1), (3, 0.25, 1)])


@pytest.mark.parametrize("fmt", ["mindone_result", "perf_recorder"])
@pytest.mark.parametrize("cell", [" -2", " -0", "  -7 "])
def test_result_rows_with_a_negative_step_cell_are_skipped_in_any_block(
    monkeypatch, fmt: str, cell: str
):
    """A step cell that starts with '-' once its spaces are stripped marks an eval-like row, which
    is skipped; a block of rows read at once (one split) must skip it too, not read it as step
    -2 (a restart): the result may not depend on where the blocks end."""
    from perfbot.runner import logs

    text = (
        "step\tloss\tlr\ttrain_time(s)\n1\t0.5\t0.0\t0.2\n2\t0.5\t0.0\t0.2\n"
        f"{cell}\t0.5\t0.0\t0.3\n3\t0.5\t0.0\t0.2\n"
    )
    reads = []
    for block in (1, 1 << 20):
        monkeypatch.setattr(logs.reader, "BLOCK", block)
        reads.append(logs.read_log(text, fmt))
    for read in reads:
        assert read.restarts == 0
        approx(read.samples, [(1, 0.2, 1), (2, 0.2, 1), (3, 0.2, 1)])


def test_a_plain_run_of_step_cells_is_read_as_a_range_exactly_as_converted():
    """A block whose step cells are `a, a+1, ...` written plainly is read without converting
    each cell (`_plain_run`); any other block's cells are converted. Either way, the same keys."""
    cell = st.one_of(
        st.integers(0, 10**17).map(str),
        st.sampled_from(["007", "+8", " 9", "9 ", "1e3", "٣", "12.0", "", "-3", "x"]),
    )

    @given(
        st.integers(1, 10**16), st.integers(1, 40), st.lists(st.tuples(st.integers(0, 39), cell))
    )
    def check(a, n, changes):
        cells = [str(k) for k in range(a, a + n)]
        for i, c in changes:
            if i < n:
                cells[i] = c
        joined = "\n".join(cells)
        run = _plain_run(joined, n)
        converted = _row_keys([cells[0], *("\n" + c for c in cells[1:])])
        if run is not None:
            assert list(run) == converted
        elif not changes and a + n <= 10**15:
            raise AssertionError(f"a plain run not seen: {cells[:3]}")

    check()
