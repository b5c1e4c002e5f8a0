"""Like `msrun --worker_num=2 --join=True train.py` with TimeMonitor: each rank writes its own
`msrun_log/worker_N.log`, and the console (our stdout) interleaves both ranks without a prefix.
Rank 1 is the slower one. Per-step ms of each epoch: rank 0 0.2 s, rank 1 0.25 s."""

import os

os.makedirs("msrun_log", exist_ok=True)
STEPS = 20
PER = {0: [520.0, 200.0, 201.0, 199.0, 200.0], 1: [530.0, 250.0, 251.0, 249.0, 250.0]}
logs = {r: open(f"msrun_log/worker_{r}.log", "w") for r in PER}  # noqa: SIM115
for r in PER:
    print(
        f"Start worker process with rank id:{r}, log file:msrun_log/worker_{r}.log. "
        f"Environment variable [RANK_ID={r}] is exported."
    )
    logs[r].write("[WARNING] DISTRIBUTED(1234,ffff,python):2026-12-01 [hccl] init\n")
for e in range(5):
    for r in PER:
        line = f"epoch: {e + 1} step: {STEPS}, loss is 2.313304901123047"
        print(line)
        logs[r].write(line + "\n")
    for r in PER:
        ms = PER[r][e]
        line = f"Train epoch time: {ms * STEPS:.3f} ms, per step time: {ms:.3f} ms"
        print(line)
        logs[r].write(line + "\n")
for fh in logs.values():
    fh.close()
