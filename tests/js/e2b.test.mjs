// `sandbench-cli serve` driven by the official E2B SDK (npm `e2b`), as an application written for
// E2B drives it: unchanged calls, pointed at the server by E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY. Each sandbox is a Sandbench session; the tests check what the SDK sees and what
// Sandbench recorded (pending approvals, changes).
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

import fs from 'node:fs';
import { randomUUID } from 'node:crypto';

import { AuthenticationError, CommandExitError, NotFoundError, Sandbox, TimeoutError } from 'e2b';

import {
  TEST_POLICY, UNAVAILABLE, World, cliTest, spawnServe as spawnServeIn, stopServe, track, waitUntil, withTimeout,
} from './support.mjs';


const TEST_MS = 120_000;
const HOME = '/home/user';

let world;
let server; // { process, url, stderr }
const sandboxes = [];

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
const spawnServe = (args = []) => spawnServeIn(world, args);

async function create({ template, ...opts } = {}) {
  const options = { timeoutMs: 120_000, ...opts };
  const sbx = await (template ? Sandbox.create(template, options) : Sandbox.create(options));
  sandboxes.push(sbx);
  return sbx;
}

// Whether sessions here get cgroups of their own (doctor's "cgroups" check): pausing freezes
// a sandbox's cgroup.
let cgroups;
async function sessionsHaveCgroups() {
  if (cgroups === undefined) {
    const checks = await world.cliJson(['doctor', '--json']);
    cgroups = checks.some((c) => c.name === 'cgroups' && c.ok);
  }
  return cgroups;
}

function e2bTest(name, fn) {
  cliTest(name, fn, {
    timeout: TEST_MS,
    describeFailure: () => (server ? `--- serve's stderr ---\n${server.stderr.slice(-6000)}` : ''),
  });
}

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
  if (world) await world.cleanUp('e2b.test.mjs');
});

