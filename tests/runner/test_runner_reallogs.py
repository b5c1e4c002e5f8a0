"""Log reading on text shaped like the real MindSpore 2.7.1 runs of the December 2026 audit
(`shared/audits/2026-12-realbench.md`): TimeMonitor under Model.fit, epoch boundaries that are
not a multiple of the log interval, interleaved ranks, per-epoch regexes, PyNative banners, and
logs too large to hold in memory. The fixtures are written here, line by line, in the shapes the
audit quotes (numbers invented)."""

import tracemalloc
from collections.abc import Iterator

import pytest

from perfbot.runner.logs import (
    MAX_LINE,
    detect_format,
    parse_log,
    read_log,
)
from perfbot.runner.measure import measure

# ---- TimeMonitor under Model.train and Model.fit ------------------------------------------


def tm_train(epochs: int = 5, steps: int = 30) -> str:
    out = []
    for e in range(1, epochs + 1):
        per = 520.0 if e == 1 else 19.6 + 0.1 * e
        out.append(f"epoch: {e} step: {steps}, loss is 2.3377106189727783")
        out.append(f"Train epoch time: {per * steps:.3f} ms, per step time: {per:.3f} ms")
    return "\n".join(out) + "\n"


def tm_fit(epochs: int = 5, steps: int = 30, every: int = 1) -> str:
    """Model.fit with a validation set: the evaluation runs (and prints) before the training
    epoch-end callback, and its epoch_begin resets TimeMonitor's timer, so the Train line that
    follows it times the evaluation (about 7 ms per *training* step here, 10x too fast)."""
    out = []
    for e in range(1, epochs + 1):
        out.append(f"epoch: {e} step: {steps}, loss is 2.2989187240600586")
        if e % every == 0:
            out.append("Eval epoch time: 213.074 ms, per step time: 42.615 ms")
            out.append(f"Train epoch time: {7.119 * steps:.3f} ms, per step time: 7.119 ms")
            out.append(f"Eval result: epoch {e}, metrics: {{'acc': 0.1125}}")
        else:  # TimeMonitor(data_time=True) adds the data wait
            per = 520.0 if e == 1 else 20.6
            out.append(
                f"Train epoch time: {per * steps:.3f} ms, per step time: {per:.3f} ms "
                "(data time: 0.743 ms)"
            )
    return "\n".join(out) + "\n"


def test_eval_epoch_lines_are_never_training_samples():
    fmt, samples = parse_log(tm_fit())
    assert fmt == "timemonitor"
    assert all(s.seconds != pytest.approx(0.042615) for s in samples)
    assert samples == []  # every Train line followed an evaluation


def test_timemonitor_under_fit_with_every_epoch_evaluated_is_refused_with_a_way_out():
    read = read_log(tm_fit())
    assert read.samples == []
    assert read.refusal is not None
    assert "Model.fit" in read.refusal and "Model.train" in read.refusal


def test_timemonitor_under_fit_keeps_the_epochs_without_evaluation():
    read = read_log(tm_fit(epochs=6, every=2))  # eval after epochs 2, 4, 6
    assert read.refusal is None
    assert [(s.step, s.span) for s in read.samples] == [(30, 30), (90, 30), (150, 30)]
    assert read.samples[1].seconds == pytest.approx(0.0206)
    assert any("dropped 3 of 6" in n for n in read.notes)


# ---- windows across an epoch boundary -----------------------------------------------------


def yolo(li: int, per_epoch: int, epochs: int) -> str:
    out = []
    for e in range(1, epochs + 1):
        for s in range(1, per_epoch + 1):
            out.append(
                f"2026-12-01 06:00:02,118 [INFO] Epoch {e}/{epochs}, Step {s}/{per_epoch}, "
                "imgsize (128, 128), loss: 13.5599, lbox: 6.6193, cur_lr: 0.09910000115633011"
            )
            if s % li == 0:
                ms = 29783.17 if (e, s) == (1, li) else 2900.0 + e
                out.append(
                    f"2026-12-01 06:03:40,751 [INFO] Epoch {e}/{epochs}, Step {s}/{per_epoch}, "
                    f"step time: {ms:.2f} ms"
                )
        out.append(f"2026-12-01 06:04:37,777 [INFO] Epoch {e}/{epochs}, epoch time: 3.43 min.")
    return "\n".join(out) + "\n"


def test_mindyolo_window_after_an_epoch_boundary_covers_only_that_epoch():
    """li=5, 16 steps per epoch: epoch 2's first window is steps 17-21 (5 steps), not 16-21."""
    samples = [s for s in parse_log(yolo(5, 16, 2))[1] if s.kind == "step"]
    assert [(s.step, s.span) for s in samples] == [
        (5, 5),
        (10, 5),
        (15, 5),
        (21, 5),
        (26, 5),
        (31, 5),
    ]


