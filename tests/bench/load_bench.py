#!/usr/bin/env python3
"""Load (issue 25): whole sessions under load, the window attached, against the same work done
without Sandbench in the same run. See BENCHMARKS.md, "Load".

  L1. 20 sessions at once, each a build-like loop (per step: a line of output, a file written,
      two programs run), with the window (offscreen) attached to all of them.
  L2. 1,000 concurrent connections through one session's proxy to a server on the host's
      127.0.0.1, every one open at once, a request and an answer on each.
  L3. A 100 MB terminal flood from one session with the window showing it; reference: the same
      flood in a terminal (script(1)'s pty) without Sandbench.
  L4. 10,000 execs decided by command rules (20 rules, the match the last), in one loop.

For each: wall time against the reference (the same work without Sandbench), the supervisors'
CPU time and peak RSS (/proc, sampled every 50 ms), the window's, and the recording checked
against what the work produced: every line, every exec, every connection, nothing dropped.

Usage: tests/bench/load_bench.py [--only L1,L2,…] [--sessions 20] [--connections 1000]
                                 [--flood-mb 100] [--execs 10000]
Builds nothing: $SANDBENCH_BUILD_DIR (default ./build) has app/sandbench-cli and app/sandbench.
Exit status 0 when every part ran and its recording was complete, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("SANDBENCH_BUILD_DIR", os.path.join(REPO, "build")))
CLI = os.path.join(BUILD, "app", "sandbench-cli")
GUI = os.path.join(BUILD, "app", "sandbench")
TICKS = os.sysconf("SC_CLK_TCK")
EXEC_DECISION = 5
NETWORK_DECISION = 7
DROPPED = 13


class World:
    """HOME, XDG folders and workspaces under one temporary folder."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="sandbench-load-")
        os.chmod(self.root, 0o755)
        for sub in ("home", "xdg/state", "xdg/data", "xdg/runtime"):
            os.makedirs(os.path.join(self.root, sub), mode=0o700)
        self.env = dict(os.environ)
        self.env.update(HOME=self.path("home"), XDG_STATE_HOME=self.path("xdg/state"),
                        XDG_DATA_HOME=self.path("xdg/data"),
                        XDG_RUNTIME_DIR=self.path("xdg/runtime"), QT_QPA_PLATFORM="offscreen",
                        LC_ALL="C")
        self.db = self.path("xdg/data/sandbench/recordings.db")

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def workspace(self, name):
        folder = self.path("ws", name)
        os.makedirs(folder)
        with open(os.path.join(folder, "README"), "w") as f:
            f.write("a project\n")
        return folder

    def policy(self, name, text):
        file = self.path(name + ".json")
        with open(file, "w") as f:
            f.write(text)
        return file

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


class Watched:
    """A process whose own CPU time (all threads, not its children) and peak RSS are sampled
    from /proc every 50 ms while it runs."""

    def __init__(self, argv, env, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL):
        self.proc = subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.PIPE,
                                     stdin=stdin)
        self.cpu = 0.0
        self.peak_kb = 0
        self.err = b""
        self._stop = False
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self):
        pid = self.proc.pid
        while not self._stop:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if fields[0] == "Z":
                    break
                self.cpu = (int(fields[11]) + int(fields[12])) / TICKS
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            self.peak_kb = int(line.split()[1])
            except (OSError, IndexError, ValueError):
                break
            time.sleep(0.05)

    def wait(self, timeout=600):
        try:
            _, self.err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, self.err = self.proc.communicate()
        self._stop = True
        self._thread.join()
        return self.proc.returncode

    def stop(self):
        self._stop = True
        self.proc.terminate()
        return self.wait(30)


def run_session(world, session_id, workspace, command, options=(), stdout=None):
    """`run`: headless (the window is its only screen) unless its output is wanted."""
    argv = [CLI, "run", *([] if stdout else ["--headless"]), "--workspace", workspace,
            "--session-id", session_id, *options, "--", *command]
    return Watched(argv, world.env, stdout=stdout or subprocess.DEVNULL)


