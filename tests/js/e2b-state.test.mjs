// The E2B SDK against `sandbench-cli serve` (see e2b.test.mjs): what a sandbox's state becomes
// through the SDK: metrics from its cgroup, snapshots and forks, getHost(port), users other than
// its own, network rules of a create, pause and resume (also across a restart of serve).
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

import { Sandbox } from 'e2b';

import { stopServe, waitUntil } from './support.mjs';
import {
  e2bSuite, world, server, create, sandboxes, spawnServe, sessionsHaveCgroups, e2bTest,
} from './e2b-support.mjs';

e2bSuite('e2b-state.test.mjs');

describe('the E2B SDK: metrics, snapshots, fork, ports, users, network rules, pause', () => {
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
