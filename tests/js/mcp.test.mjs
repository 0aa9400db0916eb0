// `sandbench-cli mcp` driven by the official MCP TypeScript SDK, as MCP hosts drive it: a Client
// over a StdioClientTransport that spawns the server. Each run gets a fresh temp root with its own
// HOME and XDG folders; the server and every `sandbench-cli` the tests run beside it (pending,
// approve, ls) share that environment, so they find the same sessions.
//
// SANDBENCH_CLI is the built sandbench-cli. Without it every test skips, and with
// SANDBENCH_MUST_WORK=1 a skip is a failure instead. Every wait is bounded.
import { after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  CallToolResultSchema, ErrorCode, JSONRPCResponseSchema, ListToolsResultSchema, McpError,
} from '@modelcontextprotocol/sdk/types.js';

import { CLI, TEST_POLICY, World, cliTest, processAlive, track, waitUntil, withTimeout } from './support.mjs';

const TOOL_NAMES = [
  'run_command', 'start_process', 'read_process_output', 'write_process_input', 'stop_process',
  'read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'get_changes',
];


const CONNECT_MS = 30_000;   // initialize
const SESSION_LINE_MS = 30_000; // "sandbench: session <ID> started" on stderr
const CALL_MS = 60_000;      // one tools/call
const TEST_MS = 120_000;     // one test, its server's start included

// A test whose failures carry the stderr of the servers it used.
function mcpTest(name, fn, options = {}) {
  let before = new Set();
  cliTest(name, async (t) => {
    before = new Set(servers);
    await fn(t);
  }, {
    timeout: TEST_MS,
    ...options,
    describeFailure: () => servers.filter((s) => !before.has(s) || s === sharedServer)
      .map((s) => s.describe()).join('\n'),
  });
}

// The world: a temp root shared by every test of the file. StdioClientTransport passes only
// HOME, LOGNAME, PATH, SHELL, TERM and USER of its own environment plus `env`; the CLI clients
// get exactly the same variables.
let world;

function getWorld() {
  world ??= new World({ policy: TEST_POLICY, baseEnv: getDefaultEnvironment() });
  return world;
}

const runCli = (args, timeoutMs) => getWorld().cli(args, timeoutMs);
const cliJson = (args) => getWorld().cliJson(args);
const pendingRequests = (session) => getWorld().pendingRequests(session);
const runningSessionIds = () => getWorld().runningSessionIds();
const waitForRequest = (session, needle, call) => getWorld().waitForRequest(session, needle, call);

// ---------------------------------------------------------------------------------------------
// The MCP server under test

const servers = [];
let sharedServer;
let sharedServerStart;

class SandbenchMcp {
  static async start(label) {
    const w = getWorld();
    const s = new SandbenchMcp(label);
    servers.push(s);
    s.transport = new StdioClientTransport({
      command: CLI,
      args: ['mcp', '--workspace', w.workspace, '--policy', w.policy],
      env: w.env,
      cwd: w.root,
      stderr: 'pipe',
    });
    // Read stderr from the start: an unread pipe would stall the server once it fills.
    s.transport.stderr.setEncoding('utf8');
    s.transport.stderr.on('data', (chunk) => s.onStderr(chunk));
    s.client = new Client({ name: 'sandbench-js-tests', version: '0.0.0' }, { capabilities: {} });
    s.client.onerror = (e) => s.clientErrors.push(String(e?.message ?? e));
    s.client.onclose = () => {
      s.closedAt = Date.now();
      s.resolveClosed();
      s.rejectSessionLine(new Error('the server ended before it printed its session'));
    };
    try {
      await withTimeout(s.client.connect(s.transport, { timeout: CONNECT_MS }), CONNECT_MS + 5_000,
        'initialize');
      s.pid = s.transport.pid;
      s.id = await withTimeout(s.sessionLine, SESSION_LINE_MS,
        '"sandbench: session <ID> started" on the server\'s stderr');
    } catch (e) {
      if (e instanceof Error) e.message += `\n${s.describe()}`;
      await s.close().catch(() => {});
      throw e;
    }
    return s;
  }

  constructor(label) {
    this.label = label;
    this.stderr = '';
    this.clientErrors = [];
    this.closedAt = null;
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
    this.sessionLine = new Promise((resolve, reject) => {
      this.resolveSessionLine = resolve;
      this.rejectSessionLine = reject;
    });
    this.sessionLine.catch(() => {});
  }

