"""Prints a few lines, starts a child that also hangs, then hangs. Writes both pids to argv[1]."""

import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(1)"])
with open(sys.argv[1], "w") as fh:
    fh.write(f"{child.pid}\n")
    fh.flush()
print("epoch 1, step 1, loss 0.5, loss scale 1, global_step 1, step_time(ms) 3000.0", flush=True)
print("epoch 1, step 2, loss 0.5, loss scale 1, global_step 2, step_time(ms) 100.0", flush=True)
while True:
    time.sleep(1)