def test_mindocr_window_after_an_epoch_boundary_covers_only_that_epoch():
    lines = []
    for e in (1, 2):
        for s in (4, 8, 12):
            lines.append(
                f"[2026-12-01 06:21:40] mindocr.utils.callbacks INFO - epoch: [{e}/2] "
                f"step: [{s}/14], loss: 68.887909, lr: 0.000094, per step time: "
                f"{4102.158 if (e, s) == (1, 4) else 1781.4:.3f} ms, fps per card: 1.95 img/s"
            )
        lines.append(
            f"[2026-12-01 06:22:08] mindocr.utils.callbacks INFO - epoch: [{e}/2], loss: "
            "51.809906, epoch time: 44.093 s, per step time: 3149.500 ms, fps per card: 2.90 img/s"
        )
    samples = [s for s in parse_log("\n".join(lines) + "\n")[1] if s.kind == "step"]
    assert [(s.step, s.span) for s in samples] == [
        (4, 4),
        (8, 4),
        (12, 4),
        (18, 4),
        (22, 4),
        (26, 4),
    ]


def test_weighted_median_weighs_each_window_by_its_real_steps():
    """mindyolo li=5, 16 steps per epoch: epoch 1's steady windows (steps 6-15) run at 0.1 s/step,
    epoch 2's (steps 17-26) at 0.3. Ten steps each: the median lies between them. Counting the
    boundary window as 6 steps (steps 16-21) tipped it to 0.3."""
    lines = []
    for e, per, logged in ((1, 0.1, (5, 10, 15)), (2, 0.3, (5, 10))):
        for s in logged:
            ms = 9000.0 if (e, s) == (1, 5) else per * 1000
            lines.append(f"[INFO] Epoch {e}/2, Step {s}/16, step time: {ms:.2f} ms")
    samples = parse_log("\n".join(lines) + "\n", "mindyolo")[1]
    assert [(s.step, s.span) for s in samples] == [(5, 5), (10, 5), (15, 5), (21, 5), (26, 5)]
    m = measure(samples, warmup=5)
    assert m.steps_measured == 20
    assert m.s_per_step == pytest.approx(0.2)


# ---- distributed runs ---------------------------------------------------------------------

MSRUN_CONSOLE = (
    "Start worker process with rank id:0, log file:msrun_log/worker_0.log. Environment variable "
    "[RANK_ID=0] is exported.\n"
    "Start worker process with rank id:1, log file:msrun_log/worker_1.log. Environment variable "
    "[RANK_ID=1] is exported.\n"
) + "".join(
    f"epoch: {e} step: 20, loss is 2.313304901123047\n"
    f"epoch: {e} step: 20, loss is 2.2989187240600586\n"
    f"Train epoch time: {t0 * 20:.3f} ms, per step time: {t0:.3f} ms\n"
    f"Train epoch time: {t1 * 20:.3f} ms, per step time: {t1:.3f} ms\n"
    for e, t0, t1 in ((1, 349.413, 209.003), (2, 280.1, 231.2), (3, 279.5, 230.8))
)


def test_interleaved_ranks_in_one_stream_are_refused():
    read = read_log(MSRUN_CONSOLE)
    assert read.ranks == 2
    assert read.refusal is not None
    assert "2 ranks" in read.refusal and "worker_*.log" in read.refusal


def test_interleaved_step_lines_without_any_banner_are_refused():
    lines = []
    for g in range(1, 41):
        for rank_ms in (150.0, 160.0):
            lines.append(
                f"[2026-12-01 06:10:02] INFO: epoch 1, step {g}, lr 0.0001000, loss 2.330887, "
                f"loss scale 1024, global_step {g}, step_time(ms) {rank_ms}"
            )
    read = read_log("\n".join(lines) + "\n")
    assert read.fmt == "mindone"
    assert read.refusal is not None and "interleaves" in read.refusal


def test_one_appended_rerun_is_not_mistaken_for_ranks():
    run = "".join(
        f"epoch 1, step {g}, loss 0.5, loss scale 1, global_step {g}, step_time(ms) 100.0\n"
        for g in range(1, 31)
    )
    read = read_log(run + run)
    assert read.refusal is None
    assert read.restarts == 1


# ---- a regex that gives epoch times --------------------------------------------------------


def test_regex_on_per_epoch_lines_counts_steps_per_epoch():
    regex = r"Train epoch time: [\d.]+ ms, per step time: (?P<ms>[\d.]+) ms"
    samples = parse_log(tm_train(), "regex", regex=regex, regex_times="epoch", steps_per_epoch=30)[
        1
    ]
    assert [(s.step, s.span, s.kind) for s in samples] == [
        (30 * e, 30, "epoch") for e in range(1, 6)
    ]
    m = measure(samples)
    assert m.graph_compile_s == pytest.approx((0.52 - 0.0198) * 30, rel=1e-3)


