// A sandbox client for the OpenAI Agents SDK whose sandboxes are Sandbench sessions: a
// SandboxAgent's commands and file edits run in a local sandbox that a person watches in the
// Sandbench window, where commands the policy asks about wait for an answer, and whose changes
// wait for review before they reach the project. See README.md.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { applyDiff, UserError } from '@openai/agents';
import {
  Manifest,
  SandboxLifecycleError,
  SandboxProviderError,
  SandboxUnsupportedFeatureError,
  WorkspacePathPolicy,
  normalizeSandboxClientCreateArgs,
  SandboxConfigurationError,
  normalizeExposedPort,
  permissionsForSandboxEntry,
  recordExposedPortEndpoint,
} from '@openai/agents/sandbox';

import { ControlConnection } from './control.js';
import { formatExecResponse, truncateOutput } from './format.js';

const CLIENT_NAME = 'openai-agents';
// What one file request carries at most (the control protocol's limit).
const FILE_PART = 8 << 20;
const IMAGE_LIMIT = 10 << 20;
const SUPPORTED_ENTRIES = new Set(['dir', 'file', 'local_file', 'local_dir']);

/**
 * @typedef {object} SandbenchClientOptions
 * @property {string} [cli] The sandbench-cli program (default: $SANDBENCH_CLI, else
 *   `sandbench-cli` on PATH).
 * @property {string} [preset] A shipped policy preset for sessions it starts (default `generic`).
 * @property {string} [policy] A policy file instead of a preset.
 * @property {string} [workspace] The project folder a started session works on (default: a fresh
 *   folder under $XDG_STATE_HOME/sandbench/openai-agents/). Its changes wait for review there.
 * @property {string} [session] Use this running session instead of starting one (never stopped
 *   by the client).
 * @property {boolean} [keepSession] Leave a session it started running when the run ends, so a
 *   later run can resume it (default false: it is stopped; its changes stay for review).
 * @property {number} [commandTimeoutMs] A command running longer is killed (default 10 min).
 * @property {number[]} [exposedPorts] The only ports resolveExposedPort may expose (default: any
 *   port the session's servers listen on).
 * @property {Record<string, string>} [env] Environment of the sandbench-cli it runs (default:
 *   this process's): the XDG folders say where sessions live.
 */

/** The sandbench-cli to run, and its environment. */
function cliOf(options) {
  return {
    program: options.cli ?? process.env.SANDBENCH_CLI ?? 'sandbench-cli',
    env: options.env ?? process.env,
  };
}

