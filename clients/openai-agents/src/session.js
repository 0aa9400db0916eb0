// The SandboxSession of a Sandbench session: the SDK's tools (exec_command, write_stdin,
// apply_patch, view_image), its file helpers and its lifecycle, each a request over the
// session's one control connection. Approvals the session asks for reach the application here
// too (pendingApprovals, onApprovalRequest, approve, deny).
import fs from 'node:fs/promises';
import path from 'node:path';

import { applyDiff, UserError } from '@openai/agents';
import {
  Manifest,
  SandboxConfigurationError,
  SandboxLifecycleError,
  SandboxProviderError,
  SandboxUnsupportedFeatureError,
  WorkspacePathPolicy,
  isMount,
  normalizeExposedPort,
  recordExposedPortEndpoint,
  validateSandboxArchiveLimits,
} from '@openai/agents/sandbox';
import {
  imageOutputFromBytes,
  MAX_VIEW_IMAGE_BYTES,
  mergeManifestDelta,
  mergeManifestEntryDelta,
  validateMountCredentialBoundaries,
} from '@openai/agents-core/sandbox/internal';

import { createChangesArchive, hydrateChanges, readArchive } from './archive.js';
import { runCli } from './cli.js';
import { formatExecResponse, truncateOutput } from './format.js';
import { checkEntry, checkManifest, checkSources, materializeEntry, materializeManifest, mountSources } from './manifest.js';

export const CLIENT_NAME = 'openai-agents';
// What one file request carries at most (the control protocol's limit).
const FILE_PART = 8 << 20;
const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

/** A failed file reply as an Error whose message names the path. */
function fileError(reply, what) {
  const error = new UserError(`${what}: ${reply.error?.message ?? 'failed'}`);
  error.code = reply.error?.code;
  return error;
}

export class SandbenchSandboxSession {
  #connection;
  #options;
  #archiveLimits;
  #background = new Map(); // sessionId → { process, seen } for exec_command past its yield
  #nextBackground = 1;
  #closed = false;
  #grants = new Map(); // grant path → the check that the sandbox sees this machine's folder there

  /**
   * @param {object} state manifest, environment, sessionId, socketPath, workspace, keep, …
   * @param {import('./control.js').ControlConnection} connection
   * @param {object} options the client's options (cli, env, commandTimeoutMs, defaultShell, …)
   */
  constructor(state, connection, options) {
    this.state = state;
    this.#connection = connection;
    this.#options = options;
    this.#archiveLimits = options.archiveLimits;
  }

  async running() {
    return !this.#connection.closed;
  }

  supportsPty() {
    return true;
  }

  /** The archive limits hydrateWorkspace applies when it is given none. */
  setArchiveLimits(limits) {
    validateSandboxArchiveLimits(limits);
    this.#archiveLimits = limits;
  }

  /** The absolute sandbox path `target` names (relative ones from the manifest's root). */
  resolveSandboxPath(target, options = {}) {
    return this.#policy().resolve(target, options).path;
  }

  // -- approvals ----------------------------------------------------------------------------

  /**
   * The session's approval requests waiting for an answer: commands an `ask` rule stopped
   * (`kind: 'command'`, with `argv`, `cwd`, `rule`) and connections (`kind: 'network'`, with
   * `host`, `port`), each with its `id` and `deadline_unix_ms`. The Sandbench window shows the
   * same requests; the first answer wins.
   */
  pendingApprovals() {
    return this.#connection.pendingApprovals();
  }

  /** Calls `listener(request)` for each new approval request; returns the unsubscribe. */
  onApprovalRequest(listener) {
    return this.#connection.onApprovalRequest(listener);
  }

  /**
   * Allows a pending request. `scope`: `exact` (default), `subcommand` or `program` for a
   * command, `hostport` (default), `host` or `domain` for a connection; `duration`: `once`
   * (default), `session` or `always`. Rejects when the request is no longer pending.
   */
  approve(id, { scope, duration = 'once', answeredBy = CLIENT_NAME } = {}) {
    return this.#answer(id, true, scope, duration, answeredBy);
  }