# ---- PyNative banner ----------------------------------------------------------------------


def test_mode_banner_is_read():
    text = "MindSpore mode[GRAPH(0)/PYNATIVE(1)]: 1\n" + "".join(
        f"[2026-12-01 05:54:06] mindcv.utils.callbacks INFO - Epoch: [1/3], batch: [{b}/16], "
        f"loss: 1.003487, lr: 0.000000, time: {3.04 if b == 1 else 0.774:.6f}s\n"
        for b in range(1, 17)
    )
    read = read_log(text)
    assert read.fmt == "mindcv"
    assert read.pynative is True
    assert read_log(text.replace("]: 1", "]: 0")).pynative is False


# ---- streamed, bounded memory ---------------------------------------------------------------

STEP = "epoch 1, step {g}, loss 0.5, loss scale 1, global_step {g}, step_time(ms) {ms}\n"
NOISE = "[WARNING] DISTRIBUTED(1234,ffff,python):2026-12-01-06:00:00.000.000 [hccl] waiting\n"


def test_a_large_log_file_is_streamed_in_bounded_memory(tmp_path):
    log = tmp_path / "big.log"
    with log.open("w") as fh:
        for g in range(1, 401):
            fh.write(STEP.format(g=g, ms=3000.0 if g == 1 else 100.0))
            fh.write(NOISE * 1000)  # ~32 MB in all
    size = log.stat().st_size
    assert size > 30_000_000
    tracemalloc.start()
    fmt, samples = parse_log(log)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert fmt == "mindone" and len(samples) == 400
    assert peak < size / 4  # a few blocks, never the whole text


def test_an_endless_line_is_skipped_not_held(tmp_path):
    log = tmp_path / "long.log"
    with log.open("w") as fh:
        fh.write(STEP.format(g=1, ms=3000.0))
        fh.write("x" * (8 * MAX_LINE * 16) + STEP.format(g=999, ms=1.0))  # one 8 MiB line
        for g in range(2, 12):
            fh.write(STEP.format(g=g, ms=100.0))
    samples = parse_log(log, "mindone")[1]
    assert [s.step for s in samples] == list(range(1, 12))


def test_detection_looks_past_a_long_prefix_of_noise_in_bounded_memory(tmp_path):
    log = tmp_path / "late.log"
    with log.open("w") as fh:
        fh.write(NOISE * 400_000)  # ~33 MB before the first step line
        fh.write(tm_train())
    size = log.stat().st_size
    tracemalloc.start()
    fmt = detect_format(log)
    samples = parse_log(log)[1]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert fmt == "timemonitor"
    assert len(samples) == 5
    assert peak < size / 2


def test_a_log_path_that_is_not_a_regular_file_is_an_error_not_a_hang(tmp_path):
    import os

    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_log(fifo, "mindone")


# ---- the block-at-once fast path gives exactly what the line-by-line path gives -------------


def _ocr(li: int, per_epoch: int, epochs: int) -> str:
    out = []
    for e in range(1, epochs + 1):
        for s in range(li, per_epoch + 1, li):
            out.append(
                f"epoch: [{e}/{epochs}] step: [{s}/{per_epoch}], loss: 0.5, lr: 0.001, "
                f"per step time: {400 + (e * s) % 7:.3f} ms, fps per card: 20.0 img/s"
            )
        out.append(
            f"epoch: [{e}/{epochs}], loss: 0.5, epoch time: 6.000 s, per step time: "
            f"{6000 / per_epoch:.3f} ms, fps per card: 20.0 img/s"
        )
    return "\n".join(out) + "\n"


def _cv(li: int, per_epoch: int, epochs: int) -> str:
    out = []
    for e in range(1, epochs + 1):
        last = 0
        for b in range(1, per_epoch + 1):
            if b == 1 or b % li == 0 or b == per_epoch:
                out.append(
                    f"[2026-12-01 05:54:06] mindcv.utils.callbacks INFO - Epoch: [{e}/{epochs}], "
                    f"batch: [{b}/{per_epoch}], loss: 1.0, lr: 0.1, time: {0.19 * (b - last):.6f}s"
                )
                last = b
    return "\n".join(out) + "\n"


def _one(n: int) -> str:
    return "".join(
        f"epoch 1, step {g}, lr 0.0001000, loss 0.5, loss scale 1024, global_step {g}, "
        f"step_time(ms) {150 + g % 9:.1f}\n"
        for g in range(1, n + 1)
    )


