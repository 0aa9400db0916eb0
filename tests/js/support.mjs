// What the JavaScript test clients share: the built CLI and whether tests can run, bounded waits,
// and a World, a fresh temp root with its own HOME and XDG folders in which the server under test
// and every `sandbench-cli` a test runs beside it (pending, approve, ls, changes) find the same
// sessions.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

export const MUST_WORK = process.env.SANDBENCH_MUST_WORK === '1';
export const CLI = process.env.SANDBENCH_CLI ? path.resolve(process.env.SANDBENCH_CLI) : '';
export const CLI_MS = 15_000; // one sandbench-cli pending/approve/ls

// The policy the tests give their sessions: no network, `rm -rf …` denied, `touch asked…` asked
// about, everything else allowed.
export const TEST_POLICY = {
  version: 1,
  network: { mode: 'none' },
  commands: {
    default: 'allow',
    rules: [
      { action: 'deny', match: 'rm -rf *' },
      { action: 'ask', match: 'touch asked*' },
    ],
  },
  approvals: { timeout_seconds: 60, on_timeout: 'deny' },
};

function whyUnavailable() {
  if (!CLI) return 'SANDBENCH_CLI is not set (the path of the built sandbench-cli)';
  try {
    fs.accessSync(CLI, fs.constants.X_OK);
  } catch (e) {
    return `SANDBENCH_CLI=${CLI} cannot be run (${e.code})`;
  }
  return '';
}
export const UNAVAILABLE = whyUnavailable();

// A test that skips (or, with SANDBENCH_MUST_WORK=1, fails) without the CLI; `describeFailure`
// adds what the servers it used said to a failure's message.
export function cliTest(name, fn, { timeout, describeFailure = () => '' } = {}) {
  test(name, { timeout }, async (t) => {
    if (UNAVAILABLE) {
      if (MUST_WORK) assert.fail(`would skip, but SANDBENCH_MUST_WORK=1: ${UNAVAILABLE}`);
      t.skip(UNAVAILABLE);
      return;
    }
    const context = {};
    try {
      await fn(t, context);
    } catch (e) {
      const notes = describeFailure(context);
      if (notes && e instanceof Error) e.message += `\n${notes}`;
      throw e;
    }
  });
}

export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Polls `check` (async, returns a truthy value when done) every `everyMs` until `ms` pass.
export async function waitUntil(check, ms, what, everyMs = 200) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() >= deadline) assert.fail(`not within ${ms} ms: ${typeof what === 'function' ? what() : what}`);
    await sleep(everyMs);
  }
}

// A promise plus whether (and how) it has settled, for waits that must notice an early end.
export function track(promise) {
  const s = { done: false, value: undefined, error: undefined };
  s.promise = promise.then(
    (v) => { s.done = true; s.value = v; return v; },
    (e) => { s.done = true; s.error = e; throw e; });
  s.promise.catch(() => {}); // observed later
  return s;
}

export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function removeTree(root) {
  // Sessions may leave read-only folders behind; make them removable first.
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop();
    try {
      fs.chmodSync(dir, 0o700);
      for (const e of fs.readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) stack.push(path.join(dir, e.name));
    } catch { /* best effort */ }
  }
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}

// A temp root: home/, workspace/ (with a README.md), xdg/{state,data,runtime,config}/, and
// policy.json beside the workspace when a policy is given. `baseEnv` is what the environment
// starts from (the variables a transport passes of its own); HOME and the XDG folders are the
// world's.
export class World {
  constructor({ policy, baseEnv = {} } = {}) {
    const base = fs.realpathSync(process.env.TMPDIR || '/tmp');
    this.root = fs.mkdtempSync(path.join(base, 'sandbench-js-'));
    this.home = path.join(this.root, 'home');
    this.workspace = path.join(this.root, 'workspace');
    this.state = path.join(this.root, 'xdg', 'state');
    this.data = path.join(this.root, 'xdg', 'data');
    this.runtime = path.join(this.root, 'xdg', 'runtime');
    this.config = path.join(this.root, 'xdg', 'config');
    this.policy = path.join(this.root, 'policy.json');
    for (const dir of [this.home, this.workspace]) fs.mkdirSync(dir, { recursive: true });
    for (const dir of [this.state, this.data, this.runtime, this.config]) {
      fs.mkdirSync(dir, { recursive: true });
      fs.chmodSync(dir, 0o700);
    }
    fs.writeFileSync(path.join(this.workspace, 'README.md'), '# a project\n');
    if (policy) fs.writeFileSync(this.policy, JSON.stringify(policy, null, 2) + '\n');
    this.env = {
      ...baseEnv,
      HOME: this.home,
      XDG_STATE_HOME: this.state,
      XDG_DATA_HOME: this.data,
      XDG_RUNTIME_DIR: this.runtime,
      XDG_CONFIG_HOME: this.config,
      PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
      LANG: process.env.LANG || 'C.UTF-8',
    };
    if (process.env.TMPDIR) this.env.TMPDIR = process.env.TMPDIR;
  }