  onStderr(chunk) {
    this.stderr += chunk;
    const m = /^sandbench: session (\S+) started\s*$/m.exec(this.stderr);
    if (m) this.resolveSessionLine(m[1]);
  }

  describe() {
    const tail = this.stderr.length > 6000 ? '…' + this.stderr.slice(-6000) : this.stderr;
    let out = `--- server "${this.label}" (session ${this.id ?? '?'}, pid ${this.pid ?? '?'}) stderr ---\n${tail}`;
    if (this.clientErrors.length) out += `\n--- its client's errors ---\n${this.clientErrors.slice(-20).join('\n')}`;
    return out;
  }

  async callTool(name, args, options = {}) {
    const timeout = options.timeout ?? CALL_MS;
    return withTimeout(
      this.client.callTool({ name, arguments: args }, undefined, { ...options, timeout }),
      timeout + 5_000, `tools/call ${name} ${JSON.stringify(args)}`);
  }

  // A call that must succeed (isError not true); gives {result, text, sc}.
  async ok(name, args, options) {
    const result = await this.callTool(name, args, options);
    const text = textOf(result);
    assert.notEqual(result.isError, true, `${name} ${JSON.stringify(args)} failed: ${text}`);
    return { result, text, sc: result.structuredContent };
  }

  // A call that must come back as a tool error (isError true, not a JSON-RPC error).
  async toolError(name, args) {
    const result = await this.callTool(name, args);
    const text = textOf(result);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should fail: ${JSON.stringify(result)}`);
    return { result, text };
  }

  // run_command; checks the structured result's shape.
  async sh(command, extra = {}) {
    const r = await this.ok('run_command', { command, ...extra }, extra.timeout_seconds
      ? { timeout: (extra.timeout_seconds + 30) * 1000 } : undefined);
    assert.ok(r.sc && typeof r.sc === 'object', `run_command gave no structuredContent: ${JSON.stringify(r.result)}`);
    for (const key of ['stdout', 'stderr']) assert.equal(typeof r.sc[key], 'string', `structuredContent.${key}`);
    return r;
  }

  async close() {
    await withTimeout(this.client.close(), 10_000, 'client.close()');
  }
}

function shared() {
  sharedServerStart ??= (async () => {
    const s = await SandbenchMcp.start('shared');
    // Lists the tools once, as hosts do: the SDK then checks every structuredContent against
    // the tool's outputSchema, whichever test runs first.
    await withTimeout(s.client.listTools(), CALL_MS, 'tools/list');
    sharedServer = s;
    return s;
  })();
  return sharedServerStart;
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// A path as the server reports it: relative to the workspace, or absolute.
function samePath(reported, relative) {
  return reported === relative || reported === path.join(getWorld().workspace, relative) ||
    reported.endsWith('/' + relative);
}

function token() {
  return randomBytes(6).toString('hex');
}

// Host pids whose argv is exactly `argv` (the host sees the sandbox's processes too).
function hostPids(argv) {
  const want = argv.join('\0') + '\0';
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline;
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    // argv[0] may be a full path.
    const argv0End = cmdline.indexOf('\0');
    const normalized = path.basename(cmdline.slice(0, argv0End)) + cmdline.slice(argv0End);
    if (normalized === want) pids.push(Number(name));
  }
  return pids;
}

// The server spoken to line by line, for what this SDK's Client cannot send: JSON-RPC batches
// (protocol 2025-03-26 had them; the SDK follows 2025-11-25, which has none). The SDK still
// writes each message and checks every answer against its schemas.
class RawMcp {
  static async start(label, protocolVersion) {
    const w = getWorld();
    const s = new RawMcp(label);
    s.child = spawn(CLI, ['mcp', '--workspace', w.workspace, '--policy', w.policy],
      { env: w.env, cwd: w.root, stdio: ['pipe', 'pipe', 'pipe'] });
    s.child.stdout.setEncoding('utf8');
    s.child.stderr.setEncoding('utf8');
    s.child.stderr.on('data', (chunk) => { s.stderr += chunk; });
    s.child.stdout.on('data', (chunk) => s.onStdout(chunk));
    s.closed = new Promise((resolve) => s.child.on('close', resolve));
    rawServers.push(s);
    s.send({ jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'sandbench-js-raw', version: '0.0.0' } } });
    const init = await s.next(CONNECT_MS);
    assert.equal(init.result?.protocolVersion, protocolVersion, JSON.stringify(init));
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return s;
  }

  constructor(label) {
    this.label = label;
    this.stderr = '';
    this.buffer = '';
    this.lines = [];
    this.waiting = null;
  }

  onStdout(chunk) {
    this.buffer += chunk;
    for (let nl; (nl = this.buffer.indexOf('\n')) >= 0;) {
      this.lines.push(JSON.parse(this.buffer.slice(0, nl)));
      this.buffer = this.buffer.slice(nl + 1);
    }
    if (this.waiting && this.lines.length) this.waiting();
  }

  send(message) {
    this.child.stdin.write(serializeMessage(message));
  }

  // The next line the server writes, parsed; a batch's answer is an array of responses.
  async next(ms = CALL_MS) {
    if (!this.lines.length) {
      await withTimeout(new Promise((resolve) => { this.waiting = resolve; }), ms,
        `a line from the server "${this.label}"`);
      this.waiting = null;
    }
    const line = this.lines.shift();
    // An error whose request has no id JSON-RPC 2.0 answers with id null; the SDK's schema
    // (2025-11-25's, where that id is optional) expects it left out.
    for (const r of Array.isArray(line) ? line : [line])
      JSONRPCResponseSchema.parse(r.id === null ? { ...r, id: undefined } : r);
    return line;
  }

  describe() {
    return `--- raw server "${this.label}" stderr ---\n${this.stderr.slice(-6000)}`;
  }

  async close() {
    this.child.stdin.end();
    await withTimeout(this.closed, 15_000, `the raw server "${this.label}" to exit`);
  }
}

const rawServers = [];

after(async () => {
  for (const s of servers) await s.close().catch(() => {});
  for (const s of rawServers) await s.close().catch(() => {});
  if (world) await world.cleanUp('mcp.test.mjs');
});

// ---------------------------------------------------------------------------------------------

describe('sandbench-cli mcp', () => {
  mcpTest('initialize: serverInfo, tools capability, instructions naming the session', async () => {
    const s = await shared();
    const info = s.client.getServerVersion();
    assert.equal(info?.name, 'sandbench');
    assert.match(info?.version ?? '', /^\d+\.\d+\.\d+/);
    const caps = s.client.getServerCapabilities();
    assert.equal(typeof caps?.tools, 'object', `capabilities: ${JSON.stringify(caps)}`);
    assert.equal(caps.tools.listChanged ?? false, false);
    const instructions = s.client.getInstructions() ?? '';
    assert.ok(instructions.includes(s.id), `instructions do not name session ${s.id}: ${instructions}`);
    assert.ok(instructions.includes(getWorld().workspace),
      `instructions do not name the workspace ${getWorld().workspace}: ${instructions}`);
  });

  mcpTest('ping answers with an empty result', async () => {
    const s = await shared();
    assert.deepEqual(await withTimeout(s.client.ping(), CALL_MS, 'ping'), {});
  });

  mcpTest('tools/list: all 11 tools, each with an object input schema', async () => {
    const s = await shared();
    const tools = [];
    let cursor;
    for (let page = 0; page < 20; ++page) {
      const r = await withTimeout(s.client.listTools(cursor ? { cursor } : undefined), CALL_MS, 'tools/list');
      tools.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, 'tools/list still had pages after 20');
    const names = tools.map((t) => t.name);
    for (const name of TOOL_NAMES) assert.ok(names.includes(name), `no tool ${name} in ${names.join(', ')}`);
    for (const tool of tools) {
      assert.equal(tool.inputSchema?.type, 'object', `${tool.name}: ${JSON.stringify(tool.inputSchema)}`);
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: additionalProperties`);
      assert.equal(typeof tool.description, 'string', `${tool.name} has no description`);
    }
    const run = tools.find((t) => t.name === 'run_command');
    assert.deepEqual(run.inputSchema.required, ['command']);
  });

  mcpTest('run_command: stdout, stderr and exit code; a non-zero exit is no tool error', async () => {
    const s = await shared();
    const zero = await s.sh('echo hello');
    assert.equal(zero.sc.exit_code, 0);
    assert.equal(zero.sc.stdout, 'hello\n');
    assert.equal(zero.sc.stderr, '');
    assert.ok(zero.text.startsWith('exit code: 0\nhello'), zero.text);
    assert.ok(!zero.text.includes('--- stderr ---'), zero.text);

    const three = await s.sh("printf 'out\\n'; printf 'err\\n' >&2; exit 3");
    assert.notEqual(three.result.isError, true);
    assert.equal(three.sc.exit_code, 3);
    assert.equal(three.sc.signal ?? null, null);
    assert.equal(three.sc.stdout, 'out\n');
    assert.equal(three.sc.stderr, 'err\n');
    assert.equal(three.sc.timed_out, false);
    assert.equal(three.sc.stdout_truncated, false);
    assert.equal(three.sc.stderr_truncated, false);
    assert.equal(typeof three.sc.duration_ms, 'number');
    assert.ok(three.text.startsWith('exit code: 3\nout'), three.text);
    assert.ok(three.text.includes('\n--- stderr ---\nerr'), three.text);
  });

  mcpTest('run_command: stdin, and the workspace as the default folder', async () => {
    const s = await shared();
    const cat = await s.sh('cat', { stdin: 'piped in\n' });
    assert.equal(cat.sc.stdout, 'piped in\n');
    const readme = await s.sh('cat README.md');
    assert.equal(readme.sc.exit_code, 0, readme.text);
    assert.equal(readme.sc.stdout, '# a project\n');
  });

  mcpTest('write_file then read_file: the same text back; the real project untouched', async () => {
    const s = await shared();
    const content = `line one\nline two ${token()}\n`;
    const wrote = await s.ok('write_file', { path: 'roundtrip/deep/file.txt', content });
    assert.match(wrote.text, new RegExp(`^wrote ${Buffer.byteLength(content)} bytes to `));
    const read = await s.ok('read_file', { path: 'roundtrip/deep/file.txt' });
    assert.equal(read.text, content);
    const abs = await s.ok('read_file', { path: path.join(getWorld().workspace, 'roundtrip/deep/file.txt') });
    assert.equal(abs.text, content);
    assert.equal(fs.existsSync(path.join(getWorld().workspace, 'roundtrip')), false,
      'write_file changed the real project');

    await s.ok('write_file', { path: 'roundtrip/run.sh', content: '#!/bin/sh\necho ran\n', mode: '0755' });
    const ran = await s.sh('./roundtrip/run.sh');
    assert.equal(ran.sc.stdout, 'ran\n', ran.text);

    await s.sh("printf '\\000\\001\\377' > roundtrip/bin.dat");
    const bin = await s.ok('read_file', { path: 'roundtrip/bin.dat' });
    assert.equal(bin.sc?.base64, 'AAH/', JSON.stringify(bin.result));

    const missing = await s.toolError('read_file', { path: 'roundtrip/no-such-file' });
    assert.ok(missing.text.includes('no-such-file'), missing.text);
  });

  mcpTest('edit_file: a unique match is replaced; an ambiguous one is an error naming the count', async () => {
    const s = await shared();
    await s.ok('write_file', { path: 'edit/e.txt', content: 'alpha\nbeta\nalpha\n' });
    await s.ok('edit_file', { path: 'edit/e.txt', old_text: 'beta', new_text: 'gamma' });
    assert.equal((await s.ok('read_file', { path: 'edit/e.txt' })).text, 'alpha\ngamma\nalpha\n');

    const twice = await s.toolError('edit_file', { path: 'edit/e.txt', old_text: 'alpha', new_text: 'x' });
    assert.match(twice.text, /\b2\b/);
    assert.equal((await s.ok('read_file', { path: 'edit/e.txt' })).text, 'alpha\ngamma\nalpha\n',
      'a failed edit changed the file');

    await s.ok('edit_file', { path: 'edit/e.txt', old_text: 'alpha', new_text: 'omega', replace_all: true });
    assert.equal((await s.ok('read_file', { path: 'edit/e.txt' })).text, 'omega\ngamma\nomega\n');
  });

  mcpTest('list_directory: files, folders and links, flat and recursive', async () => {
    const s = await shared();
    await s.ok('write_file', { path: 'listing/a.txt', content: 'abc' });
    await s.ok('write_file', { path: 'listing/inner/b.txt', content: 'b' });
    await s.sh('ln -s a.txt listing/link');

    const flat = await s.ok('list_directory', { path: 'listing' });
    assert.match(flat.text, /^f a\.txt \(3 bytes\)$/m, flat.text);
    assert.match(flat.text, /^d inner\/$/m, flat.text);
    assert.match(flat.text, /^l link -> a\.txt$/m, flat.text);
    const entries = flat.sc?.entries ?? [];
    const find = (rel) => entries.find((e) => samePath(e.path, rel) || e.path === path.basename(rel));
    assert.deepEqual({ type: find('listing/a.txt')?.type, size: find('listing/a.txt')?.size },
      { type: 'file', size: 3 }, JSON.stringify(entries));
    assert.equal(find('listing/inner')?.type, 'directory', JSON.stringify(entries));
    assert.equal(find('listing/link')?.type, 'symlink', JSON.stringify(entries));
    assert.equal(flat.sc.truncated, false);
    assert.ok(!entries.some((e) => e.path.endsWith('b.txt')), 'a flat listing went into inner/');

    const deep = await s.ok('list_directory', { path: 'listing', recursive: true });
    assert.ok(deep.sc.entries.some((e) => e.path.endsWith('inner/b.txt') && e.type === 'file'),
      JSON.stringify(deep.sc.entries));

    const top = await s.ok('list_directory', {});
    assert.match(top.text, /^f README\.md \(12 bytes\)$/m, top.text);

    const one = await s.ok('list_directory', { path: 'listing', max_entries: 1 });
    assert.equal(one.sc.entries.length, 1);
    assert.equal(one.sc.truncated, true);
  });

  mcpTest('search_files: by glob and by content', async () => {
    const s = await shared();
    const word = `needle${token()}`;
    await s.ok('write_file', { path: 'search/found.txt', content: `first line\nthe ${word} here\n` });
    await s.ok('write_file', { path: 'search/other.md', content: 'nothing\n' });

    const byGlob = await s.ok('search_files', { path: 'search', glob: '*.txt' });
    const globPaths = byGlob.sc.matches.map((m) => m.path);
    assert.ok(globPaths.some((p) => samePath(p, 'search/found.txt') || p === 'found.txt'), globPaths.join(', '));
    assert.ok(!globPaths.some((p) => p.endsWith('other.md')), globPaths.join(', '));

    const byContent = await s.ok('search_files', { content: word });
    assert.equal(byContent.sc.matches.length, 1, JSON.stringify(byContent.sc.matches));
    const [hit] = byContent.sc.matches;
    assert.ok(samePath(hit.path, 'search/found.txt'), hit.path);
    assert.equal(hit.line, 2);
    assert.ok(hit.text.includes(word), hit.text);
    assert.equal(byContent.sc.truncated, false);
  });

  mcpTest('get_changes: a written file is "added", its line in the diff', async () => {
    const s = await shared();
    const line = `hello mcp ${token()}`;
    await s.ok('write_file', { path: 'changes/new.txt', content: `${line}\n` });
    const changes = await s.ok('get_changes', {});
    const entry = changes.sc.changes.find((c) => samePath(c.path, 'changes/new.txt'));
    assert.equal(entry?.kind, 'added', JSON.stringify(changes.sc.changes));
    assert.match(changes.sc.diff ?? '', new RegExp(`^\\+${line}$`, 'm'));
    assert.match(changes.text, /^A .*changes\/new\.txt$/m, changes.text);

    const only = await s.ok('get_changes', { diff: false, paths: ['changes/new.txt'] });
    assert.ok(!only.sc.diff, 'diff: false still gave a diff');
    assert.ok(only.sc.changes.length >= 1 && only.sc.changes.every((c) => samePath(c.path, 'changes/new.txt')),
      JSON.stringify(only.sc.changes));
    assert.equal(fs.existsSync(path.join(getWorld().workspace, 'changes')), false,
      'the change reached the real project');
  });

  mcpTest('get_changes: a name with a newline stays on its line, quoted', async () => {
    const s = await shared();
    await s.ok('write_file', { path: 'changes/two\nlines.txt', content: 'x\n' });
    const changes = await s.ok('get_changes', { diff: false });
    assert.ok(changes.sc.changes.some((c) => samePath(c.path, 'changes/two\nlines.txt')),
      JSON.stringify(changes.sc.changes));
    assert.match(changes.text, /^A ".*changes\/two\\nlines\.txt"$/m, changes.text);
    assert.doesNotMatch(changes.text, /^lines\.txt"?$/m, 'the name was split over two lines');
  });

  mcpTest('start_process, write_process_input, read_process_output, stop_process', async () => {
    const s = await shared();
    const started = await s.ok('start_process', { command: "sh -c 'while read l; do echo got:$l; done'" });
    const id = started.sc?.process_id;
    assert.equal(typeof id, 'string', JSON.stringify(started.result));
    assert.ok(Number.isInteger(started.sc.pid), JSON.stringify(started.sc));
    assert.match(started.text, new RegExp(`^started process ${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(pid \\d+\\)`));

    const wrote = await s.ok('write_process_input', { process_id: id, input: 'hello\n' });
    assert.equal(wrote.text, 'ok');
    let out = '';
    await waitUntil(async () => {
      const r = await s.ok('read_process_output', { process_id: id, wait_ms: 2000 });
      out += r.sc.stdout;
      assert.equal(r.sc.running, true, `the loop ended: ${JSON.stringify(r.sc)}`);
      return out.includes('got:hello\n');
    }, 15_000, () => `"got:hello" from the process (so far: ${JSON.stringify(out)})`, 0);
    assert.equal(out, 'got:hello\n');

    const stopped = await s.ok('stop_process', { process_id: id });
    assert.ok(stopped.sc && (stopped.sc.signal != null || stopped.sc.exit_code != null), JSON.stringify(stopped.result));
    const gone = await s.callTool('read_process_output', { process_id: id });
    if (gone.isError !== true) assert.equal(gone.structuredContent?.running, false, JSON.stringify(gone));
  });

  mcpTest('close_stdin ends a process; read_process_output with wait_ms reports its exit', async () => {
    const s = await shared();
    const { sc } = await s.ok('start_process', { command: 'cat; exit 4' });
    await s.ok('write_process_input', { process_id: sc.process_id, input: 'last words', close_stdin: true });
    let out = '';
    const end = await waitUntil(async () => {
      const r = await s.ok('read_process_output', { process_id: sc.process_id, wait_ms: 2000 });
      out += r.sc.stdout;
      return r.sc.running === false && r.sc;
    }, 15_000, () => `the process to exit (output so far: ${JSON.stringify(out)})`, 0);
    assert.equal(out, 'last words');
    assert.equal(end.exit_code, 4);
  });

  mcpTest('a wrong argument is a tool error naming it and what it takes; an unknown tool a protocol error', async () => {
    const s = await shared();
    const missing = await s.toolError('run_command', {});
    assert.match(missing.text, /'command'/, missing.text);
    assert.match(missing.text, /a string/, missing.text);
    const range = await s.toolError('run_command', { command: 'true', timeout_seconds: 0 });
    assert.match(range.text, /'timeout_seconds'.*an integer from 1 to 3600/, range.text);
    const typo = await s.toolError('run_command', { command: 'true', timeout: 5 });
    assert.match(typo.text, /no argument 'timeout'.*timeout_seconds/, typo.text);
    const signal = await s.toolError('stop_process', { process_id: 'p1', signal: 'HUP' });
    assert.match(signal.text, /'signal'.*"TERM", "KILL", "INT".*"HUP"/, signal.text);
    const process = await s.toolError('read_process_output', { process_id: 'p999' });
    assert.match(process.text, /no process "p999".*start_process/, process.text);
    await assert.rejects(s.callTool('no_such_tool', {}), (e) => {
      assert.ok(e instanceof McpError, String(e));
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.match(e.message, /no_such_tool/);
      return true;
    });
    // The server still serves calls afterwards.
    assert.equal((await s.sh('echo after')).sc.stdout, 'after\n');
  });

  mcpTest('run_command and start_process are open-world tools; the file tools are not', async () => {
    const s = await shared();
    const { tools } = await withTimeout(s.client.listTools(), CALL_MS, 'tools/list');
    const open = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.openWorldHint]));
    assert.deepEqual(Object.keys(open).filter((name) => open[name] === true).sort(),
      ['run_command', 'start_process'], JSON.stringify(open));
    for (const name of ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'get_changes'])
      assert.equal(open[name], false, name);
  });

  mcpTest('a JSON-RPC batch under protocol 2025-03-26 is answered as one array', async () => {
    const s = await RawMcp.start('batch', '2025-03-26');
    try {
      s.send([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'echo batched' } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run_command', arguments: {} } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      ]);
      const answer = await s.next();
      assert.ok(Array.isArray(answer), JSON.stringify(answer));
      const byId = Object.fromEntries(answer.map((r) => [r.id, r]));
      assert.deepEqual(Object.keys(byId).sort(), ['1', '2', '3', '4'], JSON.stringify(answer));
      assert.deepEqual(byId[1].result, {});
      const ran = CallToolResultSchema.parse(byId[2].result);
      assert.equal(ran.structuredContent?.stdout, 'batched\n', JSON.stringify(ran));
      const wrong = CallToolResultSchema.parse(byId[3].result);
      assert.equal(wrong.isError, true, JSON.stringify(wrong));
      assert.equal(ListToolsResultSchema.parse(byId[4].result).tools.length, TOOL_NAMES.length);
    } catch (e) {
      if (e instanceof Error) e.message += `\n${s.describe()}`;
      throw e;
    } finally {
      await s.close();
    }
  });

  mcpTest('a batch is refused as a whole under 2025-06-18, which removed batches', async () => {
    const s = await RawMcp.start('no-batch', '2025-06-18');
    try {
      s.send([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'touch batched.txt' } } },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]);
      const refused = await s.next();
      assert.ok(!Array.isArray(refused), JSON.stringify(refused));
      assert.equal(refused.id ?? null, null, JSON.stringify(refused));
      assert.equal(refused.error?.code, ErrorCode.InvalidRequest, JSON.stringify(refused));
      assert.match(refused.error.message, /2025-03-26/);
      assert.match(refused.error.message, /2025-06-18/);
      // None of it ran: the file its command would have made is not there.
      s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call',
        params: { name: 'run_command', arguments: { command: 'test -e batched.txt && echo ran || echo not run' } } });
      const check = await s.next();
      assert.equal(check.id, 3);
      assert.equal(CallToolResultSchema.parse(check.result).structuredContent?.stdout, 'not run\n',
        JSON.stringify(check));
    } catch (e) {
      if (e instanceof Error) e.message += `\n${s.describe()}`;
      throw e;
    } finally {
      await s.close();
    }
  });

  mcpTest('a command the policy denies is a tool error naming the rule', async () => {
    const s = await shared();
    await s.sh('mkdir -p victim/sub');
    const denied = await s.toolError('run_command', { command: 'rm -rf victim' });
    assert.ok(denied.text.includes("denied by the session's policy"), denied.text);
    assert.match(denied.text, /commands\.rules\[\d+\] \(deny "rm -rf \*"\)/);
    const still = await s.sh('test -d victim/sub && echo kept');
    assert.equal(still.sc.stdout, 'kept\n', 'the denied rm ran anyway');
  });

  mcpTest('an ask rule waits for a second client: sandbench-cli pending / approve', async () => {
    const s = await shared();
    const call = track(s.callTool('run_command', { command: 'touch asked.txt' }));
    const request = await waitForRequest(s.id, 'asked.txt', call);
    assert.ok(request.id !== undefined, JSON.stringify(request));
    assert.equal(call.done, false);
    await runCli(['approve', s.id, String(request.id), 'allow']);
    const result = await withTimeout(call.promise, 30_000, 'the approved call to finish');
    assert.notEqual(result.isError, true, textOf(result));
    assert.equal(result.structuredContent?.exit_code, 0, textOf(result));
    const changes = await s.ok('get_changes', { diff: false });
    assert.equal(changes.sc.changes.find((c) => samePath(c.path, 'asked.txt'))?.kind, 'added',
      JSON.stringify(changes.sc.changes));
    assert.deepEqual(await pendingRequests(s.id), []);
  });

  mcpTest('a call waiting for approval sends progress notifications', async () => {
    const s = await shared();
    const progress = [];
    const call = track(s.callTool('run_command', { command: 'touch asked2.txt' },
      { onprogress: (p) => progress.push(p) }));
    const request = await waitForRequest(s.id, 'asked2.txt', call);
    // The notification is awaited before the answer: one that arrives in the same read as the
    // final response is dropped by the SDK (its handlers run later than the response's).
    await waitUntil(() => progress.length > 0, 10_000, 'a progress notification while the call waits');
    assert.match(progress[0].message ?? '', /waiting for approval/, JSON.stringify(progress));
    assert.ok(progress[0].message.includes(`request ${request.id}`), JSON.stringify(progress));
    assert.ok(progress[0].message.includes('touch asked2.txt'), JSON.stringify(progress));
    assert.equal(typeof progress[0].progress, 'number');
    await runCli(['approve', s.id, String(request.id), 'allow']);
    const result = await withTimeout(call.promise, 30_000, 'the approved call to finish');
    assert.equal(result.structuredContent?.exit_code, 0, textOf(result));
  });

  mcpTest('a cancelled call stops its command', async () => {
    const s = await shared();
    // A unique duration, so neither view below can mistake another sleep for this one.
    const seconds = `30.${100 + (randomBytes(2).readUInt16LE() % 900)}`;
    const argv = ['sleep', seconds];
    const inSandbox = async () => {
      const ps = await s.sh('ps -eo args');
      return ps.sc.stdout.split('\n').filter((l) => new RegExp(`(^|[\\s/])sleep ${seconds.replace('.', '\\.')}\\b`).test(l));
    };
    const ac = new AbortController();
    const call = track(s.client.callTool({ name: 'run_command', arguments: { command: `sleep ${seconds}` } },
      undefined, { signal: ac.signal, timeout: CALL_MS }));
    await sleep(500);
    await waitUntil(async () => hostPids(argv).length > 0 || (await inSandbox()).length > 0, 10_000,
      `sleep ${seconds} to run`);
    assert.equal(call.done, false, 'the call ended before it was cancelled');
    ac.abort('cancelled by the test');
    await assert.rejects(withTimeout(call.promise, 5_000, 'the cancelled call to reject'), (e) => {
      assert.ok(e instanceof McpError, String(e));
      assert.equal(e.code, ErrorCode.RequestTimeout); // the SDK's code for an aborted request
      return true;
    });
    let left = [];
    await waitUntil(async () => {
      left = [...hostPids(argv).map((p) => `host pid ${p}`), ...await inSandbox()];
      return left.length === 0;
    }, 10_000, () => `sleep ${seconds} to end after the cancel (still: ${left.join('; ')})`);
    // The session still serves calls afterwards.
    assert.equal((await s.sh('echo still here')).sc.stdout, 'still here\n');
  });

  mcpTest('10 parallel run_command calls each get their own output', async () => {
    const s = await shared();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => s.sh(`echo n${i}`)));
    results.forEach((r, i) => {
      assert.equal(r.sc.exit_code, 0, r.text);
      assert.equal(r.sc.stdout, `n${i}\n`);
    });
  });

  mcpTest('closing the client ends the server and its session', async (t) => {
    const s = await SandbenchMcp.start('closed');
    assert.ok((await runningSessionIds()).includes(s.id), `ls --json does not list ${s.id}`);
    const seconds = `31.${100 + (randomBytes(2).readUInt16LE() % 900)}`;
    await s.ok('start_process', { command: `sleep ${seconds}` });
    await waitUntil(() => hostPids(['sleep', seconds]).length > 0, 10_000, `sleep ${seconds} to run`);

    const closing = Date.now();
    await s.close();
    await withTimeout(s.closed, 10_000,
      "the server's stdio to close (the server, or a process it started, still holds it)");
    t.diagnostic(`the server's stdio closed ${s.closedAt - closing} ms after stdin's end`);
    await waitUntil(() => !processAlive(s.pid), 10_000, `server pid ${s.pid} to end`);
    let ids = [];
    await waitUntil(async () => !(ids = await runningSessionIds()).includes(s.id), 10_000,
      () => `session ${s.id} to leave ls --json (${ids.join(', ')})`);
    await waitUntil(() => hostPids(['sleep', seconds]).length === 0, 10_000,
      `the session's sleep ${seconds} to end with it`);
  });

  mcpTest('a server killed with SIGKILL still takes its session with it', async () => {
    // No chance to stop it: the session's lifeline (a pipe the server held) closes instead.
    const s = await SandbenchMcp.start('killed');
    const seconds = `32.${100 + (randomBytes(2).readUInt16LE() % 900)}`;
    await s.ok('start_process', { command: `sleep ${seconds}` });
    await waitUntil(() => hostPids(['sleep', seconds]).length > 0, 10_000, `sleep ${seconds} to run`);
    process.kill(s.pid, 'SIGKILL');
    await withTimeout(s.closed, 10_000, "the killed server's stdio to close");
    let ids = [];
    await waitUntil(async () => !(ids = await runningSessionIds()).includes(s.id), 10_000,
      () => `session ${s.id} to leave ls --json (${ids.join(', ')})`);
    await waitUntil(() => hostPids(['sleep', seconds]).length === 0, 10_000,
      `the session's sleep ${seconds} to end with it`);
  });

  mcpTest("the server exits on stdin's end alone, before the SDK's SIGTERM", async () => {
    // StdioClientTransport.close() ends stdin, waits 2 s, then sends SIGTERM: hosts that only
    // close the pipe must not leave the server (and its session) behind.
    const s = await SandbenchMcp.start('eof');
    const closing = Date.now();
    await s.close();
    await withTimeout(s.closed, 10_000, "the server's stdio to close");
    const took = s.closedAt - closing;
    assert.ok(took < 2000, `the server took ${took} ms to exit after stdin's end: the SDK sent SIGTERM`);
  });
});
