#!/usr/bin/env python3
"""Transparent connections (issue 34): what the redirect to the supervisor's proxy costs a
program that ignores every proxy variable, against the same program run directly. Everything
runs inside test-network (tests/probe/test-network.c): a network namespace of its own where
198.18.0.1 is a local address, so nothing leaves this machine. A server process there (outside
any sandbox) answers on three ports; clients run directly in that namespace (the reference)
and in a `filtered` session (`sandbench-cli run --policy`, the rules allow those ports), where
nftables redirects their connections to the proxy. Measured, interleaved round by round (ABBA):

  connect + first byte  CONNS connections, each timed from socket() to its first byte (the
                        server sends one byte on accept, then closes); p50 and p90 per round
  lookup                LOOKUPS getaddrinfo("api.test.example") each: in the session through
                        the sandbox's resolver (127.0.0.53), directly from the namespace's
                        /etc/hosts; p50 per round
  bulk                  a SIZE MiB download (the server sends N bytes for a line "N"); also
                        through a bare relay in the namespace (accept, connect, splice() both
                        ways, nothing else): the floor of any relay on this machine
  held                  HOLD connections opened and held at once in one session (a byte read on
                        each); the supervisor's (the `sandbench-cli run` process) VmRSS before
                        and while they are held

The added time is the session's figure minus the reference's of the same round; every figure
is the median over rounds with [p25-p75]. See BENCHMARKS.md, "Transparent connections".

Usage: tests/bench/transparent_bench.py [--quick] [--rounds 11] [--conns 300] [--lookups 300]
       [--size 256] [--bulk-rounds 5] [--hold 1000] [--result]
  --result  also print RESULT lines (tests/bench/run-benchmarks.sh reads them)
Builds nothing: $SANDBENCH_BUILD_DIR (default ./build) has app/sandbench-cli and
tests/test-network. Runs as root and as an unprivileged user alike.
"""
import argparse
import fcntl
import json
import os
import random
import resource
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("SANDBENCH_BUILD_DIR", os.path.join(REPO, "build")))
CLI = os.path.join(BUILD, "app", "sandbench-cli")
TEST_NETWORK = os.path.join(BUILD, "tests", "test-network")
ADDRESS = "198.18.0.1"
NAME = "api.test.example"


def more_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ---------------------------------------------------------------------------------------------
# The server (in the test namespace, outside any sandbox): PORT sends one byte and closes,
# PORT+1 sends N bytes for a request line "N", PORT+2 sends one byte and holds the connection
# until the client closes it.

