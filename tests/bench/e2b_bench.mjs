// Rows 6 and 6b of BENCHMARKS.md: the E2B-compatible API from the official e2b SDK.
//   6.  Sandbox.create() until the first commands.run('true') is done (the sandbox is killed
//       after, untimed), against a fresh bwrap start of /usr/bin/true in the same rounds (ABBA).
//   6b. commands.run('true') on a live sandbox, against the same bwrap start.
// node tests/bench/e2b_bench.mjs CLI ROUNDS   (run by exec_bench.sh, which sets the environment:
// XDG folders in a scratch root, BWRAP_ARGS_JSON)
import { spawn, spawnSync } from 'node:child_process';

import { importTestPackage, interleave, report, timeUs } from './bench_support.mjs';

const { Sandbox } = await importTestPackage('e2b');

const [cli, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);

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

// The sandbox is killed after the timing.
const createOnce = async () => {
  let sbx;
  const took = await timeUs(async () => {
    sbx = await Sandbox.create();
    await sbx.commands.run('true');
  });
  await sbx.kill();
  return took;
};
const live = await Sandbox.create({ timeoutMs: 600_000 });
const runOnce = () => timeUs(() => live.commands.run('true'));

report('e2b_create_first_run', rounds, await interleave(rounds, createOnce));
report('e2b_run_live', rounds, await interleave(rounds, runOnce));
await live.kill();
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
