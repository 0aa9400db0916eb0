#!/usr/bin/env python3
"""Secrets (issue 38): what the proxy's TLS termination for a secret's host costs a program,
against the same program talking TLS to the same server directly. Everything runs inside
test-network (tests/probe/test-network.c): a network namespace of its own where 198.18.0.1 is
a local address and TEST_NETWORK_NAMES names it secrets.test.example, so nothing leaves this
machine. A TLS server there (Python's ssl, outside any sandbox, with a certificate of a CA this
benchmark makes with openssl) answers HTTP/1.1; the same client runs in four ways, interleaved
round by round (ABCD, then DCBA):

  direct   in the namespace, trusting the test CA, sending the real value in a header
  secrets  in a `filtered` session whose policy allows the host and has a secret naming it:
           the client sends the placeholder it was given and trusts the bundle the sandbox gets
           (SSL_CERT_FILE inside); the supervisor terminates its TLS with the session's CA,
           puts the value in, and verifies the server against SSL_CERT_FILE = the test CA
  relay    the floor: the same session, but its secret names another host, so the connection
           is relayed end to end as before (transparent relay; the client trusts the test CA)
  tlsrelay the floor of any TLS-terminating relay here: tests/bench/tls_floor.c (C, OpenSSL, as
           the proxy; compiled with cc) in the namespace outside any session, ending the
           client's TLS with the server's own certificate and opening TLS to the server beside
           it (verified against the test CA), a thread per connection; no HTTP read, nothing
           substituted; the client connects to it as to the host itself, trusting the test CA,
           and sends the real value

The server answers "value" when the header holds the real value and "placeholder" otherwise,
and the client checks it: a session that did not substitute fails the run.

  new connection  CONNS connections, each timed from socket() through the TLS handshake and a
                  small request to the response's first byte; p50 and p90 per round
  bulk            a SIZE MiB response over TLS (Content-Length, random bytes), timed from the
                  request to its last byte; MiB/s per round

The added time is a variant's figure minus the direct one of the same round; every figure is
the median over rounds with [p25-p75]. See BENCHMARKS.md, "Secrets".

Usage: tests/bench/secrets_bench.py [--quick] [--rounds 11] [--conns 200] [--size 100]
       [--bulk-rounds 5] [--result]
  --result  also print RESULT lines (tests/bench/run-benchmarks.sh reads them)
Builds only tls_floor.c (with cc, into its temporary folder): $SANDBENCH_BUILD_DIR (default
./build) has app/sandbench-cli and tests/test-network; needs openssl, cc and libssl-dev. Runs
as root and as an unprivileged user alike.
"""
import argparse
import json
import os
import random
import shutil
import socket
import ssl
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
NAME = "secrets.test.example"
VALUE = "sk-bench-THEREALVALUE-%08x-0123456789" % random.randrange(1 << 32)


# ---------------------------------------------------------------------------------------------
# The server (in the test namespace, outside any sandbox): PORT answers a small request,
# PORT+1 answers "GET /N" with N bytes. Both say whether the request carried the real value.

def serve(port, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    block = memoryview(os.urandom(1 << 20))
    value = os.environ["SB_BENCH_VALUE"].encode()

    def answer(raw):
        try:
            with ctx.wrap_socket(raw, server_side=True) as c:
                head = b""
                while b"\r\n\r\n" not in head:
                    got = c.recv(4096)
                    if not got:
                        return
                    head += got
                saw = b"value" if value in head else b"placeholder"
                path = head.split(b" ", 2)[1]
                n = int(path[1:]) if path[1:].isdigit() else 0
                if n == 0:
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n"
                              b"\r\n%s" % (len(saw), saw))
                    return
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Saw: %s\r\n"
                          b"Connection: close\r\n\r\n" % (n, saw))
                while n > 0:
                    part = block[:min(n, len(block))]
                    c.sendall(part)
                    n -= len(part)
        except (OSError, ssl.SSLError):
            pass

    def accept(l):
        while True:
            c, _ = l.accept()
            threading.Thread(target=answer, args=(c,), daemon=True).start()

    for p in (port, port + 1):
        l = socket.socket()
        l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        l.bind(("198.18.0.1", p))
        l.listen(1024)
        threading.Thread(target=accept, args=(l,), daemon=True).start()
    print("serving", flush=True)
    sys.stdin.read()  # until the benchmark ends


# ---------------------------------------------------------------------------------------------
# The client: the same code directly and in the sessions; prints one JSON line. CA is a file to
# trust, or "-" for the default trust store (in a session with a secret: the session's bundle).

