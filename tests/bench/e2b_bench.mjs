// Rows 6 and 6b of BENCHMARKS.md: the E2B-compatible API from the official e2b SDK.
//   6.  Sandbox.create() until the first commands.run('true') is done (the sandbox is killed
//       after, untimed), against a fresh bwrap start of /usr/bin/true in the same rounds (ABBA).
//   6b. commands.run('true') on a live sandbox, against the same bwrap start.
//   6c. The Code Interpreter SDK (@e2b/code-interpreter, when its kernel packages are installed):
//       Sandbox.create() until the first runCode('1') is done, against a fresh `python3 -c pass`.
//   6d. runCode('1') on a live context, against the same python3 start; and its floor, a warm
//       kernel asked directly with jupyter_client (kernel_floor.py, ci_kernel_direct).
// A create takes serve's spare sandbox when one is ready (docs/e2b.md, "Spare sandboxes");
// E2B_BENCH_SERVE_ARGS=--no-spare measures fresh starts. E2B_BENCH_CI_ROUNDS (default 10): the
// rounds of 6c, each a kernel's start.
// node tests/bench/e2b_bench.mjs CLI ROUNDS   (run by exec_bench.sh, which sets the environment:
// XDG folders in a scratch root, BWRAP_ARGS_JSON)
import { spawn, spawnSync } from 'node:child_process';

import { importTestPackage, interleave, pythonUs, report, timeUs } from './bench_support.mjs';

const { Sandbox } = await importTestPackage('e2b');

const [cli, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const serveArgs = (process.env.E2B_BENCH_SERVE_ARGS || '').split(' ').filter(Boolean);

const server = spawn(cli, ['serve', '--preset', 'generic', '--network', 'none', ...serveArgs], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
// serve's log, to know when a spare it starts in the background is up (see ci_run_live).
let serveLog = '';
server.stderr.on('data', (chunk) => { serveLog += chunk; });
const logged = async (text, timeoutMs) => {
  for (const end = Date.now() + timeoutMs; Date.now() < end && !serveLog.includes(text);)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return serveLog.includes(text);
};
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

// Untimed, after each create's kill: E2B_BENCH_GAP_MS (default 0, creates back to back).
const gapMs = Number(process.env.E2B_BENCH_GAP_MS || 0);
const pause = () => new Promise((resolve) => setTimeout(resolve, gapMs));
// The sandbox is killed after the timing.
const createOnce = async () => {
  let sbx;
  const took = await timeUs(async () => {
    sbx = await Sandbox.create();
    await sbx.commands.run('true');
  });
  await sbx.kill();
  await pause();
  return took;
};
const live = await Sandbox.create({ timeoutMs: 600_000 });
const runOnce = () => timeUs(() => live.commands.run('true'));

report('e2b_create_first_run', rounds, await interleave(rounds, createOnce));
report('e2b_run_live', rounds, await interleave(rounds, runOnce));
await live.kill();

const kernelThere = spawnSync('/usr/bin/python3', ['-c', 'import ipykernel, jupyter_client']).status === 0;
let ci = null;
try { ci = (await importTestPackage('@e2b/code-interpreter')).Sandbox; } catch { /* not installed */ }
if (kernelThere && ci) {
  const ciRounds = Number(process.env.E2B_BENCH_CI_ROUNDS || 10);
  const ciCreateOnce = async () => {
    let sbx;
    const took = await timeUs(async () => {
      sbx = await ci.create();
      await sbx.runCode('1');
    });
    await sbx.kill();
    await pause();
    return took;
  };
  report('ci_create_first_run', ciRounds, await interleave(ciRounds, ciCreateOnce, pythonUs), 'python');
  // The create takes serve's spare and serve starts the next one, whose kernel's start is a
  // second or two of both CPUs: the live rounds wait for it (background work of serve, not of
  // runCode), warming for 3 s untimed after serve says the spare is started.
  serveLog = '';
  const notebook = await ci.create({ timeoutMs: 600_000 });
  if (!(await logged('started ahead for template code-interpreter-v1', 60_000)) && !serveArgs.includes('--no-spare'))
    console.error('e2b_bench: serve started no spare within 60 s; measuring anyway');
  for (const end = Date.now() + 3000; Date.now() < end;) await notebook.runCode('1');
  report('ci_run_live', rounds,
    await interleave(rounds, () => timeUs(() => notebook.runCode('1')), pythonUs), 'python');
  await notebook.kill();
  // Its floor: a warm kernel asked directly, in the same run (kernel_floor.py).
  const floor = spawnSync('/usr/bin/python3', [new URL('./kernel_floor.py', import.meta.url).pathname, String(rounds)],
    { stdio: ['ignore', 'inherit', 'inherit'] });
  if (floor.status !== 0) throw new Error(`kernel_floor.py failed (${floor.status})`);
} else {
  console.log('SKIP ci_create_first_run ci_run_live: @e2b/code-interpreter or python3-ipykernel missing');
}
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