def recorded(world, session_id):
    """What the recording holds of a session: events, output bytes, exec decisions, drops."""
    with sqlite3.connect(world.db) as db:
        sid, events, output = db.execute(
            "SELECT sid, events, output_bytes FROM sessions WHERE id = ?", (session_id,)).fetchone()
        count = lambda kind: db.execute("SELECT count(*) FROM events WHERE sid = ? AND type = ?",
                                        (sid, kind)).fetchone()[0]
        return {"events": events, "output_bytes": output, "execs": count(EXEC_DECISION),
                "dropped": count(DROPPED), "network": count(NETWORK_DECISION)}


def recorded_output(world, session_id):
    """The session's terminal output as the recording gives it back (asciicast export)."""
    cast = subprocess.run([CLI, "export", "--format", "asciicast", session_id], env=world.env,
                          capture_output=True, check=True).stdout.decode(errors="replace")
    out = []
    for line in cast.splitlines()[1:]:
        event = json.loads(line)
        if event[1] == "o":
            out.append(event[2])
    return "".join(out)


def timed(argv, env=None, **kw):
    began = time.monotonic()
    result = subprocess.run(argv, env=env, **kw)
    return time.monotonic() - began, result


def mb(kb):
    return f"{kb / 1024:.1f} MB"


# L1 ----------------------------------------------------------------------------------------------
BUILD_STEPS = 150
BUILD_LOOP = (f"for i in $(seq 1 {BUILD_STEPS}); do echo \"[$i/{BUILD_STEPS}] CC src/unit$i.c\"; "
              "printf 'int f%d(void){return %d;}\\n' $i $i > unit$i.c; cp unit$i.c unit$i.o; "
              "wc -c unit$i.o >/dev/null; done; echo build-done")


def l1(world, sessions, report):
    # Reference: the same loops, unsandboxed, as many at once.
    ref_dirs = [world.workspace(f"ref{i}") for i in range(sessions)]
    began = time.monotonic()
    procs = [subprocess.Popen(["bash", "-c", BUILD_LOOP], cwd=d, stdout=subprocess.DEVNULL)
             for d in ref_dirs]
    for p in procs:
        p.wait()
    reference = time.monotonic() - began

    gui = Watched([GUI], world.env)
    time.sleep(1.0)  # the window is up and watching the runtime folder
    began = time.monotonic()
    runs = [run_session(world, f"load-build-{i}", world.workspace(f"b{i}"),
                        ["bash", "-c", BUILD_LOOP], ["--network", "none"])
            for i in range(sessions)]
    statuses = [r.wait() for r in runs]
    wall = time.monotonic() - began
    gui_alive = gui.proc.poll() is None
    gui.stop()

    complete = all(s == 0 for s in statuses)
    execs = set()
    for i in range(sessions):
        rec = recorded(world, f"load-build-{i}")
        text = recorded_output(world, f"load-build-{i}").replace("\r\n", "\n")
        lines_ok = all(f"[{n}/{BUILD_STEPS}] CC src/unit{n}.c\n" in text
                       for n in range(1, BUILD_STEPS + 1)) and "build-done" in text
        complete = complete and lines_ok and rec["dropped"] == 0
        execs.add(rec["execs"])
    complete = complete and len(execs) == 1 and min(execs) >= 2 * BUILD_STEPS and gui_alive
    cpus = [r.cpu for r in runs]
    peaks = [r.peak_kb for r in runs]
    report("L1", f"{sessions} sessions, build loop ({BUILD_STEPS} steps, "
                 f"{min(execs)} execs each), window attached",
           f"{wall:.2f} s", f"same loops unsandboxed {reference:.2f} s", f"{wall / reference:.2f}x",
           f"supervisor CPU median {statistics.median(cpus) * 1000:.0f} ms (max "
           f"{max(cpus) * 1000:.0f}), peak RSS median {mb(statistics.median(peaks))} (max "
           f"{mb(max(peaks))}); window CPU {gui.cpu:.2f} s, peak RSS {mb(gui.peak_kb)}",
           complete, [r.err.decode(errors="replace") for r in runs if r.proc.returncode != 0])


