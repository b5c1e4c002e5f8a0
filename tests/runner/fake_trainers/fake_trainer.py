"""A fake MindSpore trainer: prints (or writes) the step times of one log format.

True step times are `--step-time` seconds with Gaussian noise of `--noise` (relative standard
deviation, seeded); step 1 also takes `--compile` extra seconds. Times are *printed*, not slept,
unless `--sleep` is given. Used by tests/runner; not part of perfbot.
"""

import argparse
import random
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--format", required=True)
p.add_argument("--steps", type=int, default=50, help="total steps")
p.add_argument("--steps-per-epoch", type=int, default=0, help="default: all steps in one epoch")
p.add_argument("--step-time", type=float, default=0.1)
p.add_argument("--noise", type=float, default=0.05)
p.add_argument("--compile", type=float, default=3.0)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--log-interval", type=int, default=1)
p.add_argument("--result", help="write this result file instead of printing step lines")
p.add_argument("--sink", action="store_true", help="data-sink mode: one line per epoch")
p.add_argument("--ansi", action="store_true", help="colour the lines")
p.add_argument("--crlf", action="store_true", help="CRLF line ends")
p.add_argument("--sleep", action="store_true", help="really sleep the step times")
p.add_argument("--checkpoint-every", type=int, default=0, help="add 120 s to every Nth step")
p.add_argument("--exit-code", type=int, default=0)
a = p.parse_args()

rng = random.Random(a.seed)
S = a.steps_per_epoch or a.steps
E = a.steps // S
times = [max(1e-4, a.step_time * (1 + a.noise * rng.gauss(0, 1))) for _ in range(E * S)]
times[0] += a.compile
if a.checkpoint_every:
    for i in range(a.checkpoint_every - 1, len(times), a.checkpoint_every):
        times[i] += 120.0

EOL = "\r\n" if a.crlf else "\n"
out_fh = open(a.result, "w", newline="") if a.result else sys.stdout  # noqa: SIM115


def emit(line, *, to_stdout=False):
    if a.ansi and not a.result:
        line = f"\x1b[32m{line[:10]}\x1b[0m{line[10:]}"
    fh = sys.stdout if to_stdout else out_fh
    fh.write(line + EOL)
    fh.flush()


def stamp():
    return "[2024-06-01 12:00:00]"


print("[WARNING] ME(1234:1234,MainProcess): garbage line, device_id=0 progress 3%\r50%\r100%")
print("MindSpore mode[GRAPH(0)/PYNATIVE(1)]: 0")

fmt = a.format
if fmt == "mindcv_result":
    emit(
        "".join(
            f"{h:<20}"
            for h in ("Epoch", "TrainLoss", "Top1-Acc", "TrainTime", "EvalTime", "TotalTime")
        )
    )
elif fmt == "mindocr_result":
    emit("Epoch\tloss\thmean\ttrain_time\teval_time")
elif fmt == "mindone_result":
    emit("step\tloss\tlr\ttrain_time(s)")
elif fmt == "perf_recorder":
    emit(f"{'step':<7}\t{'loss':<10}\ttrain_time(s)\tpsnr")

