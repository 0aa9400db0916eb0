// The OpenAI Agents client (clients/openai-agents) driven by the real @openai/agents SDK: a
// SandboxAgent with the shell and filesystem capabilities, its model the SDK's own offline
// ScriptedModel (no network, no API key), its sandbox a real Sandbench session. The tests check
// what the model reads back and what Sandbench recorded.
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { after, describe } from 'node:test';
import assert from 'node:assert/strict';

import { Runner, setTracingDisabled } from '@openai/agents';
import {
  Manifest, SandboxAgent, SandboxConfigurationError, dir, file, filesystem, shell, urlForExposedPort,
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
      assert.notEqual(endpoint.port, port, 'a port of this machine, not the sandbox\'s');
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
});
