// Row 8 of BENCHMARKS.md (issue 35): a SandboxAgent run of 20 scripted tool calls (10
// exec_command, 10 apply_patch) through the OpenAI Agents SDK's Runner, session start and end
// included, with Sandbench's client (clients/openai-agents) against the SDK's own UnixLocal
// client in the same rounds (A,B then B,A, after 2 warm-up pairs).
// node --preserve-symlinks tests/bench/agents_bench.mjs CLI [ROUNDS]
// (--preserve-symlinks: the client is linked into tests/js/node_modules and finds the SDK there.)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { importTestPackage, quantile, timeUs } from './bench_support.mjs';

const { Runner, setTracingDisabled } = await importTestPackage('@openai/agents');
const { Manifest, SandboxAgent, filesystem, shell } = await importTestPackage('@openai/agents/sandbox');
const { UnixLocalSandboxClient } = await importTestPackage('@openai/agents/sandbox/local');
const { ScriptedModel, assistantMessage, functionCall } = await importTestPackage('@openai/agents/testing');
const { SandbenchSandboxClient } = await importTestPackage('@sandbench/openai-agents');

const [cli, roundsText = '10'] = process.argv.slice(2);
if (!cli) throw new Error('usage: agents_bench.mjs CLI [ROUNDS]');
const rounds = Number(roundsText);
setTracingDisabled(true);

// Sandbench's sessions in a scratch root of their own (its XDG folders), removed at the end.
const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'agents-bench-'));
const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: path.join(root, 'home') };
for (const [name, dir] of [['XDG_STATE_HOME', 'state'], ['XDG_DATA_HOME', 'data'], ['XDG_RUNTIME_DIR', 'runtime'],
  ['XDG_CONFIG_HOME', 'config']]) {
  env[name] = path.join(root, dir);
  fs.mkdirSync(env[name], { recursive: true, mode: 0o700 });
}
fs.mkdirSync(env.HOME);
const policy = path.join(root, 'policy.json');
fs.writeFileSync(policy, JSON.stringify({ version: 1, network: { mode: 'none' }, commands: { default: 'allow' } }));

function script() {
  const turns = [];
  for (let i = 0; i < 10; i++) {
    turns.push([functionCall('exec_command', { cmd: `echo line ${i} >> log.txt && wc -l log.txt` }, { callId: `e${i}` })]);
    const operation = i === 0 ? { type: 'create_file', path: 'notes.md', diff: '+note 0\n' }
      : { type: 'update_file', path: 'notes.md', diff: `@@\n note ${i - 1}\n+note ${i}\n` };
    turns.push([{ type: 'apply_patch_call', callId: `p${i}`, status: 'completed', operation }]);
  }
  turns.push([assistantMessage('done')]);
  return turns;
}

async function runOnce(client) {
  const model = new ScriptedModel(script());
  const agent = new SandboxAgent({
    name: 'bench', instructions: 'Edit and run.', model, capabilities: [filesystem(), shell()],
    defaultManifest: new Manifest({ entries: { 'README.md': { type: 'file', content: '# bench\n' } } }),
  });
  return timeUs(async () => {
    const result = await new Runner({ tracingDisabled: true, sandbox: { client } }).run(agent, 'go', { maxTurns: 30 });
    if (result.finalOutput !== 'done') throw new Error(`the run ended with ${result.finalOutput}`);
    model.assertComplete();
  });
}

const sandbench = () => runOnce(new SandbenchSandboxClient({ cli, env, policy }));
const unixLocal = () => runOnce(new UnixLocalSandboxClient());
for (let i = 0; i < 2; i++) { await sandbench(); await unixLocal(); }
const a = [], b = [], ratios = [];
for (let r = 0; r < rounds; r++) {
  let x, y;
  if (r % 2) { y = await unixLocal(); x = await sandbench(); } else { x = await sandbench(); y = await unixLocal(); }
  a.push(x); b.push(y); ratios.push(x / y);
}
const ms = (us) => (us / 1000).toFixed(0);
console.log(`RESULT agents_runner_20_calls n=${rounds} sandbench_ms=${ms(quantile(a, 0.5))} ` +
  `unixlocal_ms=${ms(quantile(b, 0.5))} ratio=${quantile(ratios, 0.5).toFixed(2)},` +
  `${quantile(ratios, 0.25).toFixed(2)},${quantile(ratios, 0.75).toFixed(2)}`);
// The last sessions may still be ending: their supervisors go before their folders do.
for (let i = 0; i < 50; i++) {
  const listed = spawnSync(cli, ['ls', '--json'], { env, encoding: 'utf8' });
  if (listed.status !== 0 || JSON.parse(listed.stdout).length === 0) break;
  await new Promise((r) => setTimeout(r, 200));
}
fs.rmSync(root, { recursive: true, force: true });
