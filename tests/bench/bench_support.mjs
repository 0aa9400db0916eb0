// What the Node benchmarks share (mcp_bench.mjs, e2b_bench.mjs): the SDKs from tests/js, a fresh
// bwrap start as the reference, and rounds interleaved against it (A,B then B,A) with the median
// and quartiles of the per-round ratios, as BENCHMARKS.md reports them.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../js/package.json'));

/** A package installed for the test clients (tests/js/node_modules). */
export function importTestPackage(specifier) {
  return import(require.resolve(specifier));
}

const us = (t0) => Number(process.hrtime.bigint() - t0) / 1000;

/** Microseconds of `await fn()`. */
export async function timeUs(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return us(t0);
}

/** Microseconds of a fresh `bwrap … /usr/bin/true` (BWRAP_ARGS_JSON, set by exec_bench.sh). */
export function bwrapUs() {
  const args = JSON.parse(process.env.BWRAP_ARGS_JSON);
  const t0 = process.hrtime.bigint();
  const r = spawnSync('bwrap', [...args, '/usr/bin/true'], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('bwrap failed');
  return us(t0);
}

export function quantile(xs, p) {
  const v = [...xs].sort((x, y) => x - y);
  const h = (v.length - 1) * p, lo = Math.floor(h), hi = Math.min(lo + 1, v.length - 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
}

/** Microseconds of a fresh `python3 -c pass` (the Code Interpreter's reference). */
export function pythonUs() {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/python3', ['-c', 'pass'], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('python3 failed');
  return us(t0);
}

/** `rounds` of `measure` (async, microseconds) against `reference` (bwrapUs()), after 3 warm-up
 *  pairs. */
export async function interleave(rounds, measure, reference = bwrapUs) {
  for (let i = 0; i < 3; i++) { await measure(); reference(); }
  const a = [], b = [], ratios = [];
  for (let r = 0; r < rounds; r++) {
    let x, y;
    if (r % 2) { y = reference(); x = await measure(); } else { x = await measure(); y = reference(); }
    a.push(x); b.push(y); ratios.push(x / y);
  }
  return { a, b, ratios };
}

/** "RESULT name n=… sandbench_us=… p25_us p75_us bwrap_us ratio=median,p25,p75" (`ref`: the
 *  reference's name in place of bwrap) */
export function report(name, rounds, { a, b, ratios }, ref = 'bwrap') {
  const f = (x) => x.toFixed(0);
  console.log(`RESULT ${name} n=${rounds} sandbench_us=${f(quantile(a, 0.5))} ` +
    `p25_us=${f(quantile(a, 0.25))} p75_us=${f(quantile(a, 0.75))} ${ref}_us=${f(quantile(b, 0.5))} ` +
    `ratio=${quantile(ratios, 0.5).toFixed(3)},${quantile(ratios, 0.25).toFixed(3)},${quantile(ratios, 0.75).toFixed(3)}`);
}