  /** Denies a pending request (same options as approve). */
  deny(id, { scope, duration = 'once', answeredBy = CLIENT_NAME } = {}) {
    return this.#answer(id, false, scope, duration, answeredBy);
  }

  async #answer(id, allow, scope, duration, answeredBy) {
    const request = this.pendingApprovals().find((r) => r.id === id);
    if (!request) throw new UserError(`approval #${id} is not pending in Sandbench session ${this.state.sessionId}`);
    try {
      await this.#connection.answerApproval(id, {
        allow, scope: scope ?? (request.kind === 'network' ? 'hostport' : 'exact'), duration, answered_by: answeredBy,
      });
    } catch (e) {
      throw new UserError(`approval #${id} of Sandbench session ${this.state.sessionId}: ${e.message}`);
    }
  }

  // -- ports ----------------------------------------------------------------------------------

  /**
   * A port preview of the sandbox's `port` (a server listening on its own loopback): the session
   * forwards a free port of this machine's 127.0.0.1 to it, for as long as the session runs.
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
    // The same port on this machine where it is free (a URL the agent printed works outside
    // too), else any free one.
    let reply = await this.#connection.ports({ op: 'expose', port: wanted, host_port: wanted });
    if (!reply.ok) reply = await this.#connection.ports({ op: 'expose', port: wanted });
    if (!reply.ok) {
      throw new SandboxProviderError(
        `cannot expose port ${wanted} of Sandbench session ${this.state.sessionId}: ${reply.error.message}`);
    }
    return recordExposedPortEndpoint(
      this.state, { host: reply.forward.host, port: reply.forward.host_port, tls: false }, wanted);
  }

  // -- the manifest ---------------------------------------------------------------------------

  /** Writes `manifest`'s entries under the session's root (create() and applyManifest()). */
  async materialize(manifest, limits = this.#options.concurrencyLimits) {
    await materializeManifest(this.#materializer(), manifest, limits, this.state.manifest.root);
  }

  /** One entry more, at `args.path` (lazy skills use it); the manifest records it. */
  async materializeEntry(args) {
    this.#usable();
    const entry = structuredClone(args.entry);
    const absolute = this.#policy().resolve(args.path, { forWrite: true }).path;
    const logical = path.posix.relative(this.state.manifest.root, absolute);
    const next = mergeManifestEntryDelta(this.state.manifest, logical, entry);
    validateMountCredentialBoundaries(next);
    checkEntry(logical, entry);
    if (args.runAs) throw runAsUnsupported();
    if (isMount(entry)) throw mountTooLate(logical);
    await checkSources(new Manifest({ root: this.state.manifest.root, entries: { [logical]: entry },
      extraPathGrants: this.state.manifest.extraPathGrants }));
    await materializeEntry(this.#materializer(), next, absolute, entry, this.#options.concurrencyLimits);
    this.state.manifest = next;
  }

  /** A manifest's entries and environment added to the session's. */
  async applyManifest(manifest, runAs) {
    this.#usable();
    if (runAs) throw runAsUnsupported();
    checkManifest(manifest);
    const mount = manifest.mountTargets()[0];
    if (mount) throw mountTooLate(mount.logicalPath);
    const next = mergeManifestDelta(this.state.manifest, manifest);
    // The new entries, at the session's root, their host sources allowed by every grant now.
    const added = new Manifest({ root: this.state.manifest.root, entries: manifest.entries, extraPathGrants: next.extraPathGrants });
    await checkSources(added);
    await this.materialize(added);
    this.state.environment = { ...this.state.environment, ...(await manifest.resolveEnvironment()) };
    this.state.manifest = next;
  }

  // -- the workspace's changes ----------------------------------------------------------------

  /**
   * The session's changes as a workspace archive: what it added, modified and deleted over the
   * project (never the project's own files), less the manifest's ephemeral entries.
   */
  async persistWorkspace() {
    this.#usable();
    const changes = await this.#changes();
    const ephemeral = new Set([
      ...[...this.state.manifest.ephemeralPersistencePaths()].map((p) => this.#fromProject(path.posix.join(this.state.manifest.root, p))),
      ...this.#mountLinks(),
    ]);
    return createChangesArchive(changes, this.#projectInside(), {
      read: async (abs) => {
        const data = await this.#readAll(abs, `persist ${abs}`);
        const info = await this.#file({ op: 'stat', path: abs }, `persist ${abs}`);
        return { data, mode: info.mode };
      },
    }, ephemeral);
  }

  /** Makes the session's changes those of an archive persistWorkspace made. */
  async hydrateWorkspace(data, options = {}) {
    this.#usable();
    const archive = readArchive(data, options.archiveLimits === undefined ? this.#archiveLimits : options.archiveLimits);
    const project = this.#connection.welcome.session?.workspace ?? this.state.workspace;
    const changes = (await this.#changes()).filter((c) => !this.#mountLinks().includes(c.path));
    await hydrateChanges(archive, changes, this.#projectInside(), project, {
      write: (abs, bytes, mode) => this.#writeFile(abs, bytes, mode),
      mkdir: (abs) => this.#file({ op: 'mkdir', path: abs, parents: true }, `create ${abs}`),
      remove: async (abs) => {
        const reply = await this.#connection.file({ op: 'remove', path: abs, recursive: true });
        if (!reply.ok && reply.error?.code !== 'not_found') throw fileError(reply, `remove ${abs}`);
      },
    });
  }

  /** The links of the manifest's mounts, as changes name them: neither to keep nor to undo. */
  #mountLinks() {
    return this.state.manifest.mountTargets().map(({ mountPath }) => this.#fromProject(mountPath));
  }

  /** Where the sandbox shows the project: the manifest's root, or its own path for a root of /. */
  #projectInside() {
    const session = this.#connection.welcome.session ?? {};
    return session.workspace_inside ?? session.workspace ?? this.state.manifest.root;
  }

  /** An absolute sandbox path as the session's changes name it (relative to the project). */
  #fromProject(absolute) {
    const rel = path.posix.relative(this.#projectInside(), absolute);
    return rel === '' ? '.' : rel;
  }

  async #changes() {
    return JSON.parse(await runCli(this.#options, ['changes', this.state.sessionId, '--json']));
  }

  // -- commands -------------------------------------------------------------------------------

  async execCommand(args) {
    return formatExecResponse(await this.exec(args));
  }

  /**
   * Runs `args.cmd` in the sandbox through a shell. It waits args.yieldTimeMs (10 s) for the
   * end; a command still running after that is kept, to be read and written with writeStdin.
   * While the command waits for a person's approval, the wait goes on until it is answered.
   */
  async exec(args) {
    this.#usable();
    if (args.runAs) throw runAsUnsupported();
    const started = Date.now();
    let cwd;
    try {
      cwd = this.#policy().resolve(args.workdir ?? this.state.manifest.root).path;
    } catch (e) {
      return { output: `workdir ${args.workdir}: ${e.message}`, stdout: '', stderr: '', exitCode: 1, wallTimeSeconds: 0 };
    }
    const login = args.login !== false;
    const shell = args.shell ?? this.#options.defaultShell ?? (login ? '/bin/bash' : '/bin/sh');
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

  // -- files ----------------------------------------------------------------------------------

  createEditor(runAs) {
    if (runAs) throw runAsUnsupported();
    return {
      createFile: async (op) => {
        const target = await this.#resolve(op.path, true);
        if (await this.#exists(target)) throw new UserError(`cannot create ${op.path}: file already exists`);
        await this.#writeFile(target, Buffer.from(applyDiff('', op.diff, 'create')));
        return {};
      },
      updateFile: async (op) => {
        const source = await this.#resolve(op.path, true);
        const current = (await this.#readAll(source, `update ${op.path}`)).toString('utf8');
        const next = applyDiff(current, op.diff);
        const target = op.moveTo ? await this.#resolve(op.moveTo, true) : source;
        await this.#writeFile(target, Buffer.from(next));
        if (target !== source) await this.#file({ op: 'remove', path: source }, `remove ${op.path}`);
        return {};
      },
      deleteFile: async (op) => {
        await this.#file({ op: 'remove', path: await this.#resolve(op.path, true) }, `delete ${op.path}`);
        return {};
      },
    };
  }

  async readFile(args) {
    if (args.runAs) throw runAsUnsupported();
    const bytes = await this.#readAll(await this.#resolve(args.path), `read ${args.path}`, args.maxBytes);
    return new Uint8Array(args.maxBytes ? bytes.subarray(0, args.maxBytes) : bytes);
  }

  async listDir(args) {
    if (args.runAs) throw runAsUnsupported();
    const where = await this.#resolve(args.path);
    const reply = await this.#file({ op: 'list', path: where }, `list ${args.path}`);
    return reply.entries.map((e) => ({
      name: e.path,
      path: path.posix.join(where, e.path),
      type: e.type === 'file' ? 'file' : e.type === 'directory' ? 'dir' : 'other',
    }));
  }

  async pathExists(target, runAs) {
    if (runAs) throw runAsUnsupported();
    return this.#exists(await this.#resolve(target));
  }

  async directoryExists(target, runAs) {
    if (runAs) throw runAsUnsupported();
    const reply = await this.#connection.file({ op: 'stat', path: await this.#resolve(target) });
    return Boolean(reply.ok) && reply.type === 'directory';
  }

  /** An image file of the sandbox's (PNG, JPEG, GIF, WebP, SVG), as the SDK's clients give it. */
  async viewImage(args) {
    if (args.runAs) throw runAsUnsupported();
    const target = await this.#resolve(args.path);
    let bytes;
    try {
      bytes = await this.#readAll(target, `view ${args.path}`, MAX_VIEW_IMAGE_BYTES + 1);
    } catch (e) {
      if (e.code === 'not_found') throw new UserError(`Image file not found: ${args.path}`);
      const info = await this.#connection.file({ op: 'stat', path: target });
      if (info.ok && info.type !== 'file') throw new UserError(`Image path is not a file: ${args.path}`);
      throw e;
    }
    if (bytes.length > MAX_VIEW_IMAGE_BYTES) throw new UserError(`Image file exceeds the 10 MB limit: ${args.path}`);
    return imageOutputFromBytes(args.path, new Uint8Array(bytes));
  }

  // -- lifecycle ------------------------------------------------------------------------------

  /** Ends the commands this client started that still run (the session goes on). */
  async stop() {
    const running = [...this.#background.values()].map((b) => b.process).filter((p) => !p.exit);
    for (const p of running) this.#connection.control(p, { signal: 15 });
    await Promise.all(running.map((p) => p.wait(2000)));
    for (const p of running) if (!p.exit) this.#connection.control(p, { signal: 9 });
    await Promise.all(running.map((p) => p.wait(2000)));
    this.#background.clear();
  }

  /**
   * The SDK's cleanup calls stop, shutdown and delete in turn; shutdown and delete end the
   * connection as close does: a session the client started is stopped unless it was to be kept
   * (keepSession), and its changes stay in Sandbench for review, never deleted unreviewed
   * (`sandbench-cli discard` or `rm` drops them). client.delete(state) stops a kept one.
   */
  async shutdown() {
    await this.close();
  }

  async delete() {
    await this.close();
  }

  /** Ends the connection; a session the client started is stopped unless it was to be kept. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.state.keep) {
      await this.#connection.stop();
      await supervisorGone(this.state.supervisorPid);
    }
    this.#connection.close();
  }

  // -------------------------------------------------------------------------------------------

  #usable() {
    if (this.#closed || this.#connection.closed)
      throw new SandboxLifecycleError(`Sandbench session ${this.state.sessionId} is closed`);
  }

  #policy() {
    return new WorkspacePathPolicy({ root: this.state.manifest.root, extraPathGrants: this.state.manifest.extraPathGrants });
  }

  #materializer() {
    return {
      writeFile: (abs, bytes, mode) => this.#writeFile(abs, bytes, mode),
      mkdir: (abs, mode) => this.#file({ op: 'mkdir', path: abs, parents: true, ...(mode !== undefined ? { mode } : {}) },
        `create ${abs}`),
      symlink: (abs, target) => this.#file({ op: 'symlink', path: abs, target, parents: true }, `link ${abs}`),
    };
  }

  async #exists(abs) {
    const reply = await this.#connection.file({ op: 'stat', path: abs });
    return Boolean(reply.ok);
  }

  async #wait(process, yieldMs) {
    let deadline = Date.now() + yieldMs;
    let asked = false;
    while (!process.exit) {
      // Answered: the command gets its yield again from the answer, as if it started then.
      if (asked && !process.approval) deadline = Date.now() + yieldMs;
      asked = Boolean(process.approval);
      const left = deadline - Date.now();
      if (left <= 0 && !process.approval) return;
      // A command waiting for a person's answer waits past its yield, until the answer or the
      // policy's timeout (which denies it); then it ends or runs on.
      const until = left > 0 ? left : Math.max(50, (process.approval.deadline_unix_ms ?? 0) - Date.now() + 1000);
      let timer;
      await Promise.race([process.changed(), new Promise((r) => { timer = setTimeout(r, until); })]);
      clearTimeout(timer); // a pending one would hold the program up to an approval's deadline
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

  async #resolve(target, forWrite = false) {
    this.#usable();
    const resolved = this.#policy().resolve(target, { forWrite });
    if (resolved.grant) await this.#grantVisible(resolved.grant.path, 'path grant');
    return resolved.path;
  }

  /**
   * Refuses a session whose mounts lead nowhere: a mount's link resolves in the sandbox, which
   * must show this machine's folder there (a resumed session shows again only what it had).
   */
  async checkMounts() {
    for (const { source } of mountSources(this.state.manifest)) await this.#grantVisible(source, 'mount of');
  }

  /**
   * A path grant works only where the session's policy exposes that folder to the sandbox (it
   * has a private /tmp and home): one it does not expose is refused, never given the sandbox's
   * own folder of that name instead.
   */
  #grantVisible(grantPath, what) {
    let check = this.#grants.get(grantPath);
    if (!check) {
      check = (async () => {
        // The same folder, as far as a stat tells (JSON numbers keep nanoseconds to ~256 ns).
        const host = await fs.stat(grantPath, { bigint: true }).catch(() => undefined);
        const inside = await this.#connection.file({ op: 'stat', path: grantPath });
        if (!host || !inside.ok || Math.abs(Number(host.mtimeNs) - Number(inside.mtime_ns)) > 1000 ||
            (inside.mode & 0o7777) !== Number(host.mode & 0o7777n))
          throw new SandboxUnsupportedFeatureError(
            `${what} ${grantPath}: Sandbench session ${this.state.sessionId} does not show this machine's ` +
            `${grantPath} to its sandbox; expose it in the policy's filesystem.expose ` +
            `({"path": "${grantPath}", "mode": "ro"} or "rw") for the ${what.split(' ')[0]} to mean that folder`,
            { provider: 'SandbenchSandboxClient', feature: what === 'path grant' ? 'manifest.extraPathGrants' : 'entries.mount', path: grantPath });
      })();
      this.#grants.set(grantPath, check);
      check.catch(() => this.#grants.delete(grantPath));
    }
    return check;
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
}

/**
 * Resolves once the supervisor of a session the client started has exited (10 s at most): it
 * closes connections before it finishes, and until it exits the session counts as running
 * (`sandbench-cli apply`, `rm` and `start --resume` wait for it or refuse).
 */
async function supervisorGone(pid) {
  if (!pid) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return e.code === 'EPERM';
    }
  };
  for (const deadline = Date.now() + 10_000; alive() && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 25));
}

function mountTooLate(logicalPath) {
  return new SandboxUnsupportedFeatureError(
    `manifest entry ${logicalPath}: a mount is shown through an exposure the session starts with; ` +
    'give it in the manifest create() gets', { provider: 'SandbenchSandboxClient', feature: 'entries.mount', path: logicalPath });
}

function runAsUnsupported() {
  return new SandboxUnsupportedFeatureError('Sandbench sandboxes have one user: runAs is not supported',
    { provider: 'SandbenchSandboxClient', feature: 'runAs' });
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
