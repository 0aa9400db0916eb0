// What the E2B SDK's test files share (e2b.test.mjs, e2b-state.test.mjs, e2b-envd.test.mjs): a
// `sandbench-cli serve` in a world of its own for the file, the SDK pointed at it by E2B_API_URL,
// E2B_SANDBOX_URL and E2B_API_KEY as an application written for E2B would be, and the sandboxes
// a test creates, killed after. e2bSuite(file) sets them up before the file's tests and takes
// them down after; `world` and `server` are then the file's (live bindings).
import { after, before } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';

import { Sandbox } from 'e2b';

import { TEST_POLICY, UNAVAILABLE, World, cliTest, spawnServe as spawnServeIn, withTimeout } from './support.mjs';



const TEST_MS = 120_000;
export const HOME = '/home/user';

export let world;
export let server; // { process, url, stderr }
export const sandboxes = []; // killed after the file's tests

async function startServer() {
  world = new World({ policy: TEST_POLICY });
  // A template whose sandboxes reach the network through the filtering proxy (the test policy's
  // have none), for the rules a create request adds. Nothing here is ever let out: every
  // destination a test names is denied.
  const templates = path.join(world.config, 'sandbench', 'templates');
  fs.mkdirSync(templates, { recursive: true });
  fs.writeFileSync(path.join(templates, 'filtered.json'), JSON.stringify({
    ...TEST_POLICY, network: { mode: 'filtered', default: 'deny', rules: [] },
  }));
  const s = await spawnServe();
  const { stdout } = await world.cli(['serve', '--print-key']);
  // What a user of the E2B SDK sets (docs/e2b.md).
  process.env.E2B_API_URL = s.url;
  process.env.E2B_SANDBOX_URL = s.url;
  process.env.E2B_API_KEY = stdout.trim();
  return s;
}

// `sandbench-cli serve` in the world, with `args` beside the test policy: { process, url, stderr }.
export const spawnServe = (args = []) => spawnServeIn(world, args);

export async function create({ template, ...opts } = {}) {
  const options = { timeoutMs: 120_000, ...opts };
  const sbx = await (template ? Sandbox.create(template, options) : Sandbox.create(options));
  sandboxes.push(sbx);
  return sbx;
}

// Whether sessions here get cgroups of their own (doctor's "cgroups" check): pausing freezes
// a sandbox's cgroup.
let cgroups;
export async function sessionsHaveCgroups() {
  if (cgroups === undefined) {
    const checks = await world.cliJson(['doctor', '--json']);
    cgroups = checks.some((c) => c.name === 'cgroups' && c.ok);
  }
  return cgroups;
}

export function e2bTest(name, fn) {
  cliTest(name, fn, {
    timeout: TEST_MS,
    describeFailure: () => (server ? `--- serve's stderr ---\n${server.stderr.slice(-6000)}` : ''),
  });
}

// Registers the file's set-up and take-down; `file` names it in what is left behind.
export function e2bSuite(file) {
  before(async () => {
    if (!UNAVAILABLE) server = await startServer();
  });

  after(async () => {
    for (const s of sandboxes) await s.kill().catch(() => {});
    if (server) {
      const ended = new Promise((resolve) => server.process.once('exit', resolve));
      server.process.kill('SIGTERM');
      await withTimeout(ended, 20_000, 'serve to end on SIGTERM').catch(() => server.process.kill('SIGKILL'));
    }
    if (world) await world.cleanUp(file);
  });
}