function runCli(options, args) {
  const { program, env } = cliOf(options);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { stderr += c; });
    child.on('error', (e) => reject(new SandboxProviderError(`cannot run ${program}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) return resolve(stdout);
      reject(new SandboxProviderError(`${program} ${args[0]} failed (${code}): ${stderr.trim()}`));
    });
  });
}

function socketPathOf(sessionId, env) {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime ? path.join(runtime, 'sandbench', `${sessionId}.sock`)
    : path.join('/tmp', `sandbench-${process.getuid()}`, `${sessionId}.sock`);
}

function stateHome(env) {
  return env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
}

/** A failed file reply as an Error whose message names the path. */
function fileError(reply, what) {
  const error = new UserError(`${what}: ${reply.error?.message ?? 'failed'}`);
  error.code = reply.error?.code;
  return error;
}

/** Rejects what the session cannot materialise, before anything is started. */
function checkManifest(manifest) {
  if (manifest.users.length || manifest.groups.length)
    throw new SandboxUnsupportedFeatureError('Sandbench sandboxes have one user: the manifest may not add users or groups');
  for (const { logicalPath, entry } of manifest.iterEntries()) {
    if (!SUPPORTED_ENTRIES.has(entry.type))
      throw new SandboxUnsupportedFeatureError(
        `manifest entry ${logicalPath}: ${entry.type} entries are not supported by the Sandbench client ` +
        '(use dir, file, local_file or local_dir)');
    if (entry.group)
      throw new SandboxUnsupportedFeatureError(`manifest entry ${logicalPath}: groups are not supported`);
  }
}

/** A host path a local_file or local_dir entry names: inside the current folder or a grant. */
function hostSource(manifest, src) {
  const resolved = path.resolve(process.cwd(), src);
  const inside = (root) => {
    const rel = path.relative(root, resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const grants = manifest.extraPathGrants.map((g) => g.hostPath ?? g.path).filter(Boolean);
  if (!inside(process.cwd()) && !grants.some(inside))
    throw new UserError(`manifest source ${src} lies outside the current folder and every path grant`);
  return resolved;
}

export class SandbenchSandboxClient {
  backendId = 'sandbench';

  /** @param {SandbenchClientOptions} [options] */
  constructor(options = {}) {
    this.options = options;
  }

  /**
   * Starts a session (or joins options.session), materialises the manifest in it, and returns
   * the session the agent's tools use.
   */
  async create(args, manifestOptions) {
    const { manifest, options: createOptions } = normalizeSandboxClientCreateArgs(args, manifestOptions);
    const options = { ...this.options, ...(createOptions ?? {}) };
    checkManifest(manifest);
    const { env } = cliOf(options);
    let sessionId = options.session;
    let workspace;
    let owned = false;
    if (!sessionId) {
      workspace = options.workspace ??
        path.join(stateHome(env), 'sandbench', 'openai-agents', randomBytes(6).toString('hex'));
      await fs.mkdir(workspace, { recursive: true });
      const policy = options.policy ? ['--policy', options.policy] : ['--preset', options.preset ?? 'generic'];
      const started = JSON.parse(await runCli(options, [
        'start', '--json', '--workspace', workspace, '--workspace-at', manifest.root, ...policy]));
      sessionId = started.id;
      owned = true;
    }
    const state = {
      manifest,
      environment: await manifest.resolveEnvironment(),
      sessionId,
      socketPath: socketPathOf(sessionId, env),
      workspace,
      keep: !owned || Boolean(options.keepSession),
      configuredExposedPorts: (options.exposedPorts ?? []).map((p) => normalizeExposedPort(p)),
    };
    let session;
    try {
      session = await SandbenchSandboxSession.connect(state, options);
      await session.materialize(manifest);
    } catch (e) {
      if (session) await session.close();
      else if (owned) await runCli(options, ['stop', sessionId]).catch(() => {});
      throw e;
    }
    return session;
  }

  /** Joins the session of a serialised state, which must still run. */
  async resume(state, resumeOptions = {}) {
    const options = { ...this.options, ...(resumeOptions.clientOptions ?? {}) };
    try {
      return await SandbenchSandboxSession.connect(state, options);
    } catch (e) {
      throw new SandboxLifecycleError(
        `Sandbench session ${state.sessionId} cannot be resumed (${e.message}): it has ended; its ` +
        `changes stay in it for review (sandbench-cli changes ${state.sessionId}). Give the client ` +
        'keepSession: true to keep sessions running between runs.');
    }
  }

  async serializeSessionState(state) {
    return {
      sessionId: state.sessionId,
      socketPath: state.socketPath,
      workspace: state.workspace ?? null,
      keep: state.keep,
      environment: state.environment ?? {},
      configuredExposedPorts: state.configuredExposedPorts ?? [],
      exposedPorts: state.exposedPorts ?? null,
    };
  }

  async deserializeSessionState(record) {
    return {
      ...record,
      manifest: record.manifest instanceof Manifest ? record.manifest : new Manifest(record.manifest),
      workspace: record.workspace ?? undefined,
      exposedPorts: record.exposedPorts ?? undefined,
    };
  }

  /** Stops a session of this client's (its changes stay for review). */
  async delete(state) {
    await runCli(this.options, ['stop', state.sessionId]).catch(() => {});
  }
}

export class SandbenchSandboxSession {
  /** @param {object} state the session's state: manifest, environment, sessionId, socketPath, … */
  static async connect(state, options) {
    const connection = await ControlConnection.connect(state.socketPath, CLIENT_NAME).catch((e) => {
      throw new SandboxProviderError(`cannot reach Sandbench session ${state.sessionId}: ${e.message}`);
    });
    const inside = connection.welcome.session?.workspace_inside ?? connection.welcome.session?.workspace;
    if (inside !== state.manifest.root) {
      connection.close();
      throw new SandboxProviderError(
        `session ${state.sessionId} shows its workspace at ${inside}, not at the manifest's root ` +
        `${state.manifest.root}: start it with --workspace-at ${state.manifest.root}`);
    }
    return new SandbenchSandboxSession(state, connection, options);
  }

  #connection;
  #options;
  #background = new Map(); // sessionId → { process, seen } for exec_command past its yield
  #nextBackground = 1;
  #closed = false;

  constructor(state, connection, options) {
    this.state = state;
    this.#connection = connection;
    this.#options = options;
  }

  async running() {
    return !this.#connection.closed;
  }

  supportsPty() {
    return true;
  }

  /**
   * A port preview of the sandbox's `port` (a server listening on its own loopback): the session
   * forwards a free port of this machine's 127.0.0.1 to it, for as long as the session runs.
   * Connections made before the server listens are closed.
   */
  async resolveExposedPort(port) {
    const wanted = normalizeExposedPort(port);
    const configured = this.state.configuredExposedPorts ?? [];
    if (configured.length > 0 && !configured.includes(wanted)) {
      throw new SandboxConfigurationError(
        `Sandbench session ${this.state.sessionId} was not configured to expose port ${wanted} ` +
        `(exposedPorts: ${configured.join(', ')})`,
        { provider: 'SandbenchSandboxClient', port: wanted, configuredPorts: configured });
    }
    if (!this.#connection.servesPorts) {
      throw new SandboxUnsupportedFeatureError(
        `Sandbench session ${this.state.sessionId} forwards no ports (its supervisor predates ` +
        'port previews, or its sandbox cannot make sockets)');
    }
    const reply = await this.#connection.ports({ op: 'expose', port: wanted });
    if (!reply.ok) {
      throw new SandboxProviderError(
        `cannot expose port ${wanted} of Sandbench session ${this.state.sessionId}: ${reply.error.message}`);
    }
    return recordExposedPortEndpoint(
      this.state, { host: reply.forward.host, port: reply.forward.host_port, tls: false }, wanted);
  }

  /** The manifest's entries, written through the session's file API. */
  async materialize(manifest) {
    for (const { absolutePath, entry } of manifest.iterEntries()) {
      if (entry.type === 'dir') {
        await this.#file({ op: 'mkdir', path: absolutePath, parents: true }, `create ${absolutePath}`);
      } else if (entry.type === 'file') {
        await this.#writeFile(absolutePath, Buffer.from(entry.content), this.#modeOf(entry));
      } else if (entry.type === 'local_file') {
        const bytes = await fs.readFile(hostSource(manifest, entry.src));
        await this.#writeFile(absolutePath, bytes, this.#modeOf(entry));
      } else if (entry.type === 'local_dir') {
        await this.#copyHostDir(hostSource(manifest, entry.src), absolutePath);
      }
    }
  }

  async execCommand(args) {
    return formatExecResponse(await this.exec(args));
  }

  /**
   * Runs `args.cmd` in the sandbox through a shell. It waits args.yieldTimeMs (10 s) for the
   * end; a command still running after that is kept, to be read and written with writeStdin.
   * While the command waits for a person's approval, the wait goes on until it is answered.
   */
  async exec(args) {
    if (args.runAs) throw new SandboxUnsupportedFeatureError('Sandbench sandboxes have one user: runAs is not supported');
    const started = Date.now();
    let cwd;
    try {
      cwd = new WorkspacePathPolicy({ root: this.state.manifest.root }).resolve(args.workdir ?? this.state.manifest.root).path;
    } catch (e) {
      return { output: `workdir ${args.workdir}: ${e.message}`, stdout: '', stderr: '', exitCode: 1, wallTimeSeconds: 0 };
    }
    const login = args.login !== false;
    const shell = args.shell ?? (login ? '/bin/bash' : '/bin/sh');
    const process = this.#connection.exec({
      argv: [shell, login ? '-lc' : '-c', args.cmd],
      cwd,
      env: this.state.environment ?? {},
      stdin: true,
      ...(args.tty ? { tty: { rows: 24, cols: 80 } } : {}),
      timeout_ms: this.#options.commandTimeoutMs ?? 600_000,
      origin: CLIENT_NAME,
    });
    const background = { process, seen: 0, tty: Boolean(args.tty) };
    await this.#wait(process, args.yieldTimeMs ?? 10_000);
    return this.#report(background, started, args.maxOutputTokens);
  }

  async writeStdin(args) {
    const started = Date.now();
    const background = this.#background.get(args.sessionId);
    if (!background)
      return formatExecResponse({ output: `write_stdin failed: session not found: ${args.sessionId}`,
        exitCode: 1, wallTimeSeconds: 0 });
    let chars = args.chars ?? '';
    if (!background.tty && chars.includes('\u0003')) {
      this.#connection.control(background.process, { signal: 2 }); // Ctrl-C to a pipe: SIGINT
      chars = chars.replaceAll('\u0003', '');
    }
    if (chars) this.#connection.input(background.process, chars);
    await this.#wait(background.process, args.yieldTimeMs ?? 250);
    return formatExecResponse(this.#report(background, started, args.maxOutputTokens));
  }

  createEditor() {
    return {
      createFile: async (op) => {
        const target = this.#resolve(op.path, true);
        if (await this.pathExists(target)) throw new UserError(`${op.path} exists already`);
        await this.#writeFile(target, Buffer.from(applyDiff('', op.diff, 'create')));
        return {};
      },
      updateFile: async (op) => {
        const source = this.#resolve(op.path, true);
        const current = (await this.#readAll(source, `update ${op.path}`)).toString('utf8');
        const next = applyDiff(current, op.diff);
        const target = op.moveTo ? this.#resolve(op.moveTo, true) : source;
        await this.#writeFile(target, Buffer.from(next));
        if (target !== source) await this.#file({ op: 'remove', path: source }, `remove ${op.path}`);
        return {};
      },
      deleteFile: async (op) => {
        await this.#file({ op: 'remove', path: this.#resolve(op.path, true) }, `delete ${op.path}`);
        return {};
      },
    };
  }

  async readFile(args) {
    const bytes = await this.#readAll(this.#resolve(args.path), `read ${args.path}`, args.maxBytes);
    return new Uint8Array(bytes);
  }

  async listDir(args) {
    const where = this.#resolve(args.path);
    const reply = await this.#file({ op: 'list', path: where }, `list ${args.path}`);
    return reply.entries.map((e) => ({
      name: e.path,
      path: path.posix.join(where, e.path),
      type: e.type === 'file' ? 'file' : e.type === 'directory' ? 'dir' : 'other',
    }));
  }

  async pathExists(target) {
    const reply = await this.#connection.file({ op: 'stat', path: this.#resolve(target) });
    return Boolean(reply.ok);
  }

  async directoryExists(target) {
    const reply = await this.#connection.file({ op: 'stat', path: this.#resolve(target) });
    return Boolean(reply.ok) && reply.type === 'directory';
  }

  async viewImage(args) {
    let bytes;
    try {
      bytes = await this.#readAll(this.#resolve(args.path), `view ${args.path}`, IMAGE_LIMIT + 1);
    } catch (e) {
      if (e.code === 'not_found') throw new UserError(`Image file not found: ${args.path}`);
      throw e;
    }
    if (bytes.length > IMAGE_LIMIT)
      throw new UserError(`image ${args.path} exceeded the allowed size of 10MB`);
    const mediaType = imageType(bytes);
    if (!mediaType) throw new UserError(`Unsupported image format for view_image: ${args.path}`);
    return { type: 'image', image: { data: new Uint8Array(bytes), mediaType } };
  }

  /** Ends the connection; a session the client started is stopped unless it was to be kept. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.state.keep) await this.#connection.stop();
    this.#connection.close();
  }

  // ---------------------------------------------------------------------------------------------

  async #wait(process, yieldMs) {
    const deadline = Date.now() + yieldMs;
    while (!process.exit) {
      const left = deadline - Date.now();
      if (left <= 0 && !process.approval) return;
      // A command waiting for a person's answer waits past its yield, until the answer or the
      // policy's timeout (which denies it); then it ends or runs on.
      const until = left > 0 ? left : Math.max(50, (process.approval.deadline_unix_ms ?? 0) - Date.now() + 1000);
      await Promise.race([process.changed(), new Promise((r) => setTimeout(r, until))]);
      if (left <= 0 && process.approval && Date.now() > (process.approval.deadline_unix_ms ?? 0) + 1000)
        process.approval = undefined;
    }
  }

  /** The output since the last report, and the exit or the background id. */
  #report(background, started, maxOutputTokens) {
    const { process } = background;
    const fresh = Buffer.concat(process.output.slice(background.seen)).toString('utf8');
    background.seen = process.output.length;
    const stdout = Buffer.concat(process.stdout).toString('utf8');
    const stderr = Buffer.concat(process.stderr).toString('utf8');
    const wallTimeSeconds = (Date.now() - started) / 1000;
    if (!process.exit) {
      let id = [...this.#background].find(([, b]) => b === background)?.[0];
      if (id === undefined) this.#background.set(id = this.#nextBackground++, background);
      return { ...truncateOutput(fresh, maxOutputTokens), stdout, stderr, wallTimeSeconds, sessionId: id };
    }
    for (const [id, b] of this.#background) if (b === background) this.#background.delete(id);
    const { text, exitCode } = describeExit(process.exit, fresh);
    return { ...truncateOutput(text, maxOutputTokens), stdout, stderr, wallTimeSeconds, exitCode };
  }

  #resolve(target, forWrite = false) {
    return new WorkspacePathPolicy({ root: this.state.manifest.root }).resolve(target, { forWrite }).path;
  }

  async #file(request, what) {
    const reply = await this.#connection.file(request);
    if (!reply.ok) throw fileError(reply, what);
    return reply;
  }

  async #readAll(target, what, limit = Infinity) {
    const parts = [];
    let offset = 0;
    for (;;) {
      const reply = await this.#file({ op: 'read', path: target, offset, limit: FILE_PART }, what);
      const data = Buffer.from(reply.data_base64, 'base64');
      parts.push(data);
      offset += data.length;
      if (reply.eof || data.length === 0 || offset >= limit) return Buffer.concat(parts);
    }
  }

  async #writeFile(target, bytes, mode) {
    for (let at = 0; at === 0 || at < bytes.length; at += FILE_PART) {
      await this.#file({
        op: 'write', path: target, data_base64: bytes.subarray(at, at + FILE_PART).toString('base64'),
        append: at > 0, parents: true, ...(mode !== undefined && at === 0 ? { mode } : {}),
      }, `write ${target}`);
      if (bytes.length === 0) break;
    }
  }

  async #copyHostDir(source, target) {
    await this.#file({ op: 'mkdir', path: target, parents: true }, `create ${target}`);
    for (const item of await fs.readdir(source, { withFileTypes: true })) {
      const from = path.join(source, item.name);
      const to = path.posix.join(target, item.name);
      if (item.isSymbolicLink()) throw new UserError(`manifest local_dir ${source}: ${item.name} is a symbolic link`);
      if (item.isDirectory()) await this.#copyHostDir(from, to);
      else if (item.isFile()) await this.#writeFile(to, await fs.readFile(from));
    }
  }

  #modeOf(entry) {
    return entry.permissions ? permissionsForSandboxEntry(entry.permissions).toMode() & 0o7777 : undefined;
  }
}

/** What the model reads of a process's end: its output, and why it ended when not by itself. */
function describeExit(exit, output) {
  if (exit.denied !== undefined)
    return {
      text: `${output}${output && !output.endsWith('\n') ? '\n' : ''}sandbench: denied by the session's policy: ` +
        `${exit.denied_command ?? 'a command'} (${exit.denied}). Do not retry it; ask the user or do without it.\n`,
      exitCode: exit.exit_code && exit.exit_code !== 0 ? exit.exit_code : 126,
    };
  if (exit.error !== undefined && exit.exit_code == null)
    return { text: `${output}sandbench: the command did not run: ${exit.error}\n`, exitCode: 127 };
  if (exit.signal) {
    const note = exit.timed_out ? 'it ran past the client\'s commandTimeoutMs and was killed'
      : `ended by ${exit.signal}`;
    return { text: `${output}sandbench: ${note}\n`, exitCode: 128 + (SIGNALS[exit.signal] ?? 0) };
  }
  return { text: output, exitCode: exit.exit_code ?? 1 };
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

function imageType(bytes) {
  const starts = (...values) => values.every((v, i) => bytes[i] === v);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  const ascii = (at, text) => bytes.subarray(at, at + text.length).toString('latin1') === text;
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  return undefined;
}
