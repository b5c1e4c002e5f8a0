"""A small real MindSpore training (CPU) that logs its step times in one of the formats perfbot
reads, with a silent ground-truth callback first in the callback list (it records step, epoch and
train begin/end with time.perf_counter and writes them to --truth as JSON).

Run by tests/runner/test_runner_groundtruth.py through `perfbot bench`; not part of perfbot.
The loggers follow each family's timer as docs/runner.md describes it (mindcv: step begin->end
accumulated since the previous line; mindone: wall time between its lines, from its
construction; PerfRecorder: begin->end per step; mindyolo/mindocr: wall time of a window,
restarting every epoch); TimeMonitor and LossMonitor are MindSpore's own.
"""

import argparse
import json
import os
import time

import mindspore as ms
import numpy as np
from mindspore import nn
from mindspore.dataset import GeneratorDataset
from mindspore.train import Callback, LossMonitor, Model, TimeMonitor

p = argparse.ArgumentParser()
p.add_argument("--format", required=True)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--steps-per-epoch", type=int, default=12)
p.add_argument("--log-interval", type=int, default=1)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--width", type=int, default=1024)
p.add_argument("--mode", type=int, default=0)
p.add_argument("--truth", default="truth.json")
p.add_argument("--result", default="result.log")
a = p.parse_args()

ms.set_context(mode=a.mode, device_target="CPU")
N = a.steps_per_epoch
E = a.epochs
L = a.log_interval


class Net(nn.Cell):
    def __init__(self, w):
        super().__init__()
        self.a = nn.Dense(w, w)
        self.b = nn.Dense(w, w)
        self.c = nn.Dense(w, 10)
        self.r = nn.ReLU()

    def construct(self, x):
        return self.c(self.r(self.b(self.r(self.a(x)))))


def gen():
    rng = np.random.default_rng(0)
    for _ in range(N * a.batch_size):
        yield rng.standard_normal(a.width).astype(np.float32), np.int32(rng.integers(0, 10))


def ts():
    return time.strftime("[%Y-%m-%d %H:%M:%S]")


class Truth(Callback):
    def __init__(self):
        self.t = {k: [] for k in ("step_begin", "step_end", "epoch_begin", "epoch_end")}
        self.t["steps_per_epoch"] = N

    def on_train_begin(self, rc):
        self.t["train_begin"] = time.perf_counter()

    def on_train_epoch_begin(self, rc):
        self.t["epoch_begin"].append(time.perf_counter())

    def on_train_epoch_end(self, rc):
        self.t["epoch_end"].append(time.perf_counter())

    def on_train_step_begin(self, rc):
        self.t["step_begin"].append(time.perf_counter())

    def on_train_step_end(self, rc):
        self.t["step_end"].append(time.perf_counter())

    def on_train_end(self, rc):
        self.t["train_end"] = time.perf_counter()
        with open(a.truth, "w") as fh:
            json.dump(self.t, fh)


def loss_of(rc):
    out = rc.original_args().net_outputs
    return float(out.asnumpy() if hasattr(out, "asnumpy") else out[0].asnumpy())


class StepLogger(Callback):
    """The non-TimeMonitor formats, each on its family's timer."""

    def __init__(self):
        self.acc = 0.0  # mindcv: begin->end accumulated since the last line
        self.last = time.time()  # mindone: wall time since construction / the last line
        self.window = None  # mindyolo/mindocr: wall time since the window began
        self.rows = []
        if a.format == "perf_recorder":
            with open(a.result, "w") as fh:
                fh.write(f"{'step':<7}\t{'loss':<10}\ttrain_time(s)\n")
        if a.format == "mindcv_result":
            with open(a.result, "w") as fh:
                fh.write(
                    "".join(
                        x.ljust(20)
                        for x in ("Epoch", "TrainLoss", "TrainTime", "EvalTime", "TotalTime")
                    )
                    + "\n"
                )

    def on_train_epoch_begin(self, rc):
        self.epoch_t0 = time.time()
        self.window = time.time()

    def on_train_step_begin(self, rc):
        self.t0 = time.perf_counter()

    def on_train_step_end(self, rc):
        dt = time.perf_counter() - self.t0
        cb = rc.original_args()
        e, g = cb.cur_epoch_num, cb.cur_step_num
        b = (g - 1) % N + 1
        loss = loss_of(rc)
        self.acc += dt
        f = a.format
        if f == "mindcv" and (b == 1 or b % L == 0 or b == N):
            print(
                f"{ts()} mindcv.utils.callbacks INFO - Epoch: [{e}/{E}], batch: [{b}/{N}], "
                f"loss: {loss:.6f}, lr: 0.010000, time: {self.acc:.6f}s",
                flush=True,
            )
            self.acc = 0.0
        elif f == "mindone" and g % L == 0:
            now = time.time()
            print(
                f"{ts()} mindone.trainers.callback INFO - epoch {e}, step {b}, lr 0.0100000, "
                f"loss {loss:.6f}, loss scale 1, global_step {g}, "
                f"step_time(ms) {(now - self.last) * 1000 / L:.1f}",
                flush=True,
            )
            self.last = now
        elif f == "perf_recorder":
            with open(a.result, "a") as fh:
                fh.write(f"{g:<7}\t{loss:<10.6f}\t{dt:<13.3f}\n")
        elif f in ("mindyolo", "mindocr") and (b % L == 0 or b == N):
            now = time.time()
            done = b % L or L
            ms_ = (now - self.window) * 1000 / done
            if f == "mindyolo":
                print(
                    f"{time.strftime('%Y-%m-%d %H:%M:%S')},000 [INFO] Epoch {e}/{E}, "
                    f"Step {b}/{N}, step time: {ms_:.2f} ms",
                    flush=True,
                )
            else:
                print(
                    f"{ts()} mindocr.utils.callbacks INFO - epoch: [{e}/{E}] step: [{b}/{N}], "
                    f"loss: {loss:.6f}, lr: 0.010000, per step time: {ms_:.3f} ms, "
                    f"fps per card: {a.batch_size * 1000 / ms_:.2f} img/s",
                    flush=True,
                )
            self.window = now
        elif f == "mindaudio":
            print(
                f"[Train] Epoch: [{e}/{E}], Step: [{b}/{N}], Step Time: {dt:.4f} sec, "
                f"lr: 0.010000, Total Loss: {loss:.4f}, Overflow: False, Scale: 1, Rank: 0.",
                flush=True,
            )
        self.loss = loss

    def on_train_epoch_end(self, rc):
        if a.format == "mindcv_result":
            t = time.time() - self.epoch_t0
            e = rc.original_args().cur_epoch_num
            with open(a.result, "a") as fh:
                fh.write(
                    "".join(
                        x.ljust(20)
                        for x in (str(e), f"{self.loss:.6f}", f"{t:.2f}", "0.00", f"{t:.2f}")
                    )
                    + "\n"
                )


data = GeneratorDataset(gen, ["x", "y"], shuffle=False).batch(a.batch_size, drop_remainder=True)
net = Net(a.width)
model = Model(
    net,
    nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    nn.Momentum(net.trainable_params(), 0.01, 0.9),
)
callbacks = [Truth()]
if a.format == "timemonitor":
    callbacks += [TimeMonitor(), LossMonitor()]
elif a.format == "lossmonitor":
    callbacks += [LossMonitor()]
else:
    callbacks += [StepLogger()]
print(f"MindSpore mode[GRAPH(0)/PYNATIVE(1)]: {a.mode}", flush=True)
model.train(E, data, callbacks=callbacks, dataset_sink_mode=False)
print("pid", os.getpid(), "done", flush=True)
