"""A trainer that fights being stopped: it ignores SIGTERM, starts a child in its own process
group, one in its own session (`setsid`) and one that leaves through a double fork into a new
session. Every one of them ignores SIGTERM and keeps stdout open (the last one keeps printing).
All pids are appended to argv[1], one per line. Then it prints step lines and hangs."""

import os
import signal
import subprocess
import sys
import time

PIDS = sys.argv[1]
signal.signal(signal.SIGTERM, signal.SIG_IGN)


def note(pid: int) -> None:
    with open(PIDS, "a") as fh:
        fh.write(f"{pid}\n")


note(os.getpid())
SLEEPER = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "while True: time.sleep(1)\n"
)
group = subprocess.Popen([sys.executable, "-c", SLEEPER], process_group=0)
note(group.pid)
session = subprocess.Popen([sys.executable, "-c", SLEEPER], start_new_session=True)
note(session.pid)

if os.fork() == 0:  # double fork: the grandchild is orphaned in a session of its own
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        note(os.getpid())
        while True:
            print("late line from a daemon that holds stdout", flush=True)
            time.sleep(0.2)
    os._exit(0)
os.wait()

for g in range(1, 12):
    ms = 3000.0 if g == 1 else 100.0
    print(
        f"epoch 1, step {g}, loss 0.5, loss scale 1, global_step {g}, step_time(ms) {ms}",
        flush=True,
    )
while True:
    time.sleep(1)