def context(ca):
    return ssl.create_default_context(cafile=None if ca == "-" else ca)


def request(path):
    return (b"GET %s HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nConnection: close\r\n\r\n"
            % (path.encode(), NAME.encode(), os.environ["BENCH_KEY"].encode()))


def read_all(s, buf):
    got = 0
    while True:
        n = s.recv_into(buf)
        if n == 0:
            return got
        got += n


def address_of(port):
    return socket.getaddrinfo(NAME, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]


def client_latency(port, conns, ca, expect):
    ctx = context(ca)
    address = address_of(port)
    req = request("/")
    ns = time.perf_counter_ns
    first, buf = [], bytearray(4096)
    for i in range(conns + 20):  # the first 20 warm up
        t0 = ns()
        with ctx.wrap_socket(socket.create_connection((address, port)),
                             server_hostname=NAME) as s:
            s.sendall(req)
            got = s.recv(1)
            t1 = ns()
            rest = bytearray()
            while True:
                n = s.recv_into(buf)
                if n == 0:
                    break
                rest += buf[:n]
        answer = bytes(got + rest)
        if not answer.startswith(b"HTTP/1.1 200") or not answer.endswith(b"\r\n\r\n" + expect):
            raise SystemExit("unexpected answer (wanted %r): %r" % (expect, answer[-300:]))
        if i >= 20:
            first.append((t1 - t0) / 1000)
    print(json.dumps({"first_byte_us": first}), flush=True)


def client_bulk(port, size, ca, expect):
    ctx = context(ca)
    buf = bytearray(1 << 20)
    with ctx.wrap_socket(socket.create_connection((address_of(port), port), timeout=120),
                         server_hostname=NAME) as s:
        start = time.perf_counter()
        s.sendall(request("/%d" % size))
        head = b""
        while b"\r\n\r\n" not in head:
            n = s.recv_into(buf)
            assert n > 0, head
            head += buf[:n]
        got = len(head) - head.index(b"\r\n\r\n") - 4 + read_all(s, buf)
        seconds = time.perf_counter() - start
    if got != size or (b"X-Saw: " + expect + b"\r\n") not in head:
        raise SystemExit("unexpected answer (%d bytes, wanted %r): %r" % (got, expect, head))
    print(json.dumps({"mib_s": size / seconds / (1 << 20)}), flush=True)


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


# variant: (runs in a session, its policy, CA the client trusts, what the server must see)
VARIANTS = {
    "direct": (False, None, "ca.pem", "value"),
    "secrets": (True, "secrets.json", "-", "value"),
    "relay": (True, "relay.json", "ca.pem", "placeholder"),
    "tlsrelay": (False, None, "ca.pem", "value"),
}
ADDED = ("secrets", "relay", "tlsrelay")
# The TLS relay listens on these offsets from the server's ports (+2 is test-network's own).
TLS_RELAY_OFFSET = 3


class Driver:
    def __init__(self, root, work, ca):
        self.root, self.work = root, work
        # The supervisor trusts the test CA and reads the value from its environment; a direct
        # client sends the value itself.
        self.env = dict(os.environ, SSL_CERT_FILE=ca, SB_BENCH_VALUE=VALUE, BENCH_KEY=VALUE)

    def run(self, variant, *client):
        sandboxed, policy, ca, expect = VARIANTS[variant]
        if variant == "tlsrelay":
            client = (client[0], client[1] + TLS_RELAY_OFFSET) + client[2:]
        cmd = ["python3", "secrets_bench.py", "--client"] + [str(a) for a in client] + [
            ca, expect]
        if sandboxed:
            cmd = [CLI, "run", "--workspace", self.work, "--policy",
                   os.path.join(self.root, policy), "--"] + cmd
        r = subprocess.run(cmd, cwd=self.work, capture_output=True, text=True, env=self.env,
                           stdin=subprocess.DEVNULL, timeout=300)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if r.returncode != 0 or not lines:
            raise SystemExit("client %s (%s) failed, exit %d:\n%s%s" % (
                client, variant, r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
        return json.loads(lines[-1])

    def interleaved(self, rounds, *client):
        names = list(VARIANTS)
        out = {v: [] for v in names}
        for r in range(rounds):
            for v in names[::-1] if r % 2 else names:
                out[v].append(self.run(v, *client))
        return out


def make_pki(dir):
    def openssl(*argv):
        subprocess.run(["openssl"] + list(argv), cwd=dir, check=True, capture_output=True)
    with open(os.path.join(dir, "server.ext"), "w") as f:
        f.write("subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n"
                "extendedKeyUsage=serverAuth\n" % NAME)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=Sandbench Bench CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=" + NAME)
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext")
    return [os.path.join(dir, f) for f in ("ca.pem", "server.pem", "server.key")]


def tls_relay(port, ca, cert, key, dir):
    """tests/bench/tls_floor.c, compiled here, in front of the server's two ports: TLS from the
    client ends there, TLS to the server starts there, bytes copied between them."""
    binary = os.path.join(dir, "tls_floor")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(REPO, "tests", "bench", "tls_floor.c"),
                    "-lssl", "-lcrypto", "-pthread"], check=True)
    relays = []
    for p in (port, port + 1):
        relays.append(subprocess.Popen(
            [binary, "198.18.0.1", str(p + TLS_RELAY_OFFSET), cert, key, "198.18.0.1", str(p),
             ca, NAME], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True))
        if relays[-1].stdout.readline().strip() != "listening":
            raise SystemExit("secrets_bench: tls_floor does not listen on %d" % (
                p + TLS_RELAY_OFFSET))
    return relays