describe('sandbench-cli serve (the E2B SDK)', () => {
  e2bTest('Sandbox.create, then commands.run: stdout, stderr, exit code, in /home/user', async () => {
    const sbx = await create();
    assert.match(sbx.sandboxId, /^\d{8}-\d{6}-[0-9a-f]+$/, 'the sandbox id is the session id');
    // Its hosts stay on this machine (this server's port): never E2B's domain.
    assert.equal(sbx.getHost(8000), `8000-${sbx.sandboxId}.localhost:${new URL(server.url).port}`);
    const r = await sbx.commands.run('echo out; echo err >&2; pwd; echo "$HOME"');
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, `out\n${HOME}\n${HOME}\n`);
    assert.equal(r.stderr, 'err\n');
    const envs = await sbx.commands.run('echo "$GREETING" from "$(pwd)"', { envs: { GREETING: 'hi' }, cwd: '/tmp' });
    assert.equal(envs.stdout, 'hi from /tmp\n');
  });

  e2bTest('a non-zero exit is a CommandExitError with the output so far', async () => {
    const sbx = await create();
    await assert.rejects(sbx.commands.run('echo partial; exit 3'), (e) => {
      assert.ok(e instanceof CommandExitError, `not a CommandExitError: ${e}`);
      assert.equal(e.exitCode, 3);
      assert.equal(e.stdout, 'partial\n');
      return true;
    });
  });

  e2bTest('onStdout streams output as it comes', async () => {
    const sbx = await create();
    const chunks = [];
    const stamps = [];
    const r = await sbx.commands.run('for i in 1 2 3; do echo line$i; sleep 0.3; done', {
      onStdout: (data) => { chunks.push(data); stamps.push(Date.now()); },
    });
    assert.equal(r.stdout, 'line1\nline2\nline3\n');
    assert.equal(chunks.join(''), r.stdout);
    assert.ok(chunks.length >= 2, `one chunk at the end is no stream: ${JSON.stringify(chunks)}`);
    assert.ok(stamps.at(-1) - stamps[0] >= 300, 'the chunks arrived as they were printed');
  });

  e2bTest('a background command: list, sendStdin, kill, wait', async () => {
    const sbx = await create();
    const cat = await sbx.commands.run('cat', { background: true, stdin: true });
    await sbx.commands.sendStdin(cat.pid, 'through stdin\n');
    await sbx.commands.closeStdin(cat.pid);
    assert.equal((await cat.wait()).stdout, 'through stdin\n');

    const sleeper = await sbx.commands.run('sleep 60', { background: true });
    const listed = await sbx.commands.list();
    assert.ok(listed.some((p) => p.pid === sleeper.pid && p.args.includes('sleep 60')),
      `commands.list() lacks the sleeper: ${JSON.stringify(listed)}`);
    assert.equal(await sleeper.kill(), true);
    await assert.rejects(sleeper.wait(), (e) => e instanceof CommandExitError && e.exitCode === -1);
    assert.equal(await sbx.commands.kill(999_999), false, 'no such process');
  });

  e2bTest('files: write, read, list, exists, makeDir, rename, remove; changes list them', async () => {
    const sbx = await create();
    const info = await sbx.files.write(`${HOME}/notes/a.txt`, 'hello file');
    assert.equal(info.path, `${HOME}/notes/a.txt`);
    assert.equal(await sbx.files.read(`${HOME}/notes/a.txt`), 'hello file');
    assert.equal(await sbx.files.read('notes/a.txt'), 'hello file', 'relative paths are from home');
    const big = 'x'.repeat(9 << 20) + 'end'; // more than one request to the sandbox carries
    await sbx.files.write('big.txt', big);
    assert.equal((await sbx.files.read('big.txt')).length, big.length);
    const many = await sbx.files.write([{ path: 'm/one.txt', data: '1' }, { path: 'm/two.txt', data: '2' }]);
    assert.deepEqual(many.map((w) => w.path), [`${HOME}/m/one.txt`, `${HOME}/m/two.txt`]);
    const listed = await sbx.files.list(`${HOME}/notes`);
    assert.deepEqual(listed.map((e) => [e.name, e.type, e.size]), [['a.txt', 'file', 10]]);
    assert.equal(await sbx.files.exists('notes/a.txt'), true);
    assert.equal(await sbx.files.exists('nope.txt'), false);
    assert.equal(await sbx.files.makeDir('made/deep'), true);
    assert.equal(await sbx.files.makeDir('made/deep'), false, 'it exists already');
    const moved = await sbx.files.rename('notes/a.txt', 'notes/b.txt');
    assert.equal(moved.path, `${HOME}/notes/b.txt`);
    await sbx.files.remove('m');
    assert.equal(await sbx.files.exists('m/one.txt'), false);
    // What the command sees is what the files API wrote.
    assert.equal((await sbx.commands.run('cat notes/b.txt')).stdout, 'hello file');

    const { stdout } = await world.cli(['changes', sbx.sandboxId]);
    for (const line of ['A notes/b.txt', 'A big.txt', 'A made/deep'])
      assert.ok(stdout.includes(line), `changes lacks "${line}":\n${stdout}`);
    assert.ok(!stdout.includes('m/one.txt'), `a removed file is no change:\n${stdout}`);
  });

  e2bTest('two sandboxes at once see neither each other\'s files nor processes', async () => {
    const [a, b] = await Promise.all([create(), create()]);
    await a.files.write('only-a.txt', 'a');
    const sleeper = await a.commands.run('exec sleep 61', { background: true });
    assert.equal(await b.files.exists('only-a.txt'), false);
    const ps = await b.commands.run('ps -eo args');
    assert.ok(!ps.stdout.includes('sleep 61'), `b sees a's process:\n${ps.stdout}`);
    assert.ok((await a.commands.run('ps -eo args')).stdout.includes('sleep 61'));
    await sleeper.kill();
  });

  e2bTest('a command the policy denies fails, its stderr naming the rule', async () => {
    const sbx = await create();
    await sbx.files.write('victim/file.txt', 'keep me');
    await assert.rejects(sbx.commands.run('rm -rf victim'), (e) => {
      assert.ok(e instanceof CommandExitError, `not a CommandExitError: ${e}`);
      assert.notEqual(e.exitCode, 0);
      assert.match(e.stderr, /denied by the session's policy: rm -rf victim \(commands\.rules\[0\]/);
      return true;
    });
    assert.equal(await sbx.files.read('victim/file.txt'), 'keep me');
  });

  e2bTest('an ask rule holds commands.run until a second client approves', async () => {
    const sbx = await create();
    const run = track(sbx.commands.run('touch asked-once && echo made'));
    const request = await world.waitForRequest(sbx.sandboxId, 'asked-once', run);
    await world.cli(['approve', sbx.sandboxId, String(request.id), 'allow']);
    const r = await withTimeout(run.promise, 30_000, 'the approved command to finish');
    assert.equal(r.stdout, 'made\n');
    assert.equal(await sbx.files.exists('asked-once'), true);
  });

  e2bTest('getInfo, setTimeout, list, connect; kill ends it for every call', async () => {
    const sbx = await create({ metadata: { purpose: 'e2b-test' } });
    const info = await sbx.getInfo();
    assert.equal(info.sandboxId, sbx.sandboxId);
    assert.deepEqual(info.metadata, { purpose: 'e2b-test' });
    assert.ok(info.endAt > info.startedAt);
    await sbx.setTimeout(300_000);
    const later = await sbx.getInfo();
    assert.ok(later.endAt.getTime() - Date.now() > 250_000, `endAt did not move: ${later.endAt}`);
    const paginator = Sandbox.list({ query: { metadata: { purpose: 'e2b-test' } } });
    const listed = await paginator.nextItems();
    assert.deepEqual(listed.map((s) => s.sandboxId), [sbx.sandboxId]);
    const again = await Sandbox.connect(sbx.sandboxId);
    assert.equal((await again.commands.run('echo again')).stdout, 'again\n');

    assert.equal(await sbx.isRunning(), true);
    assert.equal(await sbx.kill(), true);
    assert.equal(await Sandbox.kill(sbx.sandboxId), false, 'a second kill finds nothing');
    assert.equal(await sbx.isRunning(), false);
    await assert.rejects(sbx.commands.run('true'));
    const { stdout } = await world.cli(['ls', '--json']);
    assert.ok(!JSON.parse(stdout).some((s) => s.id === sbx.sandboxId), 'its session ended');
  });

  e2bTest('a wrong API key is refused', async () => {
    await assert.rejects(Sandbox.create({ apiKey: 'sb_wrong' }), (e) => e instanceof AuthenticationError);
  });

  e2bTest('an unknown template is an error naming it', async () => {
    await assert.rejects(Sandbox.create('no-such-template'), /template 'no-such-template' not found/);
  });

  e2bTest('the sandbox\'s home is the session\'s workspace, under the workspace root', async () => {
    const sbx = await create();
    await sbx.files.write('where.txt', 'here');
    const sessions = await world.cliJson(['sessions', '--json']);
    const session = sessions.find((s) => s.id === sbx.sandboxId);
    assert.ok(session, `sessions --json lacks ${sbx.sandboxId}`);
    assert.equal(path.basename(session.workspace ?? session.project), sbx.sandboxId);
  });

  e2bTest('Sandbox.list: newest first, order, template and start filters, pages of limit', async () => {
    const tag = randomUUID();
    const older = await create({ metadata: { tag } });
    const newer = await create({ metadata: { tag } });
    const ids = (list) => list.map((s) => s.sandboxId);
    const query = { metadata: { tag } };
    assert.deepEqual(ids(await Sandbox.list({ query }).nextItems()), [newer.sandboxId, older.sandboxId]);
    assert.deepEqual(ids(await Sandbox.list({ query, order: 'asc' }).nextItems()),
      [older.sandboxId, newer.sandboxId]);

    const pages = Sandbox.list({ query, limit: 1 });
    assert.deepEqual(ids(await pages.nextItems()), [newer.sandboxId]);
    assert.equal(pages.hasNext, true);
    assert.deepEqual(ids(await pages.nextItems()), [older.sandboxId]);
    assert.equal(pages.hasNext, false);
    assert.equal(pages.nextToken, undefined);

    const { startedAt } = await newer.getInfo();
    assert.deepEqual(ids(await Sandbox.list({ query: { ...query, startedAfter: startedAt } }).nextItems()),
      [newer.sandboxId]);
    assert.deepEqual(ids(await Sandbox.list({
      query: { ...query, startedAfter: new Date(startedAt.getTime() + 1000) },
    }).nextItems()), []);
    assert.equal((await Sandbox.list({ query: { ...query, template: 'base' } }).nextItems()).length, 2);
    assert.deepEqual(await Sandbox.list({ query: { ...query, template: 'unknown-template' } }).nextItems(), []);
  });

  e2bTest('a terminal: its output is pty data, for its creator and for a later connect', async () => {
    const sbx = await create();
    let first = '';
    const decode = (bytes) => Buffer.from(bytes).toString('utf8');
    const terminal = await sbx.pty.create({ cols: 80, rows: 24, onData: (d) => { first += decode(d); } });
    await sbx.pty.sendInput(terminal.pid, new TextEncoder().encode('echo one-$((40+2))\n'));
    await waitUntil(() => first.includes('one-42'), 30_000, () => `the terminal's output: ${JSON.stringify(first)}`);

    let second = '';
    const again = await sbx.pty.connect(terminal.pid, { onData: (d) => { second += decode(d); } });
    await sbx.pty.sendInput(terminal.pid, new TextEncoder().encode('echo two-$((40+3))\n'));
    await waitUntil(() => second.includes('two-43'), 30_000, () => `the reconnect's output: ${JSON.stringify(second)}`);
    assert.equal(await sbx.pty.kill(terminal.pid), true);
    // Killed means gone when kill returns, as with envd's kill(2).
    await assert.rejects(sbx.commands.run(`kill -0 ${terminal.pid}`), (e) => e instanceof CommandExitError);
    await again.wait().catch(() => {});
    await terminal.wait().catch(() => {});
  });

  e2bTest('a command running when its sandbox is killed: the SDK says the sandbox went', async () => {
    const sbx = await create();
    const cmd = await sbx.commands.run('sleep 60', { background: true });
    await sbx.kill();
    const error = await withTimeout(cmd.wait().catch((e) => e), 30_000, 'the command\'s stream to drop');
    assert.ok(error instanceof TimeoutError, `not a TimeoutError: ${error}`);
    assert.match(error.message, /sandbox was killed or reached its end of life/);
  });

  e2bTest('gzip: true uploads are written decoded, and read back with or without it', async () => {
    const sbx = await create();
    const text = 'compressible line\n'.repeat(2000);
    const info = await sbx.files.write('packed.txt', text, { gzip: true });
    assert.equal(info.path, `${HOME}/packed.txt`);
    assert.equal(await sbx.files.read('packed.txt'), text);
    assert.equal(await sbx.files.read('packed.txt', { gzip: true }), text);
    assert.equal((await sbx.commands.run('wc -c < packed.txt')).stdout.trim(), String(text.length));
    const many = await sbx.files.writeFiles([{ path: 'g/1.txt', data: 'one' }, { path: 'g/2.txt', data: 'two' }], { gzip: true });
    assert.deepEqual(many.map((w) => w.path), [`${HOME}/g/1.txt`, `${HOME}/g/2.txt`]);
    assert.equal(await sbx.files.read('g/2.txt'), 'two');
  });

  e2bTest('getInfo of a symbolic link gives its target as an absolute path', async () => {
    const sbx = await create();
    await sbx.files.write('target.txt', 'x');
    await sbx.commands.run('ln -s target.txt link.txt && mkdir -p sub && ln -s ../target.txt sub/up.txt');
    const info = await sbx.files.getInfo('link.txt');
    assert.equal(info.name, 'link.txt');
    assert.equal(info.type, 'symlink');
    assert.equal(info.symlinkTarget, `${HOME}/target.txt`);
    assert.equal((await sbx.files.getInfo('sub/up.txt')).symlinkTarget, `${HOME}/target.txt`);
  });

  e2bTest('the sandbox\'s user is the template\'s `user`: whoami, $HOME and the owner of its files', async () => {
    const sbx = await create();
    await sbx.files.write('owned/by-sdk.txt', 'x');
    await sbx.commands.run('echo y > owned/by-command.txt');
    const info = await sbx.files.getInfo('owned/by-sdk.txt');
    assert.deepEqual([info.owner, info.group], ['user', 'user']);
    const listed = await sbx.files.list('owned');
    assert.deepEqual(listed.map((e) => [e.name, e.owner, e.group]).sort(),
      [['by-command.txt', 'user', 'user'], ['by-sdk.txt', 'user', 'user']]);
    const home = await sbx.files.getInfo(HOME);
    assert.deepEqual([home.owner, home.group], ['user', 'user']);
    // Inside, the sandbox's uid goes by the same name.
    const who = await sbx.commands.run('whoami; id -gn; echo "$HOME $USER"; stat -c "%U:%G" owned/by-sdk.txt');
    assert.equal(who.stdout, `user\nuser\n${HOME} user\nuser:user\n`);
  });

  e2bTest('watchDir: what changes in the watched folder, deeper only when recursive', async () => {
    const sbx = await create();
    await sbx.files.makeDir('w');
    const flat = [];
    const deep = [];
    const seen = (list) => list.map((e) => `${e.type} ${e.name}`);
    const flatWatch = await sbx.files.watchDir('w', (e) => flat.push(e));
    const deepWatch = await sbx.files.watchDir(`${HOME}/w`, (e) => deep.push(e), { recursive: true });
    await sbx.files.makeDir('w/sub');
    await sbx.files.write('w/new.txt', 'n');
    await sbx.files.write('w/sub/inner.txt', 'i');
    await sbx.files.write('outside.txt', 'x');
    await waitUntil(() => seen(deep).includes('create sub/inner.txt') && seen(flat).includes('create new.txt'),
      20_000, () => `the create events: ${JSON.stringify({ flat, deep })}`);
    await sbx.commands.run('mv w/new.txt w/moved.txt');
    await waitUntil(() => seen(flat).includes('create moved.txt'), 20_000,
      () => `the rename: ${JSON.stringify(flat)}`);
    await sbx.commands.run('rm w/moved.txt');
    await waitUntil(() => seen(flat).includes('remove moved.txt'), 20_000,
      () => `the removal: ${JSON.stringify(flat)}`);
    await flatWatch.stop();
    await deepWatch.stop();
    // Not the folder itself, nor what is outside it; deeper only when recursive.
    const after = ['rename new.txt', 'create moved.txt', 'remove moved.txt'];
    // A new file with content: created, then written (as envd's inotify watch has it).
    assert.deepEqual(seen(flat), ['create sub', 'create new.txt', 'write new.txt', ...after]);
    assert.deepEqual(seen(deep), ['create sub', 'create new.txt', 'write new.txt',
      'create sub/inner.txt', 'write sub/inner.txt', ...after]);
    await assert.rejects(sbx.files.watchDir('/tmp', () => {}), /watching \/tmp is not supported by Sandbench's E2B API/);
    await assert.rejects(sbx.files.watchDir('w/nope', () => {}), /not found/);
  });

  e2bTest('watchDir tells of writes as envd does: a file made with content, then a file rewritten', async () => {
    const sbx = await create();
    await sbx.files.makeDir('log');
    await sbx.files.write('log/old.txt', 'made before the watch');
    // Once a first watch has seen old.txt made, nothing of its making is still on its way.
    const early = [];
    const first = await sbx.files.watchDir('log', (e) => early.push(`${e.type} ${e.name}`));
    await waitUntil(() => early.includes('write old.txt'), 20_000, () => JSON.stringify(early));
    await first.stop();

    const events = [];
    const watch = await sbx.files.watchDir('log', (e) => events.push(e), { includeEntry: true });
    const seen = (name) => events.filter((e) => e.name === name).map((e) => e.type);
    await sbx.files.write('log/old.txt', 'rewritten while watched');
    await waitUntil(() => seen('old.txt').includes('write'), 20_000, () => JSON.stringify(events));
    await sbx.commands.run('printf abc > log/made.txt; : > log/empty.txt');
    await waitUntil(() => seen('made.txt').includes('write') && seen('empty.txt').includes('create'),
      20_000, () => JSON.stringify(events));
    await watch.stop();

    // A rewrite of a file that was there is a write, no creation; its entry is the new content's.
    assert.deepEqual(seen('old.txt'), ['write']);
    assert.equal(events.find((e) => e.name === 'old.txt').entry.size, 'rewritten while watched'.length);
    // Made with content: created, then written; made empty: only created.
    assert.deepEqual(seen('made.txt'), ['create', 'write']);
    assert.equal(events.find((e) => e.name === 'made.txt' && e.type === 'write').entry.size, 3);
    assert.deepEqual(seen('empty.txt'), ['create']);
  });

  e2bTest('what is not served says so by name, never "not found" of a running sandbox', async () => {
    const sbx = await create();
    for (const [what, call] of [
      ['PUT /sandboxes/ID/network', () => Sandbox.updateNetwork(sbx.sandboxId, { denyOut: ['0.0.0.0/0'] })],
    ]) {
      await assert.rejects(call(), (e) => {
        assert.ok(!(e instanceof NotFoundError), `${what}: a NotFoundError: ${e}`);
        assert.match(e.message, new RegExp(`${what.replace('ID', sbx.sandboxId)} is not supported`));
        return true;
      });
    }
    assert.equal(await sbx.isRunning(), true);
  });

  e2bTest('getMetrics: the CPU, memory and disk the session\'s cgroup and layer show', async () => {
    const sbx = await create();
    if (!(await sessionsHaveCgroups())) {
      // Nothing measures one session's use here: refused, saying why, never figures made up.
      await assert.rejects(sbx.getMetrics(), /no cgroup of its own to measure/);
      return;
    }
    await sbx.files.write('ballast.bin', new Uint8Array(2 << 20).fill(7));
    const holder = await sbx.commands.run(
      'exec python3 -c "import sys, time; x = bytearray(96 << 20); print(1, flush=True); time.sleep(300)"',
      { background: true });
    await waitUntil(async () => holder.stdout === '1\n', 30_000, 'the memory to be held');
    await sbx.commands.run('i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'); // some CPU
    const [m, ...more] = await sbx.getMetrics();
    assert.equal(more.length, 0, 'one reading per call');
    assert.ok(m.cpuCount >= 1, `cpuCount ${m.cpuCount}`);
    assert.ok(m.cpuUsedPct > 0 && m.cpuUsedPct <= 100, `cpuUsedPct ${m.cpuUsedPct}`);
    assert.ok(m.memUsed >= 96 << 20, `memUsed ${m.memUsed} holds the 96 MiB`);
    assert.ok(m.memTotal >= m.memUsed, `memTotal ${m.memTotal}`);
    assert.ok(m.diskUsed >= 2 << 20, `diskUsed ${m.diskUsed} holds the file written`);
    assert.ok(m.diskTotal > m.diskUsed, `diskTotal ${m.diskTotal}`);
    assert.ok(m.timestamp instanceof Date);
    const hourAgo = new Date(Date.now() - 3600_000);
    assert.deepEqual(await sbx.getMetrics({ start: hourAgo, end: new Date(hourAgo.getTime() + 60_000) }), [],
      'nothing from before the sandbox was');
    await holder.kill();
  });

  e2bTest('createSnapshot: a sandbox from it starts with the files as they were; list and delete it', async () => {
    const sbx = await create({ envs: { FROM: 'original' } });
    await sbx.files.write('state.txt', 'at the snapshot');
    const name = `snap-${randomUUID().slice(0, 8)}`;
    if (!(await sessionsHaveCgroups())) {
      // Nothing can freeze a running sandbox for a whole copy: refused, saying why.
      await assert.rejects(sbx.createSnapshot({ name }), /snapshot of sandbox .*(freeze|cgroup)/);
      return;
    }
    const snap = await sbx.createSnapshot({ name });
    assert.deepEqual(snap, { snapshotId: `${sbx.sandboxId}:${name}`, names: [name] });
    await sbx.files.write('state.txt', 'later');

    const copy = await create({ template: snap.snapshotId });
    assert.notEqual(copy.sandboxId, sbx.sandboxId);
    assert.equal(await copy.files.read('state.txt'), 'at the snapshot');
    assert.equal((await copy.commands.run('echo $FROM')).stdout, 'original\n', 'the envs go with it');
    await copy.files.write('state.txt', 'in the copy');
    assert.equal(await sbx.files.read('state.txt'), 'later', 'the copy is a sandbox of its own');

    const ids = async (paginator) => (await paginator.nextItems()).map((s) => s.snapshotId);
    assert.ok((await ids(Sandbox.listSnapshots())).includes(snap.snapshotId));
    assert.deepEqual(await ids(Sandbox.listSnapshots({ name })), [snap.snapshotId]);
    assert.deepEqual(await ids(sbx.listSnapshots()), [snap.snapshotId]);
    assert.deepEqual(await ids(Sandbox.listSnapshots({ name: `${name}-none` })), []);
    await assert.rejects(sbx.createSnapshot({ name }), /already/, 'a name is taken once');
    const { stdout } = await world.cli(['snapshots', sbx.sandboxId]);
    assert.ok(stdout.includes(name), `the session's own snapshots list it:\n${stdout}`);

    assert.equal(await Sandbox.deleteSnapshot(snap.snapshotId), true);
    assert.equal(await Sandbox.deleteSnapshot(snap.snapshotId), false);
    assert.ok(!(await world.cli(['snapshots', sbx.sandboxId])).stdout.includes(name));
  });

  e2bTest('fork: sandboxes that start with the files as they are; the original runs on', async () => {
    const sbx = await create();
    await sbx.files.write('state.txt', 'before the fork');
    if (!(await sessionsHaveCgroups())) {
      await assert.rejects(sbx.fork(), /fork of sandbox .*(freeze|cgroup)/);
      return;
    }
    const forks = await sbx.fork({ count: 2 });
    assert.equal(forks.length, 2);
    for (const f of forks) {
      assert.ok(f instanceof Sandbox, `a fork failed: ${f}`);
      sandboxes.push(f);
    }
    assert.equal(new Set([sbx.sandboxId, ...forks.map((f) => f.sandboxId)]).size, 3);
    assert.equal(await forks[0].files.read('state.txt'), 'before the fork');
    await forks[0].files.write('state.txt', 'in a fork');
    assert.equal(await forks[1].files.read('state.txt'), 'before the fork');
    assert.equal(await sbx.files.read('state.txt'), 'before the fork');
    assert.equal(await sbx.isRunning(), true);
    const { stdout } = await world.cli(['snapshots', sbx.sandboxId]);
    assert.ok(!stdout.includes('e2b-fork-'), `the fork's snapshot went:\n${stdout}`);
    await assert.rejects(Sandbox.fork('no-such-sandbox'), /not found/);
  });

  e2bTest('getHost(port): its name reaches the server listening on that port in the sandbox', async () => {
    const sbx = await create();
    const host = sbx.getHost(8000);
    assert.equal(host, `8000-${sbx.sandboxId}.localhost:${new URL(server.url).port}`);
    await sbx.files.write('site/index.html', 'served from the sandbox');
    const web = await sbx.commands.run('cd site && exec python3 -m http.server 8000', { background: true });
    // *.localhost is this machine (RFC 6761): Node asks the system's resolver, which knows it
    // with nss-myhostname (the tests' dependencies; `sandbench-cli doctor` says when it does not).
    const get = async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    let page;
    await waitUntil(async () => {
      page = await get(`http://${host}/index.html?q=1`);
      return page.status === 200; // a 502 until the server in the sandbox listens
    }, 30_000, 'the server in the sandbox to answer');
    assert.equal(page.body, 'served from the sandbox');
    assert.match(page.type, /^text\/html/);
    const { stdout } = await world.cli(['ports', sbx.sandboxId]);
    assert.match(stdout, /8000 .*exposed at http:\/\/127\.0\.0\.1:\d+/, 'it is the session\'s port preview');
    const closed = await get(`http://${sbx.getHost(8001)}/`);
    assert.equal(closed.status, 502, 'nothing listens on 8001');
    assert.match(JSON.parse(closed.body).message, /port 8001 answers no HTTP/);
    await web.kill();
    await sbx.kill();
    const gone = await get(`http://${host}/`);
    assert.equal(gone.status, 502);
    assert.equal(JSON.parse(gone.body).message, 'The sandbox was not found');
  });

  e2bTest('a user other than the sandbox\'s own is refused by name, not ignored', async () => {
    const sbx = await create();
    await sbx.files.write('mine.txt', 'x');
    await assert.rejects(sbx.commands.run('whoami', { user: 'root' }), /user 'root' is not supported/);
    await assert.rejects(sbx.files.read('mine.txt', { user: 'root' }), /user 'root' is not supported/);
    assert.equal((await sbx.commands.run('echo as-user', { user: 'user' })).stdout, 'as-user\n');
    assert.equal(await sbx.files.read('mine.txt', { user: 'user' }), 'x');
  });

  e2bTest('network.denyOut and allowOut become the sandbox\'s network rules', async () => {
    const sbx = await create({ template: 'filtered', network: { allowOut: ['allowed.test'], denyOut: ['0.0.0.0/0'] } });
    assert.deepEqual((await sbx.getInfo()).network?.denyOut, ['0.0.0.0/0']);
    // The proxy refuses before any lookup: nothing leaves this machine.
    const r = await sbx.commands.run('curl -s -x "$HTTP_PROXY" http://denied.test/');
    assert.match(r.stdout, /denied\.test port 80 denied by rule \d+ \(deny \*: network\.denyOut\)/);
    await assert.rejects(create({ network: { allowOut: ['allowed.test'] } }),
      /network\.allowOut cannot apply: .*mode none/, 'a template without a network cannot allow');
    await assert.rejects(create({ network: { allowOut: ['not a host'] } }), /network\.allowOut\[0\] 'not a host'/);
  });

  e2bTest('pause freezes a sandbox, lists it paused; connect resumes it with its processes and files', async () => {
    const sbx = await create({ metadata: { paused: 'yes' } });
    await sbx.files.write('kept.txt', 'still here');
    const sleeper = await sbx.commands.run('exec sleep 300', { background: true });
    if (!(await sessionsHaveCgroups())) {
      // Nothing to freeze it with: refused, saying so; it goes on running.
      await assert.rejects(sbx.pause(), /cannot be paused: .*no cgroup of its own/);
      assert.equal(await sbx.isRunning(), true);
      return;
    }
    assert.equal(await sbx.pause(), true);
    assert.equal(await sbx.pause(), false, 'a paused sandbox is paused already');
    assert.equal((await sbx.getInfo()).state, 'paused');
    const listed = await Sandbox.list({ query: { metadata: { paused: 'yes' }, state: ['paused'] } }).nextItems();
    assert.deepEqual(listed.map((s) => [s.sandboxId, s.state]), [[sbx.sandboxId, 'paused']]);
    assert.deepEqual(await Sandbox.list({ query: { metadata: { paused: 'yes' }, state: ['running'] } }).nextItems(), []);
    assert.equal(await sbx.isRunning(), false, 'a paused sandbox does not run');

    const resumed = await Sandbox.connect(sbx.sandboxId);
    assert.equal((await resumed.getInfo()).state, 'running');
    assert.equal(await resumed.files.read('kept.txt'), 'still here');
    assert.ok((await resumed.commands.list()).some((p) => p.pid === sleeper.pid), 'its processes were frozen, not ended');
    assert.equal((await resumed.commands.run('echo awake')).stdout, 'awake\n');
    await sleeper.kill();
  });

  e2bTest('a paused sandbox stopped from outside (sandbench-cli stop, the window) ends', async () => {
    if (!(await sessionsHaveCgroups())) return; // nothing pauses here (the test above says so)
    const sbx = await create();
    await sbx.commands.run('exec sleep 300', { background: true });
    assert.equal(await sbx.pause(), true);
    // Frozen, its processes would never see the stop signal: the session thaws it first.
    await world.cli(['stop', sbx.sandboxId]);
    await waitUntil(async () => !(await world.runningSessionIds()).includes(sbx.sandboxId), 30_000,
      'the paused session to end');
    await assert.rejects(Sandbox.getInfo(sbx.sandboxId), /not found/);
  });

  e2bTest('lifecycle.onTimeout \'pause\': the sandbox is paused at its timeout, not killed', async () => {
    if (!(await sessionsHaveCgroups())) {
      // Nothing to freeze it with: refused when asked for, not found impossible at the timeout.
      await assert.rejects(create({ timeoutMs: 1000, lifecycle: { onTimeout: 'pause' } }),
        /lifecycle\.onTimeout 'pause' cannot be honoured here: .*no cgroup of its own/);
      return;
    }
    const sbx = await create({ lifecycle: { onTimeout: 'pause' } });
    await sbx.files.write('kept.txt', 'x');
    await sbx.setTimeout(1000); // its timeout comes only once the file is written
    await waitUntil(async () => (await sbx.getInfo()).state === 'paused', 30_000, 'the sandbox to be paused at its timeout');
    const resumed = await Sandbox.connect(sbx.sandboxId, { timeoutMs: 60_000 });
    assert.equal(await resumed.files.read('kept.txt'), 'x');
  });

  e2bTest('a paused sandbox outlives a restart of serve: listed paused, resumed with its files', async () => {
    if (!(await sessionsHaveCgroups())) return; // nothing pauses here (the test above says so)
    // A server of its own, so that stopping it leaves the other tests' sandboxes alone.
    const args = ['--workspace-root', path.join(world.root, 'restart-ws')];
    let s = await spawnServe(args);
    const at = (url) => ({ apiUrl: url, sandboxUrl: url });
    try {
      const sbx = await Sandbox.create({ ...at(s.url), timeoutMs: 120_000, metadata: { kept: 'yes' } });
      await sbx.files.write('notes/kept.txt', 'across restarts');
      assert.equal(await sbx.pause(), true);
      await stopServe(s);
      s = await spawnServe(args);

      const listed = await Sandbox.list({ ...at(s.url), query: { metadata: { kept: 'yes' } } }).nextItems();
      assert.deepEqual(listed.map((x) => [x.sandboxId, x.state]), [[sbx.sandboxId, 'paused']]);
      const resumed = await Sandbox.connect(sbx.sandboxId, { ...at(s.url), timeoutMs: 60_000 });
      assert.equal(resumed.sandboxId, sbx.sandboxId);
      assert.equal(await resumed.files.read('notes/kept.txt'), 'across restarts');
      assert.equal((await resumed.commands.run('cat notes/kept.txt')).stdout, 'across restarts');
      // The changes stay one reviewable workspace under the sandbox's id.
      const { stdout } = await world.cli(['changes', sbx.sandboxId]);
      assert.ok(stdout.includes('A notes/kept.txt'), `changes lacks the kept file:\n${stdout}`);
      assert.equal(await resumed.kill(), true);
    } finally {
      await stopServe(s).catch(() => s.process.kill('SIGKILL'));
    }
  });
});

describe('signed file URLs, file metadata and watch entries (envd 0.6.4)', () => {
  // A request with nothing but the URL: no token, no sandbox header, as a browser or curl sends it.
  const bare = (url, init) => fetch(url, init);
  const form = (text) => { const f = new FormData(); f.append('file', text); return f; };

  e2bTest('a signed download or upload URL works without the token, until it expires', async () => {
    const sbx = await create({ secure: true });
    await sbx.files.write('shared/report.txt', 'quarterly numbers');
    const down = await sbx.downloadUrl('shared/report.txt', { useSignatureExpiration: 120 });
    assert.ok(new URL(down).searchParams.get('signature')?.startsWith('v1_'), down);
    const got = await bare(down);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'quarterly numbers');
    // Without an expiration a URL stays good as long as its sandbox runs.
    assert.equal(await (await bare(await sbx.downloadUrl(`${HOME}/shared/report.txt`))).text(), 'quarterly numbers');

    const up = await sbx.uploadUrl('from-outside.txt', { useSignatureExpiration: 120 });
    const put = await bare(up, { method: 'POST', body: form('sent by URL') });
    assert.equal(put.status, 200);
    assert.deepEqual(await put.json(), [{ name: 'from-outside.txt', type: 'file', path: `${HOME}/from-outside.txt` }]);
    assert.equal(await sbx.files.read('from-outside.txt'), 'sent by URL');
  });

  e2bTest('an expired, altered or misused signature is a 401 and does nothing', async () => {
    const sbx = await create();
    const other = await create();
    await sbx.files.write('secret.txt', 'only for the signed');
    const refused = async (url, init, message) => {
      const r = await bare(url, init);
      assert.equal(r.status, 401, `${url} was let through`);
      assert.deepEqual(await r.json(), { code: 401, message });
    };
    await refused(await sbx.downloadUrl('secret.txt', { useSignatureExpiration: -30 }), undefined,
      'signature is already expired');
    await refused(await sbx.uploadUrl('late.txt', { useSignatureExpiration: -30 }),
      { method: 'POST', body: form('late') }, 'signature is already expired');

    const good = new URL(await sbx.downloadUrl('secret.txt', { useSignatureExpiration: 120 }));
    const altered = (change) => { const u = new URL(good); change(u.searchParams); return u.toString(); };
    await refused(altered((q) => q.set('path', 'other.txt')), undefined, 'invalid signature');
    await refused(altered((q) => q.set('signature_expiration', String(Number(q.get('signature_expiration')) + 3600))),
      undefined, 'invalid signature');
    await refused(altered((q) => q.set('signature', `${q.get('signature').slice(0, -2)}AA`)), undefined, 'invalid signature');
    // A URL to read is no URL to write.
    await refused(good.toString(), { method: 'POST', body: form('overwritten') }, 'invalid signature');
    assert.equal(await sbx.files.read('secret.txt'), 'only for the signed');
    // Signed by one sandbox, sent to another.
    await refused(good.toString(), { headers: { 'E2b-Sandbox-Id': other.sandboxId } }, 'invalid signature');
    assert.equal(await other.files.exists('late.txt'), false);
    assert.equal(await sbx.files.exists('late.txt'), false);
    // No signature and no token: refused too.
    const plain = new URL(good);
    plain.searchParams.delete('signature');
    plain.searchParams.delete('signature_expiration');
    assert.equal((await bare(plain.toString(), { headers: { 'E2b-Sandbox-Id': sbx.sandboxId } })).status, 401);
    // A killed sandbox's URLs end with it.
    await sbx.kill();
    await refused(good.toString(), undefined, 'invalid signature');
  });

  e2bTest('metadata written with a file are its metadata: getInfo, list, rename; a rewrite drops them', async () => {
    const sbx = await create();
    assert.equal((await sbx.getInfo()).envdVersion, '0.6.4');
    const tags = { author: 'ada', stage: 'draft' };
    const info = await sbx.files.write('docs/plan.md', '# plan', { metadata: tags });
    assert.deepEqual(info.metadata, tags);
    assert.deepEqual((await sbx.files.getInfo('docs/plan.md')).metadata, tags);
    const streamed = await sbx.files.write('docs/raw.bin', 'raw', { metadata: { kind: 'raw' }, useOctetStream: true });
    assert.deepEqual(streamed.metadata, { kind: 'raw' });
    const listed = await sbx.files.list('docs');
    assert.deepEqual(Object.fromEntries(listed.map((e) => [e.name, e.metadata])),
      { 'plan.md': tags, 'raw.bin': { kind: 'raw' } });
    const moved = await sbx.files.rename('docs/plan.md', 'docs/final.md');
    assert.deepEqual(moved.metadata, tags);
    const rewritten = await sbx.files.write('docs/final.md', '# final');
    assert.equal(rewritten.metadata, undefined);
    assert.equal((await sbx.files.getInfo('docs/final.md')).metadata, undefined);

    const many = await sbx.files.writeFiles([{ path: 'm/a.txt', data: 'a' }, { path: 'm/b.txt', data: 'b' }],
      { metadata: { batch: '7' } });
    assert.deepEqual(many.map((f) => f.metadata), [{ batch: '7' }, { batch: '7' }]);
    // What a process in the sandbox sets under user.e2b. is metadata as well.
    await sbx.commands.run(`python3 -c "import os; os.setxattr('m/a.txt', 'user.e2b.checked', b'yes')"`);
    assert.deepEqual((await sbx.files.getInfo('m/a.txt')).metadata, { batch: '7', checked: 'yes' });
    // The metadata travel as headers: a raw request with a bad one is refused by name.
    const r = await fetch(`${process.env.E2B_SANDBOX_URL}/files?path=bad.txt`, {
      method: 'POST',
      headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'X-Access-Token': sbx.envdAccessToken ?? '',
        'Content-Type': 'application/octet-stream', 'X-Metadata-Note': 'x'.repeat(5000) },
      body: 'x',
    });
    assert.equal(r.status, 400);
    assert.match((await r.json()).message, /metadata/);
    assert.equal(await sbx.files.exists('bad.txt'), false);
  });

  e2bTest('watchDir with includeEntry: an event of a path still there carries its entry', async () => {
    const sbx = await create();
    await sbx.files.makeDir('inbox');
    const events = [];
    const watch = await sbx.files.watchDir('inbox', (e) => events.push(e),
      { includeEntry: true, allowNetworkMounts: true });
    const seen = () => events.map((e) => `${e.type} ${e.name}`);
    await sbx.files.write('inbox/report.csv', 'a,b\n1,2\n', { metadata: { source: 'watch' } });
    await waitUntil(() => seen().includes('create report.csv'), 20_000, () => JSON.stringify(events));
    await sbx.commands.run('mv inbox/report.csv inbox/final.csv');
    await waitUntil(() => seen().includes('create final.csv'), 20_000, () => JSON.stringify(events));
    await sbx.commands.run('rm inbox/final.csv');
    await waitUntil(() => seen().includes('remove final.csv'), 20_000, () => JSON.stringify(events));
    await watch.stop();

    const created = events.find((e) => e.type === 'create' && e.name === 'report.csv');
    assert.equal(created.entry.path, `${HOME}/inbox/report.csv`);
    assert.equal(created.entry.type, 'file');
    assert.equal(created.entry.size, 8);
    assert.equal(created.entry.owner, 'user');
    assert.deepEqual(created.entry.metadata, { source: 'watch' });
    assert.equal(events.find((e) => e.name === 'final.csv' && e.type === 'create').entry.name, 'final.csv');
    // What is gone has no entry: the old name of a rename, a removal.
    assert.equal(events.find((e) => e.type === 'rename').entry, undefined);
    assert.equal(events.find((e) => e.type === 'remove').entry, undefined);
  });
});

