"""The step patterns found fast (`_Anchored`: the format's text first, the logger's prefix
checked after) find exactly what the patterns anchored to a logger's prefix find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot.runner.logs import mindcv, mindone, timemonitor, yolo_ocr

CORES = {
    "mindone": (
        "epoch 2, step 7, lr 0.0001, loss 0.5, loss scale 1024, global_step 7, step_time(ms) 150.5",
        "epoch 2, step 9, loss 0.5, step_time(ms) 1.5e2",
    ),
    "mindcv": ("Epoch: [1/10], batch: [5/100], loss: 0.5, lr: 0.0001, time: 0.190000s",),
    "mindyolo": ("Epoch 1/10, Step 5/100, step time: 1400.12 ms",),
    "mindocr": ("epoch: [1/10] step: [5/100], loss: 6.8, per step time: 400.123 ms",),
    "mindaudio": (
        "[Train] Epoch: [1/10], Step: [5/100], Step Time: 0.3012 sec",
        "Epoch: [1/2], Step: [3/9], Step Time: 1.5 sec",
    ),
}
FINDERS = {
    "mindone": mindone._MINDONE,
    "mindcv": mindcv._MINDCV,
    "mindyolo": yolo_ocr._YOLO_STEP,
    "mindocr": yolo_ocr._OCR_STEP,
    "mindaudio": timemonitor._AUDIO,
}
HEADS = [
    "",
    "  ",
    "[2026-12-01 10:00:00] mindcv.utils.callbacks INFO - ",
    "2026-12-01 10:00:00,123 [INFO] ",
    "[2026-12-01 10:00:00] INFO: ",
    "2026-12-01 10:00:00 ",
    "epoch INFO ",
    "Epoch WARNING ",
    "[Train] ",
    "caption: a cat, ",
    "a photo of ",
    "\u00e9t\u00e9 INFO ",
    "[2026-12-01 10:00:00] \u00e9t\u00e9 INFO - ",
    "INFO epoch 1, step 2, ",
]
TAILS = ["", " and more", ", epoch: [1/2] step: [3/4] per step time: 5 ms"]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(FINDERS)),
    st.lists(
        st.tuples(
            st.sampled_from(HEADS),
            st.integers(0, 4),
            st.sampled_from(TAILS),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_the_fast_finders_find_what_the_anchored_patterns_find(name, rows):
    finder = FINDERS[name]
    cores = CORES[name]
    lines = []
    for head, which, tail, twice in rows:
        core = cores[which % len(cores)] if which < 3 else "some other line"
        lines.append(head + core + (" " + core if twice else "") + tail)
    block = "\n".join(lines) + "\n"
    assert finder.findall(block) == finder.full.findall(block)
