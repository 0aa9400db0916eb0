// The E2B SDK against `sandbench-cli serve` (see e2b.test.mjs): what envd 0.6.4 unlocks (signed
// file URLs, file metadata, watch entries) and serve's spare sandboxes.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { Sandbox } from 'e2b';

import { stopServe, waitUntil } from './support.mjs';
import { e2bSuite, HOME, world, server, create, spawnServe, e2bTest } from './e2b-support.mjs';

e2bSuite('e2b-envd.test.mjs');

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
