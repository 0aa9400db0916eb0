# The floor of BENCHMARKS.md row 6b's runCode('1'): a warm Jupyter kernel on this machine asked
# directly with jupyter_client (no sandbox, no serve, no SDK), execute('1') until its idle
# status, against a fresh `python3 -c pass` in the same rounds (A,B then B,A), after 3 warm-up
# pairs. Prints the line e2b_bench.mjs prints for its rows, named ci_kernel_direct.
# /usr/bin/python3 tests/bench/kernel_floor.py ROUNDS   (run by e2b_bench.mjs)
import os
import statistics
import subprocess
import sys
import time

from jupyter_client.manager import start_new_kernel


def python_us():
    t = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-c", "pass"], check=True)
    return (time.perf_counter() - t) * 1e6


def execute_us(client):
    t = time.perf_counter()
    client.execute_interactive("1", timeout=30, output_hook=lambda msg: None)
    return (time.perf_counter() - t) * 1e6


def main():
    rounds = int(sys.argv[1])
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        for _ in range(3):
            execute_us(client)
            python_us()
        kernel, python, ratios = [], [], []
        for r in range(rounds):
            if r % 2:
                y = python_us()
                x = execute_us(client)
            else:
                x = execute_us(client)
                y = python_us()
            kernel.append(x)
            python.append(y)
            ratios.append(x / y)
        # Quartiles interpolated between the values, as bench_support.mjs's quantile().
        k25, k50, k75 = statistics.quantiles(kernel, n=4, method="inclusive")
        r25, r50, r75 = statistics.quantiles(ratios, n=4, method="inclusive")
        print("RESULT ci_kernel_direct n=%d sandbench_us=%.0f p25_us=%.0f p75_us=%.0f "
              "python_us=%.0f ratio=%.3f,%.3f,%.3f"
              % (rounds, k50, k25, k75, statistics.median(python), r50, r25, r75), flush=True)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    # jupyter_client's client logs from __del__ at interpreter exit, after logging is gone.
    os._exit(0)


main()