# L2 ----------------------------------------------------------------------------------------------
CLIENT = r"""
import os, socket, sys, time
n, host, port = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
via = os.environ.get("HTTP_PROXY", "")
proxy = None
if via:
    hostport = via.split("://", 1)[-1].rstrip("/")
    ph, pp = hostport.rsplit(":", 1)
    proxy = (ph, int(pp))
began = time.monotonic()
socks = []
for i in range(n):
    s = socket.create_connection(proxy or (host, port), timeout=30)
    if proxy:
        s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                sys.exit(f"connection {i}: the proxy closed it")
            head += chunk
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            sys.exit(f"connection {i}: {head[:80]!r}")
    socks.append(s)
opened = time.monotonic()
for s in socks:
    s.sendall(b"hello\n")
answered = 0
for s in socks:
    if s.recv(16) == b"ok\n":
        answered += 1
done = time.monotonic()
for s in socks:
    s.close()
print(f"open={n} answered={answered} connect_s={opened - began:.3f} exchange_s={done - opened:.3f}")
"""


class HoldingServer:
    """A server on 127.0.0.1 that answers "ok" to each "hello" and keeps the connection open
    until the client closes it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4096)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _serve(conn):
        with conn:
            while True:
                data = conn.recv(64)
                if not data:
                    return
                conn.sendall(b"ok\n")


def l2(world, connections, report):
    server = HoldingServer()
    ws = world.workspace("net")
    client = os.path.join(ws, "client.py")
    with open(client, "w") as f:
        f.write(CLIENT)
    env = dict(world.env)
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        env.pop(name, None)
    ref_wall, ref = timed(["python3", client, str(connections), "127.0.0.1", str(server.port)],
                          env=env, capture_output=True, text=True)
    policy = world.policy("net", json.dumps({
        "version": 1,
        "network": {"mode": "filtered", "default": "deny",
                    "rules": [{"action": "allow", "host": "127.0.0.1", "ports": [server.port]}]},
        "limits": {"open_files": 4096}}))
    out = tempfile.TemporaryFile()
    began = time.monotonic()
    run = run_session(world, "load-net", ws,
                      ["python3", "client.py", str(connections), "127.0.0.1", str(server.port)],
                      ["--policy", policy], stdout=out)
    status = run.wait()
    wall = time.monotonic() - began
    out.seek(0)
    said = out.read().decode(errors="replace")
    rec = recorded(world, "load-net")
    complete = (status == 0 and f"answered={connections}" in said and rec["dropped"] == 0 and
                rec["network"] >= connections)
    report("L2", f"{connections} connections at once through the proxy",
           f"{wall:.2f} s ({said.strip() or 'no output'})",
           f"direct {ref_wall:.2f} s ({ref.stdout.strip()})", f"{wall / ref_wall:.2f}x",
           f"supervisor CPU {run.cpu * 1000:.0f} ms, peak RSS {mb(run.peak_kb)}; "
           f"{rec['network']} connections recorded",
           complete, [run.err.decode(errors="replace")] if status != 0 else [])


# L3 ----------------------------------------------------------------------------------------------
def l3(world, flood_mb, report):
    line = "x" * 99  # 100 bytes a line with its newline
    lines = flood_mb * 1_000_000 // 100
    flood = f"yes {line} | head -n {lines}"
    # Reference: the same flood in a terminal without Sandbench (script(1) relays a pty).
    ref_wall, _ = timed(["script", "-qfec", flood, "/dev/null"], stdout=subprocess.DEVNULL)
    began = time.monotonic()
    run = run_session(world, "load-flood", world.workspace("flood"),
                      ["bash", "-c", "sleep 3; " + flood + "; echo flood-done"],
                      ["--network", "none"])
    # The window, opened while the session waits, shows it (it selects the running session).
    time.sleep(0.5)
    gui = Watched([GUI], world.env)
    status = run.wait()
    wall = time.monotonic() - began - 3
    gui_alive = gui.proc.poll() is None
    gui.stop()
    rec = recorded(world, "load-flood")
    expected = lines * 101 + len("flood-done\r\n")  # the recording keeps CR LF line ends
    complete = status == 0 and rec["output_bytes"] == expected and rec["dropped"] == 0 and gui_alive
    report("L3", f"{flood_mb} MB terminal flood, window attached",
           f"{wall:.2f} s", f"in a terminal without Sandbench {ref_wall:.2f} s",
           f"{wall / ref_wall:.2f}x",
           f"supervisor CPU {run.cpu:.2f} s, peak RSS {mb(run.peak_kb)}; window CPU {gui.cpu:.2f} s, peak RSS "
           f"{mb(gui.peak_kb)}; recorded {rec['output_bytes']:,} of {expected:,} bytes",
           complete, [run.err.decode(errors="replace")] if status != 0 else [])


# L4 ----------------------------------------------------------------------------------------------
def l4(world, execs, report):
    loop = f"for i in $(seq 1 {execs}); do /bin/true; done"
    ref_wall, _ = timed(["bash", "-c", loop])
    rules = [{"action": "deny", "match": f"/usr/bin/tool{i} *"} for i in range(10)]
    rules += [{"action": "ask", "match": f"deploy{i} *"} for i in range(9)]
    rules.append({"action": "allow", "match": "/bin/true"})
    policy = world.policy("rules", json.dumps({
        "version": 1, "commands": {"default": "allow", "rules": rules},
        "network": {"mode": "none"}}))
    began = time.monotonic()
    run = run_session(world, "load-execs", world.workspace("execs"), ["/bin/bash", "-c", loop],
                      ["--policy", policy], stdout=subprocess.PIPE)
    status = run.wait()
    wall = time.monotonic() - began
    rec = recorded(world, "load-execs")
    complete = status == 0 and rec["dropped"] == 0 and rec["execs"] >= execs + 1
    report("L4", f"{execs:,} execs decided by 20 rules",
           f"{wall:.2f} s ({execs / wall:,.0f} a second)", f"unsandboxed {ref_wall:.2f} s",
           f"{wall / ref_wall:.2f}x",
           f"supervisor CPU {run.cpu:.2f} s, peak RSS {mb(run.peak_kb)}; "
           f"{rec['execs']:,} exec decisions recorded",
           complete, [run.err.decode(errors="replace")] if status != 0 else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="L1,L2,L3,L4")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--flood-mb", type=int, default=100)
    parser.add_argument("--execs", type=int, default=10000)
    args = parser.parse_args()
    for program in (CLI, GUI):
        if not os.access(program, os.X_OK):
            sys.exit(f"load_bench: no {program} (cmake --build build)")
    rows, failed = [], []

    def report(row, what, figure, reference, ratio, detail, complete, errors):
        rows.append((row, what, figure, reference, ratio, detail,
                     "complete" if complete else "INCOMPLETE"))
        print(f"{row}. {what}: {figure}; reference {reference}; {ratio}; {detail}; "
              f"recording {'complete' if complete else 'INCOMPLETE'}", flush=True)
        if not complete:
            failed.append(row)
            for e in errors:
                print(e[-2000:], file=sys.stderr)

    parts = {"L1": lambda w: l1(w, args.sessions, report),
             "L2": lambda w: l2(w, args.connections, report),
             "L3": lambda w: l3(w, args.flood_mb, report),
             "L4": lambda w: l4(w, args.execs, report)}
    for name in args.only.split(","):
        world = World()
        try:
            parts[name](world)
        finally:
            world.close()
    print()
    print("| row | load | Sandbench | reference | ratio | supervisor and window | recording |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