def serve(port):
    more_files()

    def listener(p):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ADDRESS, p))
        s.listen(4096)
        return s

    def first_byte(l):
        while True:
            c, _ = l.accept()
            c.send(b"x")
            c.close()

    def bulk_one(c):
        chunk = memoryview(b"\0" * (1 << 20))
        with c:
            n = int(c.makefile("rb").readline())
            while n > 0:
                n -= c.send(chunk[:min(n, len(chunk))])

    def bulk(l):
        while True:
            c, _ = l.accept()
            threading.Thread(target=bulk_one, args=(c,), daemon=True).start()

    def hold(l):
        sel = selectors.DefaultSelector()
        sel.register(l, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj is l:
                    c, _ = l.accept()
                    c.send(b"x")
                    sel.register(c, selectors.EVENT_READ)
                else:
                    try:
                        data = key.fileobj.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(key.fileobj)
                        key.fileobj.close()

    ls = [listener(port), listener(port + 1), listener(port + 2)]
    for fn, l in zip((first_byte, bulk, hold), ls):
        threading.Thread(target=fn, args=(l,), daemon=True).start()
    print("serving", flush=True)
    sys.stdin.read()  # until the benchmark ends


def relay(port, upstream):
    """The floor under the proxy's bulk figure: the least a relay can do, in its own process,
    with the proxy's buffers (core/network: 1 MiB pipes, 128 KiB send buffer to the agent)."""
    more_files()
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((ADDRESS, port))
    l.listen(4096)

    def pump(src, dst):
        r, w = os.pipe()
        fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
        try:
            while True:
                n = os.splice(src.fileno(), w, 1 << 20)
                if n == 0:
                    break
                while n > 0:
                    n -= os.splice(r, dst.fileno(), n)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        os.close(r)
        os.close(w)

    print("serving", flush=True)
    while True:
        c, _ = l.accept()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 128 << 10)
        u = socket.create_connection((ADDRESS, upstream))
        for a, b in ((c, u), (u, c)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


# ---------------------------------------------------------------------------------------------
# The clients: the same code directly and in the session; each prints one JSON line.

def client_latency(port, conns, lookups):
    ns = time.perf_counter_ns
    first, names = [], []
    for i in range(conns + 20):  # the first 20 warm up
        t0 = ns()
        s = socket.socket()
        s.connect((ADDRESS, port))
        got = s.recv(1)
        t1 = ns()
        s.close()
        assert got == b"x", got
        if i >= 20:
            first.append((t1 - t0) / 1000)
    for i in range(lookups + 5):
        t0 = ns()
        answer = socket.getaddrinfo(NAME, None, type=socket.SOCK_STREAM)
        t1 = ns()
        assert any(a[4][0] == ADDRESS for a in answer), answer
        if i >= 5:
            names.append((t1 - t0) / 1000)
    print(json.dumps({"first_byte_us": first, "lookup_us": names}), flush=True)


def client_bulk(port, size):
    buf = bytearray(1 << 20)
    with socket.create_connection((ADDRESS, port), timeout=60) as s:
        start = time.perf_counter()
        s.sendall(b"%d\n" % size)
        got = 0
        while True:
            n = s.recv_into(buf)
            if n == 0:
                break
            got += n
        seconds = time.perf_counter() - start
    assert got == size, got
    print(json.dumps({"mib_s": size / seconds / (1 << 20)}), flush=True)


def client_hold(port, count):
    more_files()
    print("ready", flush=True)
    time.sleep(1.0)
    held = []
    for _ in range(count):
        s = socket.socket()
        s.connect((ADDRESS, port))
        held.append(s)
    for s in held:  # a byte through each: every connection is relayed, not only accepted
        assert s.recv(1) == b"x"
    print("held", flush=True)
    time.sleep(1.5)
    for s in held:
        s.close()
    print(json.dumps({"held": len(held)}), flush=True)


# ---------------------------------------------------------------------------------------------
# The driver, inside the test namespace.

def quantile(values, p):
    v = sorted(values)
    h = (len(v) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def spread(values):
    return statistics.median(values), quantile(values, 0.25), quantile(values, 0.75)


def status_kb(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Driver:
    def __init__(self, args, work, policy, port):
        self.args, self.work, self.policy, self.port = args, work, policy, port

    def argv(self, sandboxed, *client):
        cmd = ["python3", "transparent_bench.py", "--client"] + [str(a) for a in client]
        if sandboxed:
            return [CLI, "run", "--workspace", self.work, "--policy", self.policy, "--"] + cmd
        return cmd

    def run(self, sandboxed, *client):
        r = subprocess.run(self.argv(sandboxed, *client), cwd=self.work, capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=300)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if r.returncode != 0 or not lines:
            raise SystemExit("client %s (%s) failed, exit %d:\n%s%s" % (
                client, "session" if sandboxed else "direct", r.returncode, r.stdout[-2000:],
                r.stderr[-2000:]))
        return json.loads(lines[-1])

    def interleaved(self, rounds, *client):
        out = {"direct": [], "session": []}
        for r in range(rounds):
            order = (False, True) if r % 2 == 0 else (True, False)
            for sandboxed in order:
                out["session" if sandboxed else "direct"].append(self.run(sandboxed, *client))
        return out

    def hold(self):
        p = subprocess.Popen(self.argv(True, "hold", self.port + 2, self.args.hold),
                             cwd=self.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True)
        before = during = hwm = None
        try:
            for line in p.stdout:
                if line.startswith("ready"):
                    time.sleep(0.5)  # the session settled, before the first connection
                    before = status_kb(p.pid, "VmRSS")
                    start = time.perf_counter()
                elif line.startswith("held"):
                    opened = time.perf_counter() - start
                    during = status_kb(p.pid, "VmRSS")
                    hwm = status_kb(p.pid, "VmHWM")
            rc = p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        if rc != 0 or before is None or during is None:
            raise SystemExit("holding %d connections failed (exit %s): %s" % (
                self.args.hold, rc, p.stderr.read()[-2000:]))
        return {"before_kb": before, "during_kb": during, "hwm_kb": hwm, "opened_s": opened}


def inside(args):
    more_files()
    root = tempfile.mkdtemp(prefix="sandbench-transparent-")
    server = floor = None
    try:
        for sub in ("home", "state", "data", "runtime", "work"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        os.environ.update(HOME=os.path.join(root, "home"),
                          XDG_STATE_HOME=os.path.join(root, "state"),
                          XDG_DATA_HOME=os.path.join(root, "data"),
                          XDG_RUNTIME_DIR=os.path.join(root, "runtime"))
        work = os.path.join(root, "work")
        shutil.copy(os.path.abspath(__file__), os.path.join(work, "transparent_bench.py"))
        port = args.port
        policy = os.path.join(root, "policy.json")
        with open(policy, "w") as f:
            json.dump({"version": 1, "network": {"mode": "filtered", "default": "deny", "rules": [
                {"action": "allow", "host": ADDRESS, "ports": [port, port + 1, port + 2]}]}}, f)
        server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve",
                                   str(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)
        assert server.stdout.readline().strip() == "serving"
        floor = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--relay",
                                  str(port + 3), str(port + 1)], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, text=True)
        assert floor.stdout.readline().strip() == "serving"
        d = Driver(args, work, policy, port)

        lat = d.interleaved(args.rounds, "latency", port, args.conns, args.lookups)
        res = {}
        for what in ("first_byte_us", "lookup_us"):
            per = {v: [(quantile(r[what], 0.5), quantile(r[what], 0.9)) for r in lat[v]]
                   for v in ("direct", "session")}
            res[what] = per
        bulk = {"direct": [], "session": [], "floor": []}
        for r in range(args.bulk_rounds):
            order = [("direct", False, port + 1), ("floor", False, port + 3),
                     ("session", True, port + 1)]
            for name, sandboxed, p in order[::-1] if r % 2 else order:
                bulk[name].append(d.run(sandboxed, "bulk", p, args.size << 20))
        held = d.hold()
    finally:
        for p in (server, floor):
            if p:
                p.kill()
                p.wait()
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)

    def fmt(t):
        return "%.0f [%.0f-%.0f]" % t

    def fmt2(t):
        return "%.2f [%.2f-%.2f]" % t

    fb = res["first_byte_us"]
    d50 = spread([p[0] for p in fb["direct"]])
    s50 = spread([p[0] for p in fb["session"]])
    d90 = spread([p[1] for p in fb["direct"]])
    s90 = spread([p[1] for p in fb["session"]])
    a50 = spread([s[0] - d[0] for s, d in zip(fb["session"], fb["direct"])])
    a90 = spread([s[1] - d[1] for s, d in zip(fb["session"], fb["direct"])])
    lk = res["lookup_us"]
    ld = spread([p[0] for p in lk["direct"]])
    ls = spread([p[0] for p in lk["session"]])
    la = spread([s[0] - d[0] for s, d in zip(lk["session"], lk["direct"])])
    bd = spread([r["mib_s"] for r in bulk["direct"]])
    bs = spread([r["mib_s"] for r in bulk["session"]])
    br = spread([s["mib_s"] / d["mib_s"] for s, d in zip(bulk["session"], bulk["direct"])])
    bf = spread([r["mib_s"] for r in bulk["floor"]])
    bfr = spread([f["mib_s"] / d["mib_s"] for f, d in zip(bulk["floor"], bulk["direct"])])
    grow = (held["during_kb"] - held["before_kb"]) / 1024

    print("as %s, %d rounds (ABBA), medians over rounds [p25-p75]:" % (
        os.environ.get("SB_BENCH_USER", str(os.getuid())), args.rounds))
    print("connect + first byte, %d per round: p50 direct %s us, transparent %s us: added %s us"
          % (args.conns, fmt(d50), fmt(s50), fmt(a50)))
    print("                                     p90 direct %s us, transparent %s us: added %s us"
          % (fmt(d90), fmt(s90), fmt(a90)))
    print("lookup of %s, %d per round: p50 direct (/etc/hosts) %s us, the sandbox's resolver "
          "%s us: added %s us" % (NAME, args.lookups, fmt(ld), fmt(ls), fmt(la)))
    print("bulk %d MiB, %d rounds: direct %s MiB/s, transparent %s MiB/s: %sx; "
          "a bare splice() relay (floor) %s MiB/s: %sx" % (
              args.size, args.bulk_rounds, fmt(bd), fmt(bs), fmt2(br), fmt(bf), fmt2(bfr)))
    print("%d connections held: supervisor VmRSS %.1f -> %.1f MiB (+%.1f MiB, peak %.1f), "
          "opened and a byte read on each in %.0f ms" % (
              args.hold, held["before_kb"] / 1024, held["during_kb"] / 1024, grow,
              held["hwm_kb"] / 1024, held["opened_s"] * 1000))
    if args.result:
        c = lambda t, f="%.1f": ",".join(f % x for x in t)
        print("RESULT transparent n=%d conns=%d first_p50_us=%s first_p90_us=%s "
              "direct_p50_us=%s direct_p90_us=%s added_p50_us=%s added_p90_us=%s" % (
                  args.rounds, args.conns, c(s50), c(s90), c(d50), c(d90), c(a50), c(a90)))
        print("RESULT transparent_dns n=%d lookups=%d p50_us=%s direct_p50_us=%s added_us=%s"
              % (args.rounds, args.lookups, c(ls), c(ld), c(la)))
        print("RESULT transparent_bulk n=%d mib=%d ratio=%s mib_s=%s direct_mib_s=%s "
              "floor_ratio=%s floor_mib_s=%s" % (
                  args.bulk_rounds, args.size, c(br, "%.3f"), c(bs, "%.0f"), c(bd, "%.0f"),
                  c(bfr, "%.3f"), c(bf, "%.0f")))
        print("RESULT transparent_held conns=%d before_kb=%d during_kb=%d hwm_kb=%d opened_ms=%.0f"
              % (args.hold, held["before_kb"], held["during_kb"], held["hwm_kb"],
                 held["opened_s"] * 1000))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a smoke run: rough figures")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--conns", type=int, default=300)
    ap.add_argument("--lookups", type=int, default=300)
    ap.add_argument("--size", type=int, default=256, help="MiB per bulk download")
    ap.add_argument("--bulk-rounds", type=int, default=5)
    ap.add_argument("--hold", type=int, default=1000)
    ap.add_argument("--result", action="store_true")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--relay", type=int, nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--client", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve(args.serve)
    if args.relay:
        return relay(*args.relay)
    if args.client:
        kind, rest = args.client[0], [int(a) for a in args.client[1:]]
        return {"latency": client_latency, "bulk": client_bulk, "hold": client_hold}[kind](*rest)
    if args.quick:
        args.rounds, args.conns, args.lookups, args.size, args.bulk_rounds = 3, 100, 100, 64, 2
    if args.inside:
        return inside(args)
    for path in (CLI, TEST_NETWORK):
        if not os.access(path, os.X_OK):
            raise SystemExit("transparent_bench: no %s (build sandbench-cli and test-network)"
                             % path)
    # Our four ports, and test-network's own server's one above them (unused here).
    port = 20000 + random.randrange(30000)
    argv = [TEST_NETWORK, str(port + 4), sys.executable, os.path.abspath(__file__), "--inside",
            "--port", str(port)] + sys.argv[1:]
    return subprocess.run(argv).returncode


if __name__ == "__main__":
    sys.exit(main())