def policy(port, secret_host):
    return {"version": 1,
            "network": {"mode": "filtered", "default": "deny", "rules": [
                {"action": "allow", "host": NAME, "ports": [port, port + 1]}]},
            "secrets": {"bench": {"from": {"env": "SB_BENCH_VALUE"}, "hosts": [secret_host],
                                  "ports": [port, port + 1], "env": "BENCH_KEY"}}}


def inside(args):
    root = tempfile.mkdtemp(prefix="sandbench-secrets-")
    server, relays = None, []
    try:
        for sub in ("home", "state", "data", "runtime", "work", "pki"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        os.environ.update(HOME=os.path.join(root, "home"),
                          XDG_STATE_HOME=os.path.join(root, "state"),
                          XDG_DATA_HOME=os.path.join(root, "data"),
                          XDG_RUNTIME_DIR=os.path.join(root, "runtime"))
        work = os.path.join(root, "work")
        ca, cert, key = make_pki(os.path.join(root, "pki"))
        shutil.copy(os.path.abspath(__file__), os.path.join(work, "secrets_bench.py"))
        shutil.copy(ca, os.path.join(work, "ca.pem"))
        port = args.port
        for file, host in (("secrets.json", NAME), ("relay.json", "other.test.example")):
            with open(os.path.join(root, file), "w") as f:
                json.dump(policy(port, host), f)
        server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve",
                                   str(port), cert, key], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, SB_BENCH_VALUE=VALUE))
        assert server.stdout.readline().strip() == "serving"
        relays = tls_relay(port, ca, cert, key, root)
        d = Driver(root, work, ca)
        lat = d.interleaved(args.rounds, "latency", port, args.conns)
        bulk = d.interleaved(args.bulk_rounds, "bulk", port + 1, args.size << 20)
    finally:
        for p in relays:
            p.kill()
            p.wait()
        if server:
            server.kill()
            server.wait()
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)

    def fmt(t, f="%.0f"):
        return (f + " [" + f + "-" + f + "]") % t

    p = {v: [(quantile(r["first_byte_us"], 0.5), quantile(r["first_byte_us"], 0.9))
             for r in lat[v]] for v in VARIANTS}
    p50 = {v: spread([x[0] for x in p[v]]) for v in VARIANTS}
    p90 = {v: spread([x[1] for x in p[v]]) for v in VARIANTS}
    added = {v: (spread([s[0] - d[0] for s, d in zip(p[v], p["direct"])]),
                 spread([s[1] - d[1] for s, d in zip(p[v], p["direct"])]))
             for v in ADDED}
    mib = {v: spread([r["mib_s"] for r in bulk[v]]) for v in VARIANTS}
    ratio = {v: spread([s["mib_s"] / d["mib_s"] for s, d in zip(bulk[v], bulk["direct"])])
             for v in ADDED}

    # Substitution against the TLS floor, round by round: what the proxy adds above termination.
    over = spread([s[0] - f[0] for s, f in zip(p["secrets"], p["tlsrelay"])])
    of_floor = spread([s["mib_s"] / f["mib_s"] for s, f in zip(bulk["secrets"], bulk["tlsrelay"])])

    print("as %s, %d rounds (ABCD DCBA), medians over rounds [p25-p75]:" % (
        os.environ.get("SB_BENCH_USER", str(os.getuid())), args.rounds))
    print("new TLS connection + request + first byte, %d per round:" % args.conns)
    print("  direct      p50 %s us, p90 %s us" % (fmt(p50["direct"]), fmt(p90["direct"])))
    for v, what in (("secrets", "substitution"), ("relay", "relay (floor)"),
                    ("tlsrelay", "TLS relay (floor)")):
        print("  %-13s p50 %s us, p90 %s us: added p50 %s us, p90 %s us" % (
            what, fmt(p50[v]), fmt(p90[v]), fmt(added[v][0]), fmt(added[v][1])))
    print("bulk %d MiB over TLS, %d rounds: direct %s MiB/s, substitution %s MiB/s: %sx; "
          "relay (floor) %s MiB/s: %sx; TLS relay (floor) %s MiB/s: %sx" % (
              args.size, args.bulk_rounds, fmt(mib["direct"]), fmt(mib["secrets"]),
              fmt(ratio["secrets"], "%.2f"), fmt(mib["relay"]), fmt(ratio["relay"], "%.2f"),
              fmt(mib["tlsrelay"]), fmt(ratio["tlsrelay"], "%.2f")))
    print("substitution against the TLS relay (floor), same rounds: p50 %s us more; %sx its "
          "throughput" % (fmt(over), fmt(of_floor, "%.2f")))
    if args.result:
        c = lambda t, f="%.1f": ",".join(f % x for x in t)
        print("RESULT secrets n=%d conns=%d p50_us=%s p90_us=%s direct_p50_us=%s "
              "direct_p90_us=%s added_p50_us=%s added_p90_us=%s relay_p50_us=%s "
              "relay_added_p50_us=%s relay_added_p90_us=%s tls_relay_p50_us=%s "
              "tls_relay_added_p50_us=%s tls_relay_added_p90_us=%s over_tls_relay_p50_us=%s" % (
                  args.rounds, args.conns, c(p50["secrets"]), c(p90["secrets"]),
                  c(p50["direct"]), c(p90["direct"]), c(added["secrets"][0]),
                  c(added["secrets"][1]), c(p50["relay"]), c(added["relay"][0]),
                  c(added["relay"][1]), c(p50["tlsrelay"]), c(added["tlsrelay"][0]),
                  c(added["tlsrelay"][1]), c(over)))
        print("RESULT secrets_bulk n=%d mib=%d ratio=%s mib_s=%s direct_mib_s=%s "
              "relay_ratio=%s relay_mib_s=%s tls_relay_ratio=%s tls_relay_mib_s=%s "
              "of_tls_relay=%s" % (
                  args.bulk_rounds, args.size, c(ratio["secrets"], "%.3f"),
                  c(mib["secrets"], "%.0f"), c(mib["direct"], "%.0f"),
                  c(ratio["relay"], "%.3f"), c(mib["relay"], "%.0f"),
                  c(ratio["tlsrelay"], "%.3f"), c(mib["tlsrelay"], "%.0f"),
                  c(of_floor, "%.3f")))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a smoke run: rough figures")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--conns", type=int, default=200)
    ap.add_argument("--size", type=int, default=100, help="MiB per bulk response")
    ap.add_argument("--bulk-rounds", type=int, default=5)
    ap.add_argument("--result", action="store_true")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--client", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve(int(args.serve[0]), *args.serve[1:])
    if args.client:
        kind, numbers, (ca, expect) = args.client[0], args.client[1:-2], args.client[-2:]
        fn = {"latency": client_latency, "bulk": client_bulk}[kind]
        return fn(*[int(a) for a in numbers], ca, expect.encode())
    if args.quick:
        args.rounds, args.conns, args.size, args.bulk_rounds = 3, 50, 32, 2
    if args.inside:
        return inside(args)
    for path in (CLI, TEST_NETWORK):
        if not os.access(path, os.X_OK):
            raise SystemExit("secrets_bench: no %s (build sandbench-cli and test-network)" % path)
    for tool, package in (("openssl", "openssl"), ("cc", "gcc")):
        if shutil.which(tool) is None:
            raise SystemExit("secrets_bench: no %s (Debian: apt-get install %s)" % (tool, package))
    # Our two ports, test-network's own server's one above them (unused here), the TLS relay's.
    port = 20000 + random.randrange(30000)  # up to port + 4
    argv = [TEST_NETWORK, str(port + 2), sys.executable, os.path.abspath(__file__), "--inside",
            "--port", str(port)] + sys.argv[1:]
    env = dict(os.environ, TEST_NETWORK_NAMES=NAME)
    return subprocess.run(argv, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
