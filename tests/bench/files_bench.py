#!/usr/bin/env python3
"""Files in and out of a running session (issue 33, item 15e): `sandbench-cli files put` and
`files get` of one large file, against piping it through `cat` in the same session
(`exec SESSION -- sh -c 'cat > F'` with the file on stdin, `exec SESSION -- cat F` into a local
file), in the same run, interleaved ABBA after a discarded warm-up round. A ratio is the
reference's time over files' (above 1: files is faster), the median of the per-round ratios
with [p25-p75]. Every copy is checked against the original. See BENCHMARKS.md, "Files".

Usage: tests/bench/files_bench.py [--mib 256] [--rounds 5] [--quick]
Builds nothing: $SANDBENCH_BUILD_DIR (default ./build) has app/sandbench-cli.
"""
import argparse
import filecmp
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
MAX_MIB = 1024  # the protocol's upload bound is 1 GiB; the scratch space is two copies of it


def timed(argv, env, stdin=None, stdout=None):
    """Seconds `argv` took; it must succeed."""
    inp = open(stdin, "rb") if stdin else subprocess.DEVNULL
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdin=inp, stdout=out)
        return time.perf_counter() - start
    finally:
        for f in (inp, out):
            if not isinstance(f, int):
                f.close()


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="64 MiB, 2 rounds")
    args = ap.parse_args()
    if args.quick:
        args.mib, args.rounds = 64, 2
    if not 1 <= args.mib <= MAX_MIB or args.rounds < 1:
        ap.error("--mib is 1 to %d, --rounds at least 1" % MAX_MIB)
    root = tempfile.mkdtemp(prefix="sandbench-files-")
    session = "files-bench"
    env = dict(os.environ)
    try:
        for sub in ("home", "state", "data", "runtime", "project"):
            os.makedirs(os.path.join(root, sub), mode=0o700)
        env.update(HOME=os.path.join(root, "home"), XDG_STATE_HOME=os.path.join(root, "state"),
                   XDG_DATA_HOME=os.path.join(root, "data"),
                   XDG_RUNTIME_DIR=os.path.join(root, "runtime"))
        source = os.path.join(root, "source.bin")
        with open(source, "wb") as f:
            for _ in range(args.mib):
                f.write(os.urandom(1 << 20))
        back = os.path.join(root, "back.bin")
        subprocess.run([CLI, "start", "--workspace", os.path.join(root, "project"), "--name",
                        session, "--network", "none"], env=env, check=True,
                       stdout=subprocess.DEVNULL)

        def files_put():
            return timed([CLI, "files", "put", session, source, "in.bin"], env)

        def cat_put():
            return timed([CLI, "exec", session, "--", "sh", "-c", "cat > in.bin"], env,
                         stdin=source)

        def files_get():
            return timed([CLI, "files", "get", session, "in.bin", back], env)

        def cat_get():
            return timed([CLI, "exec", session, "--", "cat", "in.bin"], env, stdout=back)

        def check(what):
            if not filecmp.cmp(source, back, shallow=False):
                raise SystemExit("%s: the copy differs from the original" % what)

        ratios = {"put": [], "get": []}
        times = {k: [] for k in ("files put", "cat put", "files get", "cat get")}
        for r in range(args.rounds + 1):  # round 0 warms up and is not counted
            order = (("files", "cat") if r % 2 == 0 else ("cat", "files"))
            got = {}
            for way in order:
                got[way + " put"] = files_put() if way == "files" else cat_put()
                got[way + " get"] = files_get() if way == "files" else cat_get()
                check(way + " put and get")
                os.remove(back)
            if r == 0:
                continue
            for k, v in got.items():
                times[k].append(v)
            for op in ("put", "get"):
                ratios[op].append(got["cat " + op] / got["files " + op])

        mb = args.mib * (1 << 20) / 1e6
        print("files bench: %d MiB, %d rounds (after a warm-up), %d cores" %
              (args.mib, args.rounds, os.cpu_count()))
        for op in ("put", "get"):
            f, c = statistics.median(times["files " + op]), statistics.median(times["cat " + op])
            p25, p75 = quartiles(ratios[op])
            print("files %s: %.2f s (%.0f MB/s); exec cat: %.2f s (%.0f MB/s); ratio %.2fx "
                  "[%.2f-%.2f] (target >= 0.5x)" % (op, f, mb / f, c, mb / c,
                                                    statistics.median(ratios[op]), p25, p75))
    finally:
        subprocess.run([CLI, "kill", session], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
