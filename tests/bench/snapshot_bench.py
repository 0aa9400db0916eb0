#!/usr/bin/env python3
"""Snapshots (issue 24): a snapshot copies the session's layer of changes, never the project,
so it costs what the session changed. A 10,000-file project; sessions that changed 10, 100 and
1,000 of its files; each snapshotted ROUNDS times (`sandbench-cli snapshot`, the whole command),
stopped, and running (the sandbox frozen meanwhile: how long it stood still).
Reference, same run: copying the project itself (`cp -a`), what an O(project) snapshot costs.
See BENCHMARKS.md, "Snapshots".

Usage: tests/bench/snapshot_bench.py [--files 10000] [--rounds 15]
Builds nothing: $SANDBENCH_BUILD_DIR (default ./build) has app/sandbench-cli.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("SANDBENCH_BUILD_DIR", os.path.join(REPO, "build")))
CLI = os.path.join(BUILD, "app", "sandbench-cli")


def timed(argv, env):
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def running(project, changed, script, rounds, env):
    """The same changes in a running session: its supervisor freezes the sandbox for each
    snapshot; how long the command takes, and how long the sandbox stood frozen."""
    session = "running-%d" % changed
    subprocess.run([CLI, "start", "--workspace", project, "--name", session, "--network",
                    "none"], env=env, check=True, stdout=subprocess.DEVNULL)
    try:
        subprocess.run([CLI, "exec", session, "--", "bash", "-c", script], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        times, frozen = [], []
        for r in range(rounds):
            start = time.perf_counter()
            done = subprocess.run([CLI, "snapshot", session, "s%d" % r], env=env,
                                  capture_output=True, text=True)
            times.append((time.perf_counter() - start) * 1000)
            if done.returncode != 0:
                print("%4d changed files, running: %s" % (changed, done.stderr.strip()))
                return
            frozen.append(float(done.stdout.split("frozen ")[1].split(" ms")[0]))
        print("%4d changed files, running: snapshot %.2f ms [%.2f-%.2f], the sandbox frozen "
              "%.2f ms [%.2f-%.2f]" % (changed, statistics.median(times), min(times), max(times),
                                       statistics.median(frozen), min(frozen), max(frozen)))
    finally:
        subprocess.run([CLI, "stop", session], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="sandbench-snapshot-")
    try:
        env = dict(os.environ)
        for sub in ("home", "state", "data", "runtime"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        env.update(HOME=os.path.join(root, "home"), XDG_STATE_HOME=os.path.join(root, "state"),
                   XDG_DATA_HOME=os.path.join(root, "data"),
                   XDG_RUNTIME_DIR=os.path.join(root, "runtime"))
        project = os.path.join(root, "project")
        for i in range(args.files):
            folder = os.path.join(project, "src", "d%03d" % (i // 100))
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "f%05d.txt" % i), "w") as f:
                f.write("line %d\n" % i * 20)

        copies = []
        for r in range(args.rounds):
            copies.append(timed(["cp", "-a", project, os.path.join(root, "copy%d" % r)], env))
            shutil.rmtree(os.path.join(root, "copy%d" % r))
        reference = statistics.median(copies)
        print("project of %d files: cp -a %.1f ms (median of %d)" % (args.files, reference,
                                                                      args.rounds))
        for changed in (10, 100, 1000):
            session = "changed-%d" % changed
            script = "for i in $(seq 0 %d); do echo changed >> src/d$(printf %%03d $((i / 100)))/" \
                     "f$(printf %%05d $i).txt; done" % (changed - 1)
            subprocess.run([CLI, "run", "--workspace", project, "--session-id", session,
                            "--network", "none", "--", "bash", "-c", script],
                           env=env, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            times = [timed([CLI, "snapshot", session, "s%d" % r], env)
                     for r in range(args.rounds)]
            median = statistics.median(times)
            print("%4d changed files: snapshot %.2f ms [%.2f-%.2f], %.3fx the project's copy"
                  % (changed, median, min(times), max(times), median / reference))
            running(project, changed, script, args.rounds, env)
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
