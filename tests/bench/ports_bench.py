#!/usr/bin/env python3
"""Port previews: what a forward costs against the same server reached directly. One server
program (it answers a request line "N" with N bytes, then closes) runs on this machine's
127.0.0.1 and, in a session (network none), on the sandbox's loopback, exposed with
`sandbench-cli expose`. Measured, interleaved, ROUNDS times each: a bulk download of SIZE MiB
(throughput), and CONNS small exchanges of 100 bytes on fresh connections (the time one costs).
See BENCHMARKS.md, "Port previews".

Usage: tests/bench/ports_bench.py [--rounds 5] [--size 256] [--conns 500]
Builds nothing: $SANDBENCH_BUILD_DIR (default ./build) has app/sandbench-cli.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("SANDBENCH_BUILD_DIR", os.path.join(REPO, "build")))
CLI = os.path.join(BUILD, "app", "sandbench-cli")

SERVER = r'''
import socket, sys, threading
chunk = b"\0" * (1 << 20)
def serve(c):
    with c:
        n = int(c.makefile("rb").readline())
        while n > 0:
            sent = c.send(chunk[:min(n, len(chunk))])
            n -= sent
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen(128)
while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
'''


def fetch(port, size):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"%d\n" % size)
        got = 0
        buf = bytearray(1 << 20)
        while True:
            n = s.recv_into(buf)
            if n == 0:
                return got
            got += n


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_serving(port, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if fetch(port, 1) == 1:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("the server on port %d never answered" % port)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", type=int, default=256, help="MiB per bulk download")
    ap.add_argument("--conns", type=int, default=500)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="sandbench-ports-")
    host = None
    session = "ports-bench"
    env = dict(os.environ)
    try:
        for sub in ("home", "state", "data", "runtime", "work"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        env.update(HOME=os.path.join(root, "home"), XDG_STATE_HOME=os.path.join(root, "state"),
                   XDG_DATA_HOME=os.path.join(root, "data"),
                   XDG_RUNTIME_DIR=os.path.join(root, "runtime"))
        work = os.path.join(root, "work")
        with open(os.path.join(work, "server.py"), "w") as f:
            f.write(SERVER)
        direct = free_port()
        host = subprocess.Popen([sys.executable, os.path.join(work, "server.py"), str(direct)])
        subprocess.run([CLI, "start", "--workspace", work, "--name", session, "--network",
                        "none"], env=env, check=True, stdout=subprocess.DEVNULL)
        inside = free_port()
        subprocess.run([CLI, "exec", session, "--detach", "--", "python3", "server.py",
                        str(inside)], env=env, check=True, stdout=subprocess.DEVNULL)
        forward = json.loads(subprocess.run([CLI, "expose", session, str(inside), "--json"],
                                            env=env, check=True, capture_output=True,
                                            text=True).stdout)["host_port"]
        wait_serving(direct)
        wait_serving(forward)
        size = args.size << 20
        bulk = {"direct": [], "forward": []}
        small = {"direct": [], "forward": []}
        for _ in range(args.rounds):
            for name, port in (("direct", direct), ("forward", forward)):
                start = time.perf_counter()
                assert fetch(port, size) == size
                bulk[name].append(size / (time.perf_counter() - start) / (1 << 20))
                start = time.perf_counter()
                for _ in range(args.conns):
                    assert fetch(port, 100) == 100
                small[name].append((time.perf_counter() - start) / args.conns * 1e6)
        d, f = statistics.median(bulk["direct"]), statistics.median(bulk["forward"])
        print("bulk %d MiB: direct %.0f MiB/s, through the forward %.0f MiB/s: %.2fx "
              "(medians of %d)" % (args.size, d, f, f / d, args.rounds))
        d, f = statistics.median(small["direct"]), statistics.median(small["forward"])
        print("a 100-byte exchange on a fresh connection: direct %.0f us, through the forward "
              "%.0f us: +%.0f us (medians of %d x %d)" % (d, f, f - d, args.rounds, args.conns))
    finally:
        subprocess.run([CLI, "stop", session], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        if host:
            host.kill()
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