  cli(args, timeoutMs = CLI_MS) {
    return new Promise((resolve, reject) => {
      execFile(CLI, args, {
        env: this.env, cwd: this.root, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20,
        encoding: 'utf8',
      }, (err, stdout, stderr) => {
        if (err) {
          err.message = `sandbench-cli ${args.join(' ')}: ${err.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`;
          reject(err);
        } else {
          resolve({ stdout, stderr });
        }
      });
    });
  }

  async cliJson(args) {
    const { stdout } = await this.cli(args);
    try {
      return JSON.parse(stdout);
    } catch (e) {
      assert.fail(`sandbench-cli ${args.join(' ')} printed no JSON (${e.message}):\n${stdout}`);
    }
  }

  async pendingRequests(session) {
    const list = await this.cliJson(['pending', session, '--json']);
    assert.ok(Array.isArray(list), `pending --json gave no array: ${JSON.stringify(list)}`);
    return list;
  }

  async runningSessionIds() {
    const list = await this.cliJson(['ls', '--json']);
    assert.ok(Array.isArray(list), `ls --json gave no array: ${JSON.stringify(list)}`);
    return list.map((s) => s.id);
  }

  // Waits (20 s at most) for an approval request of `session` whose JSON mentions `needle`,
  // while `call` (a track()ed promise) is still waiting; fails at once if the call ends first.
  async waitForRequest(session, needle, call) {
    let seen = [];
    return waitUntil(async () => {
      if (call.done) {
        assert.fail(`the call ended before it asked for approval: ${call.error ?? JSON.stringify(call.value)}`);
      }
      seen = await this.pendingRequests(session);
      return seen.find((r) => JSON.stringify(r).includes(needle));
    }, 20_000, () => `an approval request for "${needle}" (pending: ${JSON.stringify(seen)})`);
  }

  // Kills the sessions a failed test may have left running, then removes the root (unless
  // SANDBENCH_KEEP_TMP=1).
  async cleanUp(label) {
    const left = await this.runningSessionIds().catch(() => []);
    for (const id of left) await this.cli(['kill', id]).catch(() => {});
    if (process.env.SANDBENCH_KEEP_TMP === '1') {
      console.error(`${label}: kept ${this.root}`);
      return;
    }
    try {
      removeTree(this.root);
    } catch (e) {
      console.error(`${label}: could not remove ${this.root}: ${e.message}`);
    }
  }
}

// `sandbench-cli serve` in `world`, with `args` beside its policy: { process, url, stderr }.
export async function spawnServe(world, args = []) {
  const child = spawn(process.env.SANDBENCH_CLI, ['serve', '--policy', world.policy, ...args], {
    env: world.env, cwd: world.root, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const s = { process: child, stderr: '', url: '' };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { s.stderr += chunk; });
  child.stdout.setEncoding('utf8');
  s.url = await withTimeout(new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before it listened:\n${s.stderr}`)));
  }), 30_000, 'serve to print its URL');
  return s;
}

export async function stopServe(s) {
  const ended = new Promise((resolve) => s.process.once('exit', resolve));
  s.process.kill('SIGTERM');
  await withTimeout(ended, 20_000, 'serve to end on SIGTERM');
}
