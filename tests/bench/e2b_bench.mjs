// Rows 6 and 6b of BENCHMARKS.md: the E2B-compatible API from the official e2b SDK.
//   6.  Sandbox.create() until the first commands.run('true') is done (the sandbox is killed
//       after, untimed), against a fresh bwrap start of /usr/bin/true in the same rounds (ABBA).
//   6b. commands.run('true') on a live sandbox, against the same bwrap start.
// node tests/bench/e2b_bench.mjs CLI ROUNDS   (run by exec_bench.sh, which sets the environment:
// XDG folders in a scratch root, BWRAP_ARGS_JSON)
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../js/package.json'));
const { Sandbox } = await import(require.resolve('e2b'));

const [cli, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const bwrapArgs = JSON.parse(process.env.BWRAP_ARGS_JSON);

const server = spawn(cli, ['serve', '--preset', 'generic', '--network', 'none'], {
  stdio: ['ignore', 'pipe', 'ignore'],
});
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('\n')) resolve(out.split('\n')[0].trim());
  });
  server.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
});
process.env.E2B_API_URL = url;
process.env.E2B_SANDBOX_URL = url;
process.env.E2B_API_KEY = spawnSync(cli, ['serve', '--print-key'], { encoding: 'utf8' }).stdout.trim();

const us = (t0) => Number(process.hrtime.bigint() - t0) / 1000;
const bwrapOnce = () => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('bwrap', [...bwrapArgs, '/usr/bin/true'], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('bwrap failed');
  return us(t0);
};
const createOnce = async () => {
  const t0 = process.hrtime.bigint();
  const sbx = await Sandbox.create();
  await sbx.commands.run('true');
  const took = us(t0);
  await sbx.kill();
  return took;
};
const live = await Sandbox.create({ timeoutMs: 600_000 });
const runOnce = async () => {
  const t0 = process.hrtime.bigint();
  await live.commands.run('true');
  return us(t0);
};

// Interleaved A,B then B,A; the per-round ratios' median and quartiles.
async function interleave(measure) {
  for (let i = 0; i < 3; i++) { await measure(); bwrapOnce(); }
  const a = [], b = [], ratios = [];
  for (let r = 0; r < rounds; r++) {
    let x, y;
    if (r % 2) { y = bwrapOnce(); x = await measure(); } else { x = await measure(); y = bwrapOnce(); }
    a.push(x); b.push(y); ratios.push(x / y);
  }
  return { a, b, ratios };
}
const q = (xs, p) => {
  const v = [...xs].sort((x, y) => x - y);
  const h = (v.length - 1) * p, lo = Math.floor(h), hi = Math.min(lo + 1, v.length - 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
};
const report = (name, { a, b, ratios }) =>
  console.log(`RESULT ${name} n=${rounds} sandbench_us=${q(a, 0.5).toFixed(0)} ` +
    `p25_us=${q(a, 0.25).toFixed(0)} p75_us=${q(a, 0.75).toFixed(0)} bwrap_us=${q(b, 0.5).toFixed(0)} ` +
    `ratio=${q(ratios, 0.5).toFixed(3)},${q(ratios, 0.25).toFixed(3)},${q(ratios, 0.75).toFixed(3)}`);

report('e2b_create_first_run', await interleave(createOnce));
report('e2b_run_live', await interleave(runOnce));
await live.kill();
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