g = 0
window = 0.0
last_print = 0
for e in range(1, E + 1):
    epoch_total = 0.0
    for s in range(1, S + 1):
        t = times[g]
        g += 1
        if a.sleep:
            time.sleep(t)
        window += t
        epoch_total += t
        n_since = g - last_print
        li = a.log_interval
        if fmt == "mindone" and g % li == 0:
            emit(
                f"epoch {e}, step {s}, lr 0.0001000, loss 0.123456, loss scale 65536, "
                f"global_step {g}, step_time(ms) {window * 1000 / li:.1f}"
            )
            window, last_print = 0.0, g
        elif fmt == "mindone_result" and g % li == 0:
            emit(f"{g}\t0.1234\t0.0000\t{window:.4f}")
            window, last_print = 0.0, g
        elif fmt == "perf_recorder":
            emit(f"{g:<7}\t{0.123456:<10.6f}\t{t:<13.3f}")
            if g % 20 == 0:
                emit(f"{'-':<7}\t{'-':<10}\t{'-':<13}\t28.123456")
            window, last_print = 0.0, g
        elif fmt == "mindcv" and not a.sink and (s == 1 or s % li == 0 or s == S):
            emit(
                f"{stamp()} mindcv.train INFO - Epoch: [{e}/{E}], batch: [{s}/{S}], "
                f"loss: 2.302585, lr: 0.100000, time: {window:.6f}s"
            )
            window, last_print = 0.0, g
        elif fmt == "mindyolo" and not a.sink:
            emit(
                f"{stamp()} [INFO] Epoch {e}/{E}, Step {s}/{S}, imgsize (640, 640), "
                f"loss: 5.1234, lbox: 0.1, cur_lr: 0.01"
            )
            if s % li == 0:
                emit(
                    f"{stamp()} [INFO] Epoch {e}/{E}, Step {s}/{S}, step time: "
                    f"{window * 1000 / li:.2f} ms"
                )
                window, last_print = 0.0, g
        elif fmt == "mindocr" and not a.sink and s % li == 0:
            ms = window * 1000 / n_since
            emit(
                f"epoch: [{e}/{E}] step: [{s}/{S}], loss: 0.512345, lr: 0.001000, "
                f"per step time: {ms:.3f} ms, fps per card: {8 / (ms / 1000):.2f} img/s"
            )
            window, last_print = 0.0, g
        elif fmt == "timemonitor" and s == S:
            emit(f"epoch: {e} step: {S}, loss is 0.5195528864860535")
        elif fmt == "mindaudio" and s % li == 0:
            emit(
                f"[Train] Epoch: [{e}/{E}], Step: [{s}/{S}], "
                f"Step Time: {window / n_since:.4f} sec, lr: 0.001000, Total Loss: 12.3456, "
                "Overflow: False, Scale: 1024, Rank: 0."
            )
            window, last_print = 0.0, g
        elif fmt == "regex":
            emit(f"iter {g} took {t * 1000:.3f} ms")
    # epoch end
    if fmt == "mindcv" and a.sink:
        emit(
            f"{stamp()} mindcv.train INFO - Epoch: [{e}/{E}], batch: [{S}/{S}], "
            f"loss: 2.302585, lr: 0.100000, time: {epoch_total:.6f}s"
        )
        window = 0.0
    if fmt == "mindcv":
        emit(
            f"Total time since last epoch: {epoch_total + 1:.6f}(train: {epoch_total:.6f}, "
            f"val: 1.000000)s, ETA: 100.000000s"
        )
    elif fmt == "mindcv_result":
        emit(
            "".join(
                f"{v:<20}"
                for v in (
                    str(e),
                    "2.302585",
                    "10.0000%",
                    f"{epoch_total:.2f}",
                    "1.00",
                    f"{epoch_total + 1:.2f}",
                )
            )
        )
    elif fmt == "mindocr_result":
        emit(f"{e}\t0.5123\t0.8000\t{epoch_total:.4f}\t1.0000")
    elif fmt == "mindyolo":
        if a.sink:
            emit(f"{stamp()} [INFO] Epoch {e}/{E}, Step {S}/{S}, loss: 5.1234, cur_lr: 0.01")
        emit(f"{stamp()} [INFO] Epoch {e}/{E}, epoch time: {epoch_total / 60:.4f} min.")
    elif fmt == "mindocr":
        emit(
            f"epoch: [{e}/{E}], loss: 0.512345, epoch time: {epoch_total:.3f} s, "
            f"per step time: {epoch_total * 1000 / S:.3f} ms, fps per card: 100.00 img/s"
        )
        window = 0.0
    elif fmt == "timemonitor":
        emit(
            f"Train epoch time: {epoch_total * 1000:.3f} ms, per step time: "
            f"{epoch_total * 1000 / S:.3f} ms"
        )

if a.result:
    out_fh.close()
print("training finished")
sys.stdout.flush()
sys.exit(a.exit_code)
