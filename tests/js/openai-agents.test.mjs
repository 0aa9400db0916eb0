// The OpenAI Agents client (clients/openai-agents) driven by the real @openai/agents SDK: a
// SandboxAgent with the shell and filesystem capabilities, its model the SDK's own offline
// ScriptedModel (no network, no API key), its sandbox a real Sandbench session. The tests check
// what the model reads back and what Sandbench recorded; also, in their own words, what the
// SDK's own tests for its sandbox clients check (docs/openai-agents.md, "Measured against the
// SDK's own tests"), its integration smoke test's scenario, and issue 35's fixes: no secret in
// saved state, the SDK's file modes, links refused as host sources, approvals answered by the
// application.
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { RunState, Runner, run as runAgent, setTracingDisabled, tool } from '@openai/agents';
import {
  EnvValueReference, InMemoryRemoteSnapshotStore, Manifest, SandboxAgent, SandboxConfigurationError,
  SandboxUnsupportedFeatureError, dir, file, filesystem, registerEnvValueReference, shell, urlForExposedPort,
} from '@openai/agents/sandbox';
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents/testing';
import { SandbenchSandboxClient } from '@sandbench/openai-agents';

import { CLI, TEST_POLICY, World, cliTest, track, waitUntil, withTimeout } from './support.mjs';

setTracingDisabled(true);
delete process.env.OPENAI_API_KEY;


const TEST_MS = 120_000;
let world;

function getWorld() {
  world ??= new World({ policy: TEST_POLICY });
  return world;
}

after(async () => {
  if (world) await world.cleanUp('openai-agents.test.mjs');
});

function client(extra = {}) {
  const w = getWorld();
  return new SandbenchSandboxClient({ cli: CLI, env: w.env, policy: w.policy, ...extra });
}

function patch(callId, operation) {
  return { type: 'apply_patch_call', callId, status: 'completed', operation };
}

// What the model was given back for each of its tool calls, by call id.
function toolOutputs(model) {
  const out = new Map();
  for (const call of model.calls)
    for (const item of Array.isArray(call.request.input) ? call.request.input : [])
      if (item.type === 'function_call_result' || item.type === 'apply_patch_call_output')
        out.set(item.callId, { status: item.status, text: typeof item.output === 'string' ? item.output : item.output?.text ?? JSON.stringify(item.output) });
  return out;
}

async function run(model, sandbox, manifest) {
  const agent = new SandboxAgent({
    name: 'sandbench-test-agent',
    instructions: 'Fix the tests.',
    model,
    capabilities: [filesystem(), shell()],
    defaultManifest: manifest ?? new Manifest({ entries: { 'README.md': file({ content: '# a project\n' }) } }),
  });
  return new Runner({ tracingDisabled: true, sandbox }).run(agent, 'go');
}

// The one session the run started: the newest of `sessions --json`.
async function newestSession() {
  const sessions = await getWorld().cliJson(['sessions', '--json']);
  return sessions.sort((a, b) => b.started_ns - a.started_ns)[0];
}

function agentsTest(name, fn) {
  cliTest(name, fn, { timeout: TEST_MS });
}

