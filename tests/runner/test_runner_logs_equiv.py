"""The streamed log parser gives exactly what main's parser gave (issue 11's speed work must not
change a single sample): `logs_reference.py` is a frozen copy of `perfbot.runner.logs` from main
37e1788, and hypothesis writes logs of every format (runs of well-formed step lines, near misses,
noise, Eval lines, banners, second runs, result-file headers, CR/CRLF/LF line ends, ANSI colour
codes, blank lines, a cut last line) that both read, as text, as a file and as a stream of pieces,
with small blocks, a small detection prefix and a small sample cap so that every boundary is
crossed. Everything `read_log` returns must be equal, floats bit for bit."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import logs_reference as old
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from perfbot.runner import logs as new

SETTINGS = settings(
    max_examples=int(os.environ.get("PERFBOT_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FORMATS = [f for f in new.PARSERS if f != "regex"]
REGEXES = [
    (r"took (?P<ms>[0-9.]+) ?ms", "step"),
    (r"step (?P<step>\d+)\D+(?P<s>[0-9.]+)s", "step"),
    (r"per step time: (?P<ms>[0-9.]+) ms", "epoch"),
]

# ---- lines ----------------------------------------------------------------------------------

small = st.integers(0, 12)
num = st.one_of(
    st.sampled_from(["0", "0.0", "1", "1.5", "150.3", "7", ".5", "5.", "1e400", "2e-3", "1.2.3",
                     "3E+2", "1e", "0.000", "12345678901234567890", "nan", "inf", "-1", "NA"]),
    st.floats(0, 1e6, allow_nan=False).map(lambda v: f"{v:.3f}"),
    st.integers(0, 10**6).map(str),
)  # fmt: skip


def mindone(e, s, g, t, lr):
    lr = "lr 0.0001000, " if lr else ""
    gs = f"global_step {g}, " if g is not None else ""
    return f"epoch {e}, step {s}, {lr}loss 0.5, loss scale 1024, {gs}step_time(ms) {t}"


def mindcv(e, n, b, t):
    return (
        f"[2026-12-01 05:54:06] mindcv.utils.callbacks INFO - Epoch: [{e}/9], batch: [{b}/{n}], "
        f"loss: 1.0, lr: 0.1, time: {t}s"
    )


def yolo_step(e, n, s, t):
    return f"2026-12-01 06:00:02,128 [INFO] Epoch {e}/9, Step {s}/{n}, step time: {t} ms"


def yolo_loss(e, n, s):
    return f"Epoch {e}/9, Step {s}/{n}, imgsize (640, 640), loss: 13.5, cur_lr: 0.099"


def ocr_step(e, n, s, t):
    return (
        f"mindocr INFO - epoch: [{e}/9] step: [{s}/{n}], loss: 68.8, lr: 0.0001, "
        f"per step time: {t} ms, fps per card: 20.00 img/s"
    )


def ocr_epoch(e, x, t):
    return (
        f"epoch: [{e}/9], loss: 0.5, epoch time: {x} s, per step time: {t} ms, "
        "fps per card: 20.0 img/s"
    )


def audio(e, n, s, t):
    return (
        f"[Train] Epoch: [{e}/9], Step: [{s}/{n}], Step Time: {t} sec, lr: 0.001000, "
        "Total Loss: 1.0, Overflow: False, Scale: 1024, Rank: 0."
    )


def tm(which, x, y, data):
    return f"{which}epoch time: {x} ms, per step time: {y} ms" + (
        " (data time: 0.7 ms)" if data else ""
    )


single = st.one_of(
    st.builds(mindone, small, small, st.one_of(st.none(), small), num, st.booleans()),
    st.builds(mindcv, small, small, small, num),
    st.builds(yolo_step, small, small, small, num),
    st.builds(yolo_loss, small, small, small),
    st.builds(lambda e, m: f"Epoch {e}/9, epoch time: {m} min.", small, num),
    st.builds(ocr_step, small, small, small, num),
    st.builds(ocr_epoch, small, num, num),
    st.builds(audio, small, small, small, num),
    # (no "xEval ": since issue 23 a TimeMonitor line must start its line, unlike the frozen copy)
    st.builds(tm, st.sampled_from(["Train ", "Eval ", ""]), num, num, st.booleans()),
    st.builds(lambda e: f"epoch: {e} step: 30, loss is 2.33", small),
    st.builds(lambda r: f"Start worker process with rank id: {r}, log file: w.log", small),
    st.builds(lambda m: f"MindSpore mode[GRAPH(0)/PYNATIVE(1)]: {m}", st.sampled_from("01")),
    st.builds(lambda s, t: f"took {t}ms at step {s} total {t}s", small, num),
)


good = st.sampled_from(["150.3", "0.5", "7", "1412.25", "35.125", "2e-3", "0"])


@st.composite
def run(draw) -> list[str]:
    """Consecutive well-formed step lines of one format (the block-at-once paths), now and then
    with one odd number or a step that goes back."""
    fmt = draw(st.sampled_from(["mindone", "mindcv", "mindyolo", "mindocr", "audio", "tm"]))
    n = draw(st.integers(1, 9))  # steps per epoch
    every = draw(st.integers(1, 3))
    first = draw(st.integers(1, 3))
    count = draw(st.integers(1, 150))
    base = float(draw(good))
    odd = draw(st.one_of(st.none(), st.tuples(st.integers(0, 150), num)))
    out = []
    for k in range(count):
        g = first + k * every
        e, s = (g - 1) // n + 1, (g - 1) % n + 1
        t = odd[1] if odd and odd[0] == k else f"{base + (k * 7 % 11) / 8:.3f}"
        if odd and odd[0] == k + 1:
            e = max(1, e - 1)
        if fmt == "mindone":
            out.append(mindone(e, s, g, t, k % 2))
        elif fmt == "mindcv":
            out.append(mindcv(e, n, s, t))
        elif fmt == "mindyolo":
            out.append(yolo_loss(e, n, s))
            out.append(yolo_step(e, n, s, t))
            if s == n and draw(st.booleans()):
                out.append(f"Epoch {e}/9, epoch time: {t} min.")
        elif fmt == "mindocr":
            out.append(ocr_step(e, n, s, t))
            if s == n and draw(st.booleans()):
                out.append(ocr_epoch(e, t, t))
        elif fmt == "audio":
            out.append(audio(e, n, s, t))
        else:
            out.append(tm("Train " if k % 5 else draw(st.sampled_from(["", "Eval "])), t, "1.5", 0))
    return out


@st.composite
def result_file(draw) -> list[str]:
    header = draw(
        st.sampled_from([
            "step\tloss\tlr\ttrain_time(s)",
            "step   \tloss      \ttrain_time(s)\tpsnr",
            "step loss train_time(s)",
            "Epoch\tloss\ttrain_time\teval_time",
            "Epoch               TrainLoss           TrainTime           EvalTime",
            "epoch\tloss\ttrain_time(s)",
        ])
    )  # fmt: skip
    cols = len(header.split())
    sep = "\t" if "\t" in header else draw(st.sampled_from([" ", "  ", "\t"]))
    first = draw(st.integers(0, 3))
    rows = [header]
    for k in range(draw(st.integers(0, 30))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            rows.append(sep.join(["-"] * cols))
        elif kind == 1:
            rows.append(header)
        elif kind == 2:
            rows.append(sep.join(draw(st.lists(num, min_size=1, max_size=cols + 1))))
        elif kind == 3:  # a step cell padded or signed (" -0" and " -3" are eval-like rows)
            # (" -3" is left to test_runner_logs: main read it one way or the other by block)
            sign = draw(st.sampled_from(["", "-", "+"]))
            pad = draw(st.sampled_from(["", " ", "  "])) if sign != "-" else ""
            cell = pad + sign + str(first + k) + draw(st.sampled_from(["", " ", "\t"]))
            rows.append(sep.join([cell, "0.5", *[draw(num)] * (cols - 2)]))
        else:
            rows.append(sep.join([str(first + k), "0.5", *[draw(num)] * (cols - 2)]))
    return rows


noise = st.one_of(
    st.text(st.sampled_from("ab 0123456789.,:[]/()\t-eE|\x1b"), max_size=30),
    st.sampled_from([
        "", "   ", "[WARNING] DISTRIBUTED(1234,ffff,python): [hccl] waiting",
        "epoch time: ", "Eval ", "per step time: 3 ms", "step_time(ms) ", "global_step 3,",
        "\x1b[32mINFO\x1b[0m", "step\tloss", "1\t2\t3\t4", "Epoch 1/2, Step 3/4,", "\u0663\u0664",
        "Epoch: [\u0661/9], batch: [\u0662/3], time: 1.0s",
    ]),
)  # fmt: skip

ANSI = ["\x1b[32m", "\x1b[0m", "\x1b[1;31m", "\x1b]0;title\x07", "\x1bM"]


@st.composite
def log(draw) -> str:
    pieces: list[str] = []
    if draw(st.booleans()):
        pieces += draw(result_file())
    for part in draw(
        st.lists(st.one_of(run(), single.map(lambda x: [x]), noise.map(lambda x: [x])))
    ):
        pieces += part
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3))
    out = []
    for i, line in enumerate(pieces):
        if draw(st.integers(0, 9)) == 0:
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.sampled_from(ANSI)) + line[at:]
        out.append(line + ends[i % len(ends)])
    text = "".join(out)
    if text and draw(st.booleans()):  # the last line cut (or a CR at the very end)
        text = text[: draw(st.integers(0, len(text)))]
    return text


# ---- comparing --------------------------------------------------------------------------------


def outcome(module, source, fmt: str, **hints) -> tuple:
    try:
        read = module.read_log(source, fmt, **hints)
    except module.LogFormatError as exc:
        return ("error", str(exc))
    got = dataclasses.asdict(read)
    got.pop("last_step", None)  # newer than the reference (TimeMonitor's dropped lines' steps)
    got["samples"] = [tuple(s) for s in read.samples]
    # floats bit for bit (NaN never occurs; -0.0 and 0.0 differ in repr)
    return ("ok", repr(got))


# the package's modules: each limit is set in the module that uses it (and where re-exported)
NEW_MODULES = [new, *(m for m in vars(new).values() if isinstance(m, ModuleType))]


def both(monkeypatch, sizes: tuple[int, int, int, int]) -> None:
    block, prefix, max_line, max_samples = sizes
    limits = {"BLOCK": block, "DETECT_PREFIX": prefix, "MAX_LINE": max_line}
    limits["MAX_SAMPLES"] = max_samples
    for module in (old, *NEW_MODULES):
        for name, value in limits.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)


def compare(text: str, sizes, fmts=("auto", *FORMATS)) -> None:
    with pytest.MonkeyPatch.context() as mp:
        both(mp, sizes)
        for fmt in fmts:
            for hints in ({}, {"steps_per_epoch": 4}):
                assert outcome(new, text, fmt, **hints) == outcome(old, text, fmt, **hints), fmt
        for rx, times in REGEXES:
            kw = {"regex": rx, "regex_times": times, "steps_per_epoch": 3}
            assert outcome(new, text, "regex", **kw) == outcome(old, text, "regex", **kw)


sizes = st.tuples(
    st.sampled_from([1, 7, 64, 300, 1000, 4096, 1 << 20]),  # BLOCK
    st.sampled_from([1, 50, 1 << 20]),  # DETECT_PREFIX
    st.sampled_from([40, 200, 64 * 1024]),  # MAX_LINE
    st.sampled_from([3, 50, 1_000_000]),  # MAX_SAMPLES
)


@SETTINGS
@given(text=log(), sizes=sizes)
@example(text="Train epoch time: 10 ms, per step time: 1 ms\n" * 3, sizes=(7, 1, 200, 3))
@example(  # mindyolo: steps per epoch comes from each run of step lines (a run ends with a block)
    text="Epoch 1/9, Step 1/4, step time: 5 ms\nEpoch 1/9, Step 2/0, step time: 5 ms\n"
    "Epoch 1/9, epoch time: 1 min.\n",
    sizes=(1, 1, 200, 3),
)
def test_every_format_reads_as_main_read_it(text, sizes):
    compare(text, sizes)


@SETTINGS
@given(text=log(), sizes=sizes, cuts=st.lists(st.integers(0, 10_000), max_size=8))
def test_a_file_and_a_stream_of_pieces_read_as_main_read_them(text, sizes, cuts):
    """The same log as a file (UTF-8 bytes, invalid bytes replaced) and as an iterable of pieces
    cut anywhere (a CRLF split in two, an ANSI code split in two)."""
    raw = text.encode("utf-8", "surrogatepass")
    if cuts:  # an invalid byte or two, at the end of a line: before a step line's text they
        # would make it a line that only quotes one, which the anchored patterns do not read
        at = cuts[0] % (len(raw) + 1)
        at = raw.find(b"\n", at) if raw.find(b"\n", at) >= 0 else len(raw)
        raw = raw[:at] + b"\xff\xfe" + raw[at:]
    bounds = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.log")
        with open(path, "wb") as fh:
            fh.write(raw)
        with pytest.MonkeyPatch.context() as mp:
            both(mp, sizes)
            for fmt in ("auto", "mindone", "timemonitor", "mindone_result", "perf_recorder"):
                assert outcome(new, Path(path), fmt) == outcome(old, Path(path), fmt), fmt
                # a list of pieces: `auto` reads it twice (detection, then the parse)
                assert outcome(new, pieces, fmt) == outcome(old, pieces, fmt), fmt
