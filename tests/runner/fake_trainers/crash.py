"""Prints some step lines, then dies with a traceback (exit code 1)."""

for i in range(1, 6):
    print(f"epoch 1, step {i}, loss 0.5, loss scale 1, global_step {i}, step_time(ms) 100.0")
raise RuntimeError("Out of memory on device 0 (fake)")