describe('spare sandboxes: serve starts the next one ahead (docs/e2b.md, "Spare sandboxes")', () => {
  const at = (url) => ({ apiUrl: url, sandboxUrl: url });
  // The ids serve's log names as spares started so far.
  const spares = (s) => [...s.stderr.matchAll(/spare sandbox (\S+) started ahead/g)].map((m) => m[1]);

  e2bTest('two creates get two sandboxes with nothing shared; the spare gets its create\'s envs and metadata', async () => {
    // A server of its own, so that its spares are told apart from the other tests' sessions.
    const s = await spawnServe(['--workspace-root', path.join(world.root, 'spare-ws')]);
    try {
      const first = await Sandbox.create({ ...at(s.url), timeoutMs: 120_000, envs: { WHO: 'first' }, metadata: { n: '1' } });
      await first.files.write('notes/secret.txt', 'only the first');
      await first.commands.run('echo mark > /tmp/mark');
      await waitUntil(() => spares(s).length >= 1, 30_000, 'the spare to start');
      const [spare] = spares(s);
      // Until a create takes it, the spare is a session (ls shows it), not a sandbox.
      assert.ok((await world.runningSessionIds()).includes(spare));
      const before = await Sandbox.list(at(s.url)).nextItems();
      assert.deepEqual(before.map((x) => x.sandboxId), [first.sandboxId]);
      await assert.rejects(Sandbox.getInfo(spare, at(s.url)), /not found/);

      const second = await Sandbox.create({ ...at(s.url), timeoutMs: 120_000, envs: { WHO: 'second' }, metadata: { n: '2' } });
      assert.equal(second.sandboxId, spare, 'the second create took the spare');
      assert.notEqual(second.sandboxId, first.sandboxId);
      assert.equal(await second.files.exists('notes/secret.txt'), false);
      assert.equal((await second.commands.run('test -e /tmp/mark || echo absent')).stdout, 'absent\n');
      assert.equal((await second.commands.run('echo $WHO')).stdout, 'second\n');
      assert.equal((await first.commands.run('echo $WHO')).stdout, 'first\n');
      assert.deepEqual((await second.getInfo()).metadata, { n: '2' });
      assert.notEqual(second.envdAccessToken, first.envdAccessToken);
      // The next spare starts; serve's end stops every one, claimed or not.
      await waitUntil(() => spares(s).length >= 2, 30_000, 'the next spare to start');
      await stopServe(s);
      const running = await world.runningSessionIds();
      for (const id of [first.sandboxId, ...spares(s)]) assert.ok(!running.includes(id), `${id} still runs`);
    } finally {
      await stopServe(s).catch(() => s.process.kill('SIGKILL'));
    }
  });

  e2bTest('serve --no-spare starts none; an option of another name is refused by name', async () => {
    const s = await spawnServe(['--no-spare', '--workspace-root', path.join(world.root, 'nospare-ws')]);
    try {
      const one = await Sandbox.create({ ...at(s.url), timeoutMs: 60_000 });
      const two = await Sandbox.create({ ...at(s.url), timeoutMs: 60_000 });
      assert.notEqual(one.sandboxId, two.sandboxId);
      assert.equal((await two.commands.run('true')).exitCode, 0);
      assert.deepEqual(spares(s), []);
      assert.doesNotMatch(s.stderr, /spare/);
    } finally {
      await stopServe(s).catch(() => s.process.kill('SIGKILL'));
    }
    await assert.rejects(world.cli(['serve', '--no-spares']), /not expected: --no-spares/);
  });
});