def _audio(per_epoch: int, epochs: int) -> str:
    return "".join(
        f"[Train] Epoch: [{e}/{epochs}], Step: [{s}/{per_epoch}], Step Time: 0.{300 + s % 9} sec, "
        "lr: 0.001000, Total Loss: 1.0, Overflow: False, Scale: 1024, Rank: 0.\n"
        for e in range(1, epochs + 1)
        for s in range(1, per_epoch + 1)
    )


def _one_result(n: int, every: int = 1) -> str:
    return "step\tloss\tlr\ttrain_time(s)\n" + "".join(
        f"{g}\t0.{g % 97:07d}\t0.0001000\t{0.16 * every + (g % 5) / 100:.7f}\n"
        for g in range(every, n + 1, every)
    )


def _recorder(n: int) -> str:
    rows = [f"{'step':<7}\t{'loss':<10}\ttrain_time(s)\tpsnr"]
    for g in range(1, n + 1):
        rows.append(f"{g:<7}\t{0.5:<10.6f}\t{0.2 + (g % 7) / 100:<13.3f}")
        if g % 500 == 0:  # an eval row now and then
            rows.append(f"{'-':<7}\t{'-':<10}\t{'-':<13}\t28.123456")
    return "\n".join(rows) + "\n"


FAST_CASES = {
    "mindone_result": lambda: _one_result(3000, every=2) + _one_result(50),
    "perf_recorder": lambda: _recorder(3000),
    "mindocr_result": lambda: (
        "Epoch\tloss\ttrain_time\n"
        + "".join(f"{e}\t0.5\t{36.0 + e % 3:.4f}\n" for e in range(1, 2000))
    ),
    "mindyolo": lambda: yolo(5, 16, 60) + yolo(5, 16, 3),  # a second run appended: a restart
    "mindocr": lambda: _ocr(4, 14, 200) + _ocr(4, 14, 2),
    "mindcv": lambda: _cv(10, 37, 100),
    "mindone": lambda: _one(3000) + _one(40),
    "timemonitor": lambda: tm_train(epochs=2000) + tm_fit(epochs=4, every=2) + tm_train(50),
    "mindaudio": lambda: _audio(23, 100),
}


@pytest.mark.parametrize("fmt", sorted(FAST_CASES))
def test_block_fast_path_equals_the_line_by_line_path(monkeypatch, fmt):
    from perfbot.runner import logs
    from perfbot.runner.logs import fastpath, mindcv, mindone, reader, timemonitor, yolo_ocr

    text = FAST_CASES[fmt]()
    monkeypatch.setattr(reader, "BLOCK", 4096)  # many blocks
    hints = {"steps_per_epoch": 16} if fmt == "mindocr_result" else {}
    fast = logs.read_log(text, fmt, **hints)
    for module in (fastpath, mindcv, mindone, timemonitor, yolo_ocr):  # wherever they are used
        for name in ("_spans", "_floats"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, lambda *a, **k: None)
    slow = logs.read_log(text, fmt, **hints)
    assert len(fast.samples) > 100
    assert fast.samples == slow.samples
    assert (fast.restarts, fast.notes) == (slow.restarts, slow.notes)


# ---- speed without a clock: what a parse does not do ---------------------------------------


def _audio_pieces(steps: int, noise: int) -> Iterator[str]:
    """A mindaudio log as a stream of pieces (never one string): `noise` lines between steps."""
    for g in range(1, steps + 1):
        e, s = (g - 1) // 1000 + 1, (g - 1) % 1000 + 1
        yield (
            f"[Train] Epoch: [{e}/99], Step: [{s}/1000], Step Time: 0.{300 + g % 7} sec, "
            "lr: 0.001000, Total Loss: 1.0, Overflow: False, Scale: 1024, Rank: 0.\n"
        )
        yield NOISE * noise


def test_a_log_streamed_from_a_generator_peaks_far_below_its_size():
    size = sum(map(len, _audio_pieces(4000, 100)))
    assert size > 30_000_000
    tracemalloc.start()
    read = read_log(_audio_pieces(4000, 100), "mindaudio")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(read.samples) == 4000
    assert peak < size / 20  # a block or two and the samples, never the text (1.7 %)


def test_a_parse_does_not_run_the_cyclic_collector_over_its_samples():
    """Up to a million sample tuples: the collector would scan them again and again (a third of
    the parse); it is paused while parsing (one collection may follow it), and left as it was
    found."""
    import gc

    runs: list[str] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            runs.append(phase)

    text = "".join(_audio_pieces(60_000, 0))
    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        samples = read_log(text, "mindaudio").samples
        during = len(runs)
        assert gc.isenabled()
        gc.disable()
        try:
            read_log(text, "mindaudio")
            assert not gc.isenabled()  # a caller's choice is kept
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(count)
    assert len(samples) == 60_000
    assert during <= 1  # at most the one after the parse (main's parser: 154)