describe('the Sandbench client of the OpenAI Agents SDK', () => {
  agentsTest('a SandboxAgent writes a file, runs a failing test, fixes it, runs it again', async () => {
    const model = new ScriptedModel([
      [
        patch('p1', { type: 'create_file', path: 'calc.py', diff: '+def add(a, b):\n+    return a - b\n' }),
        patch('p2', { type: 'create_file', path: 'test_calc.py',
          diff: '+from calc import add\n+assert add(2, 3) == 5, add(2, 3)\n+print("PASS")\n' }),
      ],
      [functionCall('exec_command', { cmd: 'python3 test_calc.py' }, { callId: 'e1' })],
      // (A line of another length: Python's bytecode cache goes by size and whole seconds.)
      [patch('p3', { type: 'update_file', path: 'calc.py', diff: '@@\n def add(a, b):\n-    return a - b\n+    return a + b  # fixed\n' })],
      [functionCall('exec_command', { cmd: 'python3 test_calc.py && pwd && echo "$GREETING"' }, { callId: 'e2' })],
      [assistantMessage('Fixed add().')],
    ]);
    const manifest = new Manifest({
      entries: { 'README.md': file({ content: '# a project\n' }), docs: dir({ children: { 'notes.txt': file({ content: 'n\n' }) } }) },
      environment: { GREETING: 'hello from the manifest' },
    });
    const result = await run(model, { client: client() }, manifest);
    assert.equal(result.finalOutput, 'Fixed add().');
    model.assertComplete();

    const outputs = toolOutputs(model);
    for (const id of ['p1', 'p2', 'p3']) assert.equal(outputs.get(id)?.status, 'completed', `${id}: ${outputs.get(id)?.text}`);
    assert.match(outputs.get('e1').text, /Process exited with code 1/);
    assert.match(outputs.get('e1').text, /AssertionError: -1/);
    assert.match(outputs.get('e2').text, /Process exited with code 0/);
    assert.match(outputs.get('e2').text, /PASS\n\/workspace\nhello from the manifest/);

    // What the session recorded and holds for review.
    // The client stops the session it started (its supervisor then finishes the recording).
    const session = await waitUntil(async () => {
      const newest = await newestSession();
      return newest.state === 'ended' && newest;
    }, 20_000, 'the session to end');
    const { stdout: changes } = await getWorld().cli(['changes', session.id]);
    for (const line of ['A calc.py', 'A test_calc.py', 'A README.md', 'A docs/notes.txt'])
      assert.ok(changes.includes(line), `changes lacks "${line}":\n${changes}`);
    const { stdout: recording } = await getWorld().cli(['export', session.id, '--format', 'jsonl']);
    const commands = recording.split('\n').filter((l) => l.includes('python3 test_calc.py'));
    assert.ok(commands.length >= 2, `the recording lacks the two test runs:\n${recording.slice(0, 3000)}`);
    assert.ok(recording.includes('"by":"openai-agents"'), 'the recording names who asked');

    // The state the SDK keeps for resuming names the session.
    assert.equal(result.state._sandbox.sessionState.providerState.sessionId, session.id);
  });

  agentsTest('a command the policy denies reaches the model as a failure naming the rule', async () => {
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'rm -rf build' }, { callId: 'd1' })],
      [functionCall('exec_command', { cmd: 'ls build' }, { callId: 'd2' })],
      [assistantMessage('done')],
    ]);
    const manifest = new Manifest({ entries: { build: dir({ children: { 'out.o': file({ content: 'o' }) } }) } });
    await run(model, { client: client() }, manifest);
    const outputs = toolOutputs(model);
    assert.match(outputs.get('d1').text, /Process exited with code 126/);
    assert.match(outputs.get('d1').text, /denied by the session's policy: rm -rf build \(commands\.rules\[0\]/);
    assert.match(outputs.get('d2').text, /out\.o/, 'the denied command changed nothing');
  });

  agentsTest('an ask rule holds exec_command until a second client answers', async () => {
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'touch asked-by-agent && echo made', yield_time_ms: 1000 }, { callId: 'a1' })],
      [assistantMessage('done')],
    ]);
    const before = new Set((await getWorld().runningSessionIds()));
    const running = track(run(model, { client: client() }));
    const session = await waitUntil(async () => {
      const now = await getWorld().runningSessionIds();
      return now.find((id) => !before.has(id));
    }, 30_000, 'the run to start its session');
    const request = await getWorld().waitForRequest(session, 'asked-by-agent', running);
    await getWorld().cli(['approve', session, String(request.id), 'allow']);
    await withTimeout(running.promise, 60_000, 'the run to finish after the approval');
    const text = toolOutputs(model).get('a1').text;
    assert.match(text, /Process exited with code 0/, 'it waited past its yield for the answer');
    assert.match(text, /made/);
  });

  agentsTest('a command past its yield keeps running; write_stdin feeds and interrupts it', async () => {
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'cat', yield_time_ms: 300 }, { callId: 'c1' })],
      [functionCall('write_stdin', { session_id: 1, chars: 'echoed line\n', yield_time_ms: 500 }, { callId: 'c2' })],
      [functionCall('write_stdin', { session_id: 1, chars: '\u0003', yield_time_ms: 2000 }, { callId: 'c3' })],
      [functionCall('write_stdin', { session_id: 7, chars: 'x' }, { callId: 'c4' })],
      [assistantMessage('done')],
    ]);
    const result = await run(model, { client: client() });
    assert.ok(result.finalOutput);
    const outputs = toolOutputs(model);
    assert.match(outputs.get('c1').text, /Process running with session ID 1/);
    assert.match(outputs.get('c2').text, /echoed line/);
    assert.match(outputs.get('c3').text, /Process exited with code 130/);
    assert.match(outputs.get('c4').text, /write_stdin failed: session not found: 7/);
  });

  agentsTest('resolveExposedPort previews a server listening inside the sandbox', async () => {
    const port = 20000 + (process.pid % 20000);
    const previews = client({ exposedPorts: [port] });
    const session = await previews.create({
      manifest: new Manifest({ entries: { 'hello.txt': file({ content: 'hello from the sandbox\n' }) } }),
    });
    try {
      await session.execCommand({
        cmd: `nohup python3 -m http.server ${port} --bind 127.0.0.1 > /dev/null 2>&1 &`,
      });
      const endpoint = await session.resolveExposedPort(port);
      assert.equal(endpoint.host, '127.0.0.1');
      assert.equal(endpoint.port, port, 'the same port on this machine while it is free');
      assert.equal(endpoint.tls, false);
      const url = urlForExposedPort(endpoint, 'http');
      // Until the server listens, the forward closes connections: ask again.
      const body = await waitUntil(async () => {
        try {
          const reply = await fetch(new URL('hello.txt', url));
          return reply.ok ? await reply.text() : undefined;
        } catch {
          return undefined;
        }
      }, 20_000, 'the preview to serve hello.txt');
      assert.equal(body, 'hello from the sandbox\n');
      assert.deepEqual(session.state.exposedPorts[String(port)], endpoint);
      await assert.rejects(session.resolveExposedPort(port + 1), SandboxConfigurationError);
      // The same port again: the same forward.
      assert.deepEqual(await session.resolveExposedPort(port), endpoint);
      const serialised = await previews.serializeSessionState(session.state);
      assert.deepEqual(serialised.configuredExposedPorts, [port]);
      assert.deepEqual(serialised.exposedPorts[String(port)], endpoint);
    } finally {
      await session.close?.();
      await previews.delete(session.state);
    }
  });

  agentsTest('keepSession leaves the session running for a later run to resume', async () => {
    const keeping = client({ keepSession: true });
    const first = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'echo first > state.txt' }, { callId: 'k1' })],
      [assistantMessage('first')],
    ]);
    const result = await run(first, { client: keeping });
    const sessionId = result.state._sandbox.sessionState.providerState.sessionId;
    assert.ok((await getWorld().runningSessionIds()).includes(sessionId), 'it still runs');
    const state = await keeping.deserializeSessionState({
      ...result.state._sandbox.sessionState.providerState,
      manifest: result.state._sandbox.sessionState.manifest,
    });
    const second = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'cat state.txt' }, { callId: 'k2' })],
      [assistantMessage('second')],
    ]);
    await run(second, { client: keeping, sessionState: state });
    assert.match(toolOutputs(second).get('k2').text, /first/);
    await keeping.delete(state);
    await waitUntil(async () => !(await getWorld().runningSessionIds()).includes(sessionId), 20_000,
      'delete() to stop the session');
  });

  agentsTest('the state kept for resuming holds no secret: resume resolves it again', async () => {
    // A secret the application resolves at run time (a vault, say): only its name is stored.
    class VaultSecret extends EnvValueReference {
      static type = 'sandbench-test.vault';
      constructor(name) { super(); this.name = name; }
      serialize() { return { name: this.name }; }
      async resolve() { return `vault-value-of-${this.name}-7f3a`; }
    }
    const unregister = registerEnvValueReference(VaultSecret, (p) => new VaultSecret(p.name));
    const keeping = client({ keepSession: true });
    let state;
    try {
      const manifest = new Manifest({
        environment: {
          API_KEY: { value: 'sk-ephemeral-5c1e9b', ephemeral: true },
          VAULT_TOKEN: new VaultSecret('deploy'),
          PLAIN: 'plain-value',
        },
      });
      // The command compares digests: the model's own request must not carry the secrets either.
      const digest = (v) => createHash('sha256').update(v).digest('hex');
      const model = new ScriptedModel([
        [functionCall('exec_command', {
          cmd: `test "$(printf %s "$API_KEY" | sha256sum | cut -d' ' -f1)" = ${digest('sk-ephemeral-5c1e9b')} && ` +
            `test "$(printf %s "$VAULT_TOKEN" | sha256sum | cut -d' ' -f1)" = ${digest('vault-value-of-deploy-7f3a')} && ` +
            'echo "both secrets present, plain=$PLAIN"',
        }, { callId: 's1' })],
        [assistantMessage('checked')],
      ]);
      const result = await run(model, { client: keeping }, manifest);
      assert.match(toolOutputs(model).get('s1').text, /both secrets present, plain=plain-value/);
      const saved = result.state.toString();
      assert.ok(saved.includes(result.state._sandbox.sessionState.providerState.sessionId), 'the state names the session');
      for (const secret of ['sk-ephemeral-5c1e9b', 'vault-value-of-deploy-7f3a'])
        assert.ok(!saved.includes(secret), `the saved run state contains ${secret}`);

      // The client's own record too, and a resume from it: the reference is resolved again; the
      // ephemeral value comes back only from the manifest the application gives (the SDK passes
      // its trusted one on a RunState resume).
      const { providerState, manifest: savedManifest } = JSON.parse(JSON.stringify(result.state._sandbox.sessionState));
      const session = await keeping.resume(await keeping.deserializeSessionState({ ...providerState, manifest: savedManifest }));
      state = session.state;
      const record = JSON.stringify(await keeping.serializeSessionState(session.state));
      assert.ok(!record.includes('sk-ephemeral-5c1e9b') && !record.includes('vault-value-of'), record);
      const again = await session.exec({ cmd: 'echo "vault=$VAULT_TOKEN plain=$PLAIN key=${API_KEY:-unset}"' });
      assert.match(again.output, /vault=vault-value-of-deploy-7f3a plain=plain-value key=unset/);
      await session.close();
    } finally {
      unregister();
      if (state) await keeping.delete(state);
    }
  });

  agentsTest('a run stopped for the SDK\'s own approval resumes from its saved string with its sandbox', async () => {
    const digest = createHash('sha256').update('sk-interrupted-90ab').digest('hex');
    const deploy = tool({
      name: 'deploy', description: 'Deploy the build.', strict: true,
      parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false },
      needsApproval: true, execute: async ({ target }) => `deployed to ${target}`,
    });
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'echo built > build.txt' }, { callId: 'r1' })],
      [functionCall('deploy', { target: 'staging' }, { callId: 'r2' })],
      [functionCall('exec_command', {
        cmd: `cat build.txt && test "$(printf %s "$API_KEY" | sha256sum | cut -d' ' -f1)" = ${digest} && echo key-back`,
      }, { callId: 'r3' })],
      [assistantMessage('deployed')],
    ]);
    const agent = new SandboxAgent({
      name: 'deployer', instructions: 'Build, then deploy.', model, tools: [deploy], capabilities: [shell()],
      defaultManifest: new Manifest({ environment: { API_KEY: { value: 'sk-interrupted-90ab', ephemeral: true } } }),
    });
    const keeping = client({ keepSession: true });
    const runner = new Runner({ tracingDisabled: true, sandbox: { client: keeping } });
    const first = await runner.run(agent, 'ship it');
    assert.equal(first.interruptions.length, 1, 'the run waits for the SDK\'s approval of deploy');
    const saved = first.state.toString();
    assert.ok(!saved.includes('sk-interrupted-90ab'), 'the saved run holds no secret');
    const sessionId = first.state._sandbox.sessionState.providerState.sessionId;

    const state = await RunState.fromString(agent, saved);
    state.approve(state.getInterruptions()[0]);
    const second = await runner.run(agent, state);
    try {
      assert.equal(second.finalOutput, 'deployed');
      const text = toolOutputs(model).get('r3').text;
      assert.match(text, /built\nkey-back/, 'the same sandbox, and the secret from the agent\'s manifest again');
    } finally {
      await keeping.delete({ sessionId });
    }
  });

  agentsTest('the SDK\'s integration smoke test: scripts/marker.sh runs, as the SDK\'s default modes allow', async () => {
    // The scenario of the SDK's integration-tests/node/sandbox-unix-local.mjs, with our client.
    const manifest = new Manifest({
      entries: {
        'README.md': { type: 'file', content: '# Unix Local Sandbox\n\nmarker: unix-local-node\n' },
        'scripts/marker.sh': { type: 'file', content: '#!/bin/sh\nprintf "unix-local-node-command\\n"\n', executable: true },
      },
    });
    const session = await client().create(manifest);
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'cat README.md' }, { callId: 'm1' })],
      [functionCall('exec_command', { cmd: 'scripts/marker.sh' }, { callId: 'm2' })],
      [assistantMessage('[SANDBOX_RESPONSE]unix-local-node:unix-local-node-command[/SANDBOX_RESPONSE]')],
    ]);
    const agent = new SandboxAgent({
      name: 'Unix local sandbox smoke', model, defaultManifest: manifest, capabilities: [shell()],
      instructions: 'Inspect README.md, run scripts/marker.sh, and respond with the marker.',
      modelSettings: { toolChoice: 'required' },
    });
    try {
      const result = await runAgent(agent, 'Run the sandbox smoke check.', { maxTurns: 8, sandbox: { session } });
      const tools = result.newItems.filter((i) => i.type === 'tool_call_item').map((i) => i.rawItem.name);
      assert.deepEqual(tools, ['exec_command', 'exec_command']);
      assert.equal(result.finalOutput, '[SANDBOX_RESPONSE]unix-local-node:unix-local-node-command[/SANDBOX_RESPONSE]');
      const outputs = toolOutputs(model);
      assert.match(outputs.get('m1').text, /marker: unix-local-node/);
      assert.match(outputs.get('m2').text, /Process exited with code 0/);
      assert.match(outputs.get('m2').text, /unix-local-node-command/);
    } finally {
      await session.close();
    }
  });

  agentsTest('manifest modes: files and folders 0755 by default, given permissions kept, a 0555 folder filled first', async () => {
    const session = await client().create(new Manifest({
      entries: {
        plain: dir({ children: { 'tool.sh': file({ content: '#!/bin/sh\necho ran\n' }) } }),
        private: { type: 'dir', permissions: 'drwxr-x---', children: { 'run.sh': { type: 'file', content: '#!/bin/sh\n', permissions: '-rwx------' } } },
        sealed: { type: 'dir', permissions: 'dr-xr-xr-x', children: { 'inside.txt': { type: 'file', content: 'x', permissions: '-r--r--r--' } } },
      },
    }));
    try {
      const result = await session.exec({ cmd: 'stat -c "%n %a" plain plain/tool.sh private private/run.sh sealed sealed/inside.txt && plain/tool.sh' });
      assert.equal(result.exitCode, 0, result.output);
      for (const line of ['plain 755', 'plain/tool.sh 755', 'private 750', 'private/run.sh 700', 'sealed 555', 'sealed/inside.txt 444', 'ran'])
        assert.ok(result.output.split('\n').includes(line), `no "${line}" in:\n${result.output}`);
    } finally {
      await session.close();
    }
  });

  agentsTest('a local_file or local_dir reached through a symbolic link is refused before a session starts', async () => {
    const w = getWorld();
    const granted = fs.mkdtempSync(path.join(w.root, 'granted-'));
    const outside = fs.mkdtempSync(path.join(w.root, 'outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'host secret\n');
    fs.writeFileSync(path.join(granted, 'ok.txt'), 'fine\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(granted, 'link.txt'));
    fs.symlinkSync(outside, path.join(granted, 'linkdir'));
    fs.mkdirSync(path.join(granted, 'tree'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(granted, 'tree', 'inner-link.txt'));
    const grants = [{ path: granted, readOnly: true }];
    // Sessions started since (the one a previous test stopped may be recorded only now).
    const since = Date.now() * 1e6;
    const startedSince = async () => (await w.cliJson(['sessions', '--json'])).filter((x) => x.started_ns >= since).map((x) => x.id);
    const cases = [
      [{ type: 'local_file', src: path.join(granted, 'link.txt') }, /local_file entries do not support symbolic links/],
      [{ type: 'local_file', src: path.join(granted, 'linkdir', 'secret.txt') }, /symbolic link ancestors/],
      [{ type: 'local_dir', src: path.join(granted, 'linkdir') }, /local_dir entries do not support symbolic links/],
      [{ type: 'local_dir', src: path.join(granted, 'tree') }, /local_dir entries do not support symbolic links/],
    ];
    for (const [entry, why] of cases)
      await assert.rejects(client().create(new Manifest({ extraPathGrants: grants, entries: { copied: entry } })), why);
    const started = await startedSince();
    assert.deepEqual(started, [], 'a refused manifest starts no session');

    const session = await client().create(new Manifest({
      extraPathGrants: grants, entries: { 'ok.txt': { type: 'local_file', src: path.join(granted, 'ok.txt') } },
    }));
    try {
      assert.equal(Buffer.from(await session.readFile({ path: 'ok.txt' })).toString(), 'fine\n');
    } finally {
      await session.close();
    }
  });

  agentsTest('approvals reach the application: pending requests, approve and deny on the session', async () => {
    const session = await client().create(new Manifest());
    try {
      const heard = [];
      const stop = session.onApprovalRequest((request) => heard.push(request));
      const asked = track(session.exec({ cmd: 'touch asked-then-allowed && echo allowed', yieldTimeMs: 200 }));
      const request = await waitUntil(() => session.pendingApprovals().find((r) => JSON.stringify(r).includes('asked-then-allowed')),
        20_000, 'the request to be pending');
      assert.equal(request.kind, 'command');
      assert.ok(heard.some((r) => r.id === request.id), 'the listener heard it');
      // The window and sandbench-cli see the same request.
      assert.ok((await getWorld().pendingRequests(session.state.sessionId)).some((r) => r.id === request.id));
      await session.approve(request.id);
      const allowed = await withTimeout(asked.promise, 30_000, 'the allowed command');
      assert.equal(allowed.exitCode, 0, allowed.output);
      assert.match(allowed.output, /allowed/);
      await assert.rejects(session.approve(request.id), /not pending/);

      const refused = track(session.exec({ cmd: 'touch asked-then-denied', yieldTimeMs: 200 }));
      const second = await waitUntil(() => session.pendingApprovals().find((r) => JSON.stringify(r).includes('asked-then-denied')),
        20_000, 'the second request');
      await session.deny(second.id);
      const denied = await withTimeout(refused.promise, 30_000, 'the denied command');
      assert.equal(denied.exitCode, 126, denied.output);
      assert.equal(await session.pathExists('asked-then-denied'), false);
      assert.deepEqual(session.pendingApprovals(), []);
      stop();
    } finally {
      await session.close();
    }
  });

  agentsTest('the client hands the application the requests of the sessions the Runner makes', async () => {
    const answered = [];
    const c = client();
    c.onApprovalRequest((request, session) => {
      answered.push(request);
      session.approve(request.id).catch(() => {});
    });
    const model = new ScriptedModel([
      [functionCall('exec_command', { cmd: 'touch asked-through-the-client && echo made', yield_time_ms: 500 }, { callId: 'q1' })],
      [assistantMessage('done')],
    ]);
    await withTimeout(run(model, { client: c }), 60_000, 'the run, its command approved by the application');
    assert.equal(answered.length, 1);
    assert.ok(answered[0].argv.join(' ').includes('asked-through-the-client'), JSON.stringify(answered[0]));
    const text = toolOutputs(model).get('q1').text;
    assert.match(text, /Process exited with code 0/);
    assert.match(text, /made/);
  });

  agentsTest('applyManifest and materializeEntry add to a running session', async () => {
    const w = getWorld();
    const skills = fs.mkdtempSync(path.join(w.root, 'skills-'));
    fs.mkdirSync(path.join(skills, 'greet'));
    fs.writeFileSync(path.join(skills, 'greet', 'SKILL.md'), '# greet\n');
    const session = await client().create(new Manifest({ root: '/repo', extraPathGrants: [{ path: skills, readOnly: true }] }));
    try {
      // A manifest of its own root (the default /workspace): its entries go under the session's.
      await session.applyManifest(new Manifest({
        entries: { 'later.txt': file({ content: 'added later\n' }) }, environment: { LATER: 'yes' },
      }));
      await session.materializeEntry({ path: '.agents/greet', entry: { type: 'local_dir', src: path.join(skills, 'greet') } });
      const result = await session.exec({ cmd: 'cat later.txt .agents/greet/SKILL.md && echo "LATER=$LATER"' });
      assert.match(result.output, /added later\n# greet\nLATER=yes/);
      assert.ok(session.state.manifest.entries['later.txt'], 'the manifest records the applied entry');
      await assert.rejects(session.materializeEntry({ path: 'x.txt', entry: { type: 'file', content: 'x', group: { name: 'staff' } } }),
        /group ownership/);
    } finally {
      await session.close();
    }
  });

  agentsTest('persistWorkspace holds the session\'s changes only; hydrateWorkspace brings them back', async () => {
    const project = fs.mkdtempSync(path.join(getWorld().root, 'project-'));
    fs.writeFileSync(path.join(project, 'README.md'), '# project\n');
    fs.writeFileSync(path.join(project, 'untouched.txt'), 'the project\'s own\n');
    const session = await client({ workspace: project }).create(new Manifest({
      entries: { 'kept.txt': file({ content: 'kept\n' }), scratch: dir({ ephemeral: true, children: { 'tmp.txt': file({ content: 't' }) } }) },
    }));
    try {
      await session.exec({ cmd: 'mkdir -p src && echo one > src/a.txt && rm README.md' });
      const archive = await session.persistWorkspace();
      const parsed = JSON.parse(Buffer.from(archive).toString());
      assert.deepEqual(parsed.files.map((f) => f.path).sort(), ['kept.txt', 'src/a.txt']);
      assert.deepEqual(parsed.deleted, ['README.md']);
      assert.ok(!parsed.files.some((f) => f.path.startsWith('scratch')), 'ephemeral entries stay out');

      await session.exec({ cmd: 'echo drifted > kept.txt && echo stale > stale.txt && rm src/a.txt' });
      await session.hydrateWorkspace(archive);
      const after = await session.exec({ cmd: 'cat kept.txt src/a.txt; ls; test -e README.md || echo "README gone"' });
      assert.match(after.output, /^kept\none\n/);
      assert.ok(!after.output.includes('stale.txt'), after.output);
      assert.match(after.output, /README gone/);
      assert.equal(fs.readFileSync(path.join(project, 'README.md'), 'utf8'), '# project\n', 'the project itself is untouched');

      await assert.rejects(session.hydrateWorkspace(archive, { archiveLimits: { maxMembers: 1 } }),
        (e) => e.details?.reason === 'archive member count exceeds limit' && e.details.limit === 1);
      assert.throws(() => session.setArchiveLimits({ maxMembers: -1 }));
    } finally {
      await session.close();
    }
  });

  agentsTest('resume goes on with an ended session\'s changes, or rebuilds one from a remote snapshot', async () => {
    const store = new InMemoryRemoteSnapshotStore();
    const snapshotting = client({ snapshot: { type: 'remote', id: 'sandbench-test', store } });
    const session = await snapshotting.create(new Manifest({ entries: { 'notes.txt': file({ content: 'v1\n' }) } }));
    await session.exec({ cmd: 'echo v2 > notes.txt' });
    const record = JSON.parse(JSON.stringify(await snapshotting.serializeSessionState(session.state)));
    assert.deepEqual(record.snapshot, { type: 'remote', id: 'sandbench-test' });
    assert.ok(await store.exists({ id: 'sandbench-test' }));
    await session.close(); // not kept: the session ends, its changes stay

    const resumed = await snapshotting.resume(await snapshotting.deserializeSessionState(record));
    try {
      assert.notEqual(resumed.state.sessionId, record.sessionId, 'a new session went on with the changes');
      assert.match((await resumed.exec({ cmd: 'cat notes.txt' })).output, /v2/);
    } finally {
      await resumed.close();
    }
    // Both sessions' changes gone: the remote snapshot rebuilds the workspace.
    for (const id of [resumed.state.sessionId, record.sessionId]) await getWorld().cli(['rm', '--force', id]).catch(() => {});
    const rebuilt = await snapshotting.resume(await snapshotting.deserializeSessionState(record));
    try {
      assert.match((await rebuilt.exec({ cmd: 'cat notes.txt' })).output, /v2/);
    } finally {
      await rebuilt.close();
    }
  });

  agentsTest('a resumed session shows again the folders it had, and none a saved state adds', async () => {
    const w = getWorld();
    const shared = fs.mkdtempSync(path.join(w.root, 'shared-'));
    const private_ = fs.mkdtempSync(path.join(w.root, 'private-'));
    fs.writeFileSync(path.join(shared, 'data.txt'), 'shared data\n');
    fs.writeFileSync(path.join(private_, 'key.txt'), 'not for the sandbox\n');
    const c = client();
    const session = await c.create(new Manifest({
      entries: { data: { type: 'mount', source: shared, mountStrategy: { type: 'local_bind' } } },
    }));
    const record = JSON.parse(JSON.stringify(await c.serializeSessionState(session.state)));
    await session.close(); // ended: a resume goes on in a new session

    // An altered saved state asks for one more grant: it is not exposed.
    record.manifest.extraPathGrants = [{ path: private_, readOnly: true }];
    const resumed = await c.resume(await c.deserializeSessionState(record));
    try {
      assert.notEqual(resumed.state.sessionId, record.sessionId);
      assert.match((await resumed.exec({ cmd: 'cat data/data.txt' })).output, /shared data/);
      await assert.rejects(resumed.readFile({ path: path.join(private_, 'key.txt') }), /filesystem\.expose/);
      const tried = await resumed.exec({ cmd: `cat ${private_}/key.txt` });
      assert.ok(!tried.output.includes('not for the sandbox'), tried.output);
    } finally {
      await resumed.close();
    }
  });

  agentsTest('a local snapshot keeps the changes in a folder of this machine, and rebuilds from it', async () => {
    const w = getWorld();
    const baseDir = fs.mkdtempSync(path.join(w.root, 'snapshots-'));
    const snapshotting = client({ snapshot: { type: 'local', baseDir } });
    const session = await snapshotting.create(new Manifest({
      entries: { 'plan.md': file({ content: 'plan\n' }), 'scratch.txt': file({ content: 's', ephemeral: true }) },
    }));
    await session.exec({ cmd: 'mkdir -p out && echo result > out/result.txt' });
    const first = await snapshotting.serializeSessionState(session.state);
    assert.equal(path.dirname(first.snapshot.path), baseDir);
    assert.deepEqual(fs.readdirSync(first.snapshot.path).sort(), ['out', 'plan.md'], 'the changes, without the ephemeral entry');
    assert.equal(fs.readFileSync(path.join(first.snapshot.path, 'out', 'result.txt'), 'utf8'), 'result\n');
    await session.exec({ cmd: 'echo v2 > plan.md' });
    const record = JSON.parse(JSON.stringify(await snapshotting.serializeSessionState(session.state)));
    assert.notEqual(record.snapshot.path, first.snapshot.path);
    assert.ok(!fs.existsSync(first.snapshot.path), 'the earlier copy is replaced');
    await session.close();
    for (const s of await w.cliJson(['sessions', '--json']))
      if (s.id === record.sessionId) await w.cli(['rm', '--force', s.id]);

    // A saved state naming a folder outside the configured one is not restored from.
    const tampered = { ...record, snapshot: { ...record.snapshot, path: w.workspace } };
    await assert.rejects(snapshotting.resume(await snapshotting.deserializeSessionState(tampered)), /cannot be resumed/);
    const rebuilt = await snapshotting.resume(await snapshotting.deserializeSessionState(record));
    try {
      assert.match((await rebuilt.exec({ cmd: 'cat plan.md out/result.txt' })).output, /v2\nresult/);
      rebuilt.state.snapshotSpec = { type: 'noop' };
      const cleared = await snapshotting.serializeSessionState(rebuilt.state);
      assert.equal(cleared.snapshot, null);
      assert.deepEqual(cleared.snapshotSpec, { type: 'noop' });
    } finally {
      await rebuilt.close();
    }
  });

  agentsTest('a manifest root of / is the sandbox\'s whole file system, the project at its own path', async () => {
    const project = fs.mkdtempSync(path.join(getWorld().root, 'whole-'));
    fs.writeFileSync(path.join(project, 'README.md'), '# at its own path\n');
    const session = await client({ workspace: project }).create(new Manifest({
      root: '/', entries: { 'tmp/notes.txt': file({ content: 'root path\n' }) },
    }));
    try {
      assert.equal(session.resolveSandboxPath('/tmp/notes.txt'), '/tmp/notes.txt');
      assert.equal(await session.pathExists('/tmp/notes.txt'), true);
      const seen = await session.exec({ cmd: `cat /tmp/notes.txt ${project}/README.md && pwd`, workdir: '/tmp' });
      assert.match(seen.output, /root path\n# at its own path\n\/tmp\n/);
      await session.exec({ cmd: `echo added > ${project}/added.txt` });
      const archive = JSON.parse(Buffer.from(await session.persistWorkspace()).toString());
      assert.deepEqual(archive.files.map((f) => f.path), ['added.txt'], 'the project\'s changes; /tmp is the sandbox\'s own');
      await assert.rejects(session.pathExists('/../outside.txt'), /escape/);
    } finally {
      await session.close();
    }
  });

  agentsTest('what a Sandbench session cannot honour is refused by name', async () => {
    const c = client();
    const refusals = [
      [new Manifest({ users: [{ name: 'builder' }] }), /manifest users/],
      [new Manifest({ entries: { repo: { type: 'git_repo', repo: 'openai/openai-agents-js' } } }), /git_repo entries/],
      [new Manifest({ extraPathGrants: [{ path: '/data', hostPath: '/srv/data' }] }), /hostPath/],
    ];
    for (const [manifest, why] of refusals)
      await assert.rejects(c.create(manifest), (e) => e instanceof SandboxUnsupportedFeatureError && why.test(e.message));
    await assert.rejects(c.create({ manifest: new Manifest(), snapshot: { type: 'cloud-bucket' } }), /cloud-bucket snapshots/);
    await assert.rejects(c.create({ manifest: new Manifest(), concurrencyLimits: { manifestEntries: 0 } }), /positive numbers/);

    const session = await c.create(new Manifest());
    try {
      await assert.rejects(session.exec({ cmd: 'true', runAs: 'root' }), /runAs/);
    } finally {
      await session.close();
    }
  });

  agentsTest('path grants are shown to the sandbox as exposures, under the policy\'s checks', async () => {
    const w = getWorld();
    const data = fs.mkdtempSync(path.join(w.root, 'data-'));
    const out = fs.mkdtempSync(path.join(w.root, 'out-'));
    const late = fs.mkdtempSync(path.join(w.root, 'late-'));
    fs.writeFileSync(path.join(data, 'input.txt'), 'granted input\n');
    const session = await client().create(new Manifest({
      extraPathGrants: [{ path: data, readOnly: true }, { path: out }],
    }));
    try {
      assert.equal(Buffer.from(await session.readFile({ path: path.join(data, 'input.txt') })).toString(), 'granted input\n');
      const copy = await session.exec({ cmd: `cat ${data}/input.txt > ${out}/copy.txt && touch ${data}/nope` });
      assert.notEqual(copy.exitCode, 0, 'a read-only grant is read-only to commands too');
      assert.equal(fs.readFileSync(path.join(out, 'copy.txt'), 'utf8'), 'granted input\n', 'a writable grant is this machine\'s folder');
      await assert.rejects(session.createEditor().createFile({ type: 'create_file', path: path.join(data, 'x.txt'), diff: '+x' }),
        /read-only/);
      // A grant added once the session runs cannot be exposed any more: refused, never given the
      // sandbox's own /tmp or home folder of that name.
      await session.applyManifest(new Manifest({ extraPathGrants: [{ path: late }] }));
      await assert.rejects(session.pathExists(path.join(late, 'x')), /filesystem\.expose/);
    } finally {
      await session.close();
    }
    // Sandbench's own folders are never shown to a sandbox: such a grant refuses the session.
    await assert.rejects(client().create(new Manifest({ extraPathGrants: [{ path: path.join(w.state, 'sandbench') }] })),
      /sandbench/i);
  });

  agentsTest('a local_bind mount shows the host folder at its path, read-only unless it says otherwise', async () => {
    const w = getWorld();
    const reference = fs.mkdtempSync(path.join(w.root, 'reference-'));
    const results = fs.mkdtempSync(path.join(w.root, 'results-'));
    fs.writeFileSync(path.join(reference, 'input.txt'), 'reference data\n');
    const bind = { mountStrategy: { type: 'local_bind' } };
    const session = await client().create(new Manifest({
      entries: {
        reference: { type: 'mount', source: reference, ...bind },
        out: { type: 'mount', source: results, readOnly: false, mountPath: 'build/results', ...bind },
      },
    }));
    try {
      assert.equal(Buffer.from(await session.readFile({ path: 'reference/input.txt' })).toString(), 'reference data\n');
      const copy = await session.exec({ cmd: 'cp reference/input.txt build/results/copy.txt && echo changed > reference/input.txt' });
      assert.notEqual(copy.exitCode, 0, 'the read-only mount refused the write');
      assert.equal(fs.readFileSync(path.join(results, 'copy.txt'), 'utf8'), 'reference data\n');
      assert.equal(fs.readFileSync(path.join(reference, 'input.txt'), 'utf8'), 'reference data\n');
      const archive = JSON.parse(Buffer.from(await session.persistWorkspace()).toString());
      assert.deepEqual([...archive.directories, ...archive.files.map((f) => f.path)].filter((p) => /reference|results/.test(p)), [],
        'a mount is no change of the workspace');
      await assert.rejects(session.applyManifest(new Manifest({ entries: { late: { type: 'mount', source: results, ...bind } } })),
        /mount is shown through an exposure the session starts with/);
    } finally {
      await session.close();
    }
    await assert.rejects(client().create(new Manifest({
      entries: { bucket: { type: 'mount', source: 's3://bucket/data', mountStrategy: { type: 'in_container' } } },
    }).withInContainerMountCredentialExposureAcknowledged('bucket')), /mount|strategy/);
  });

  agentsTest('view_image reads SVG as the SDK\'s clients do, and names a folder or a non-image', async () => {
    const session = await client().create(new Manifest({
      entries: {
        'diagram.svg': file({ content: '<!-- drawn by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"></svg>' }),
        'notes.png': file({ content: 'not really a picture\n' }),
        pictures: dir(),
      },
    }));
    try {
      const svg = await session.viewImage({ path: 'diagram.svg' });
      assert.equal(svg.image.mediaType, 'image/svg+xml');
      await assert.rejects(session.viewImage({ path: 'notes.png' }), /Unsupported image format/);
      await assert.rejects(session.viewImage({ path: 'pictures' }), /Image path is not a file/);
      await assert.rejects(session.viewImage({ path: 'absent.png' }), /Image file not found/);
    } finally {
      await session.close();
    }
  });

  agentsTest('stop ends the commands still running; the session goes on', async () => {
    const session = await client().create(new Manifest());
    try {
      const first = await session.exec({ cmd: 'sleep 30', yieldTimeMs: 200 });
      assert.equal(first.exitCode, undefined);
      await session.stop();
      const after = await session.writeStdin({ sessionId: first.sessionId, chars: '' });
      assert.match(after, /session not found/);
      assert.equal((await session.exec({ cmd: 'echo still here' })).exitCode, 0);
    } finally {
      await session.close();
    }
  });
});
