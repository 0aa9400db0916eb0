// `sandbench-cli serve` driven by the official E2B SDK (npm `e2b`), as an application written for
// E2B drives it: unchanged calls, pointed at the server by E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY. Each sandbox is a Sandbench session; the tests check what the SDK sees and what
// Sandbench recorded (pending approvals, changes). This file: commands, files, terminals,
// approvals, listing and the sandbox's user; e2b-state.test.mjs: metrics, snapshots, fork,
// ports, network rules and pause; e2b-envd.test.mjs: signed URLs, metadata, spares.
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

import { AuthenticationError, CommandExitError, NotFoundError, Sandbox, TimeoutError } from 'e2b';

import { track, waitUntil, withTimeout } from './support.mjs';
import { e2bSuite, HOME, world, server, create, e2bTest } from './e2b-support.mjs';

e2bSuite('e2b.test.mjs');

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
});
