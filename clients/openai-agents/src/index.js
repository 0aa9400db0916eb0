// A sandbox client for the OpenAI Agents SDK whose sandboxes are Sandbench sessions: a
// SandboxAgent's commands and file edits run in a local sandbox that a person watches in the
// Sandbench window, where commands the policy asks about wait for an answer, and whose changes
// wait for review before they reach the project. See README.md.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

import { UserError } from '@openai/agents';
import {
  Manifest,
  SandboxLifecycleError,
  SandboxProviderError,
  SandboxUnsupportedFeatureError,
  normalizeExposedPort,
  normalizeSandboxClientCreateArgs,
  validateSandboxArchiveLimits,
} from '@openai/agents/sandbox';
import {
  deserializeManifest,
  rehydratePersistedEnvironmentForRuntime,
  sanitizeEnvironmentForPersistence,
  serializeManifest,
  validateMountCredentialBoundaries,
} from '@openai/agents-core/sandbox/internal';

import { runCli, cliOf, socketPathOf, stateHome } from './cli.js';
import { ControlConnection } from './control.js';
import { checkManifest, checkSources, concurrencyLimit, mountSources } from './manifest.js';
import { CLIENT_NAME, SandbenchSandboxSession } from './session.js';
import { dropLocal, loadLocal, saveLocal } from './snapshots.js';

export { SandbenchSandboxSession };

/**
 * @typedef {object} SandbenchClientOptions
 * @property {string} [cli] The sandbench-cli program (default: $SANDBENCH_CLI, else
 *   `sandbench-cli` on PATH).
 * @property {string} [preset] A shipped policy preset for sessions it starts (default `generic`).
 * @property {string} [policy] A policy file instead of a preset.
 * @property {string} [workspace] The project folder a started session works on (default: a fresh
 *   folder under workspaceBaseDir). Its changes wait for review there.
 * @property {string} [workspaceBaseDir] Where fresh project folders are made (default
 *   $XDG_STATE_HOME/sandbench/openai-agents/).
 * @property {string} [session] Use this running session instead of starting one (never stopped
 *   by the client).
 * @property {boolean} [keepSession] Leave a session it started running when the run ends, so a
 *   later run can resume it (default false: it is stopped; its changes stay for review).
 * @property {number} [commandTimeoutMs] A command running longer is killed (default 10 min).
 * @property {string} [defaultShell] The shell of commands that name none.
 * @property {number[]} [exposedPorts] The only ports resolveExposedPort may expose (default: any
 *   port the session's servers listen on).
 * @property {{type: string}} [snapshot] `noop`, `local` (the session's own layer, resumed with
 *   `start --resume`) or `remote` (the changes' archive in the store it names).
 * @property {{manifestEntries?: number, localDirFiles?: number}} [concurrencyLimits]
 * @property {{maxInputBytes?: number|null, maxExtractedBytes?: number|null, maxMembers?: number|null}|null} [archiveLimits]
 * @property {Record<string, string>} [env] Environment of the sandbench-cli it runs (default:
 *   this process's): the XDG folders say where sessions live.
 */

const SNAPSHOT_TYPES = new Set(['noop', 'local', 'remote']);

/** Refuses, by name, what the client cannot honour of its options. */
function checkOptions(options) {
  concurrencyLimit(options.concurrencyLimits?.manifestEntries, 4);
  concurrencyLimit(options.concurrencyLimits?.localDirFiles, 4);
  validateSandboxArchiveLimits(options.archiveLimits);
  const spec = options.snapshot;
  if (spec && !SNAPSHOT_TYPES.has(spec.type))
    throw new SandboxUnsupportedFeatureError(
      `SandbenchSandboxClient does not support ${spec.type} snapshots (noop, local or remote)`,
      { provider: 'SandbenchSandboxClient', feature: `snapshot.${spec.type}` });
  if (spec?.type === 'remote' && typeof spec.store?.save !== 'function')
    throw new UserError('a remote snapshot needs a store with save() and load()');
}

/**
 * The session's policy: the client's, with each path grant shown to the sandbox at its path
 * and each local_bind mount's folder (`--expose`, read-only unless the grant or mount is
 * writable). The policy's checks of exposures apply (sensitive paths, Sandbench's own folders),
 * and a path the policy exposes keeps its mode.
 */
function exposuresOf(manifest) {
  return [
    ...manifest.extraPathGrants.map((g) => `${g.path}:${g.readOnly ? 'ro' : 'rw'}`),
    ...mountSources(manifest).map((m) => `${m.source}:${m.writable ? 'rw' : 'ro'}`),
  ];
}

function policyArgs(options, exposures) {
  return [...(options.policy ? ['--policy', options.policy] : ['--preset', options.preset ?? 'generic']),
    ...exposures.flatMap((e) => ['--expose', e])];
}

export class SandbenchSandboxClient {
  backendId = 'sandbench';
  // The Runner may create sessions with no options: a fresh project folder and the generic preset.
  supportsDefaultOptions = true;

  #approvalListeners = new Set();

  /** @param {SandbenchClientOptions} [options] */
  constructor(options = {}) {
    this.options = options;
  }

  /**
   * Starts a session (or joins options.session), materialises the manifest in it, and returns
   * the session the agent's tools use.
   */
  async create(args, manifestOptions) {
    const normalized = normalizeSandboxClientCreateArgs(args, manifestOptions);
    const { manifest } = normalized;
    const options = {
      ...this.options, ...(normalized.options ?? {}),
      ...(normalized.snapshot ? { snapshot: normalized.snapshot } : {}),
      ...(normalized.concurrencyLimits ? { concurrencyLimits: normalized.concurrencyLimits } : {}),
      ...(normalized.archiveLimits !== undefined ? { archiveLimits: normalized.archiveLimits } : {}),
    };
    validateMountCredentialBoundaries(manifest);
    checkManifest(manifest);
    checkOptions(options);
    await checkSources(manifest);
    const environment = await manifest.resolveEnvironment();
    const { sessionId, workspace, owned, pid } = await this.#start(options, manifest, exposuresOf(manifest));
    const state = {
      manifest,
      environment,
      sessionId,
      socketPath: socketPathOf(sessionId, cliOf(options).env),
      workspace,
      keep: !owned || Boolean(options.keepSession),
      configuredExposedPorts: [...new Set((options.exposedPorts ?? []).map((p) => normalizeExposedPort(p)))],
      snapshotSpec: options.snapshot ?? null,
      snapshot: null,
      supervisorPid: pid,
    };
    let session;
    try {
      session = await this.#connect(state, options);
      await session.materialize(manifest);
    } catch (e) {
      if (session) await session.close();
      else if (owned) await runCli(options, ['stop', sessionId]).catch(() => {});
      throw e;
    }
    return session;
  }

  async #start(options, manifest, exposures, resumeFrom) {
    if (options.session && !resumeFrom) return { sessionId: options.session, owned: false };
    let workspace;
    // A root of / is the sandbox's whole file system: the project stays at its own path there.
    const at = manifest.root === '/' ? [] : ['--workspace-at', manifest.root];
    const args = ['start', '--json', ...at, ...policyArgs(options, exposures)];
    if (resumeFrom) {
      args.push('--resume', resumeFrom);
    } else {
      workspace = options.workspace ?? path.join(
        options.workspaceBaseDir ?? path.join(stateHome(cliOf(options).env), 'sandbench', 'openai-agents'),
        randomBytes(6).toString('hex'));
      await fs.mkdir(workspace, { recursive: true });
      args.push('--workspace', workspace);
    }
    const started = JSON.parse(await runCli(options, args));
    await this.#recordExposures(started.id, exposures);
    return { sessionId: started.id, workspace, owned: true, pid: started.pid };
  }

  /**
   * `start --resume` of the state's session. One that was just stopped may still be ending (its
   * supervisor closes connections first): that is waited for, 10 s at most.
   */
  async #startResumed(options, state, exposures) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        return await this.#start(options, state.manifest, exposures, state.sessionId);
      } catch (e) {
        if (!/still running/.test(e.message) || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /**
   * A session's exposures are kept in this client's own folder (no sandbox sees it), so that a
   * resume exposes again only what the session had: a saved state, which could be altered,
   * never names a host folder to show a sandbox by itself.
   */
  #exposuresFile(sessionId) {
    return path.join(this.#home(), 'exposures', `${path.basename(sessionId)}.json`);
  }

  async #recordExposures(sessionId, exposures) {
    const file = this.#exposuresFile(sessionId);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await fs.writeFile(file, JSON.stringify(exposures), { mode: 0o600 });
  }

  /** What of the saved manifest's grants and mounts session `sessionId` had exposed. */
  async #trustedExposures(manifest, sessionId) {
    const had = await fs.readFile(this.#exposuresFile(sessionId), 'utf8').then(JSON.parse, () => []);
    return exposuresOf(manifest).filter((e) => had.includes(e));
  }

  /**
   * Joins the session of a serialised state. A session that has ended goes on in a new one
   * with its changes (`start --resume`); one whose changes are gone is rebuilt from a remote
   * snapshot, when the state names one.
   */
  async resume(state, resumeOptions = {}) {
    const options = {
      ...this.options, ...(resumeOptions.clientOptions ?? {}),
      ...(resumeOptions.archiveLimits !== undefined ? { archiveLimits: resumeOptions.archiveLimits } : {}),
    };
    checkManifest(state.manifest);
    try {
      return await this.#connect(state, options);
    } catch (unreachable) {
      const tried = [`the session is not running (${unreachable.message})`];
      try {
        const exposures = await this.#trustedExposures(state.manifest, state.sessionId);
        const { sessionId, pid } = await this.#startResumed(options, state, exposures);
        return await this.#connect(rebase(state, sessionId, options, pid), options);
      } catch (e) {
        tried.push(`start --resume: ${e.message}`);
      }
      const data = await this.#snapshotData(state, options);
      if (data) {
        const exposures = await this.#trustedExposures(state.manifest, state.sessionId);
        const { sessionId, workspace, pid } = await this.#start(options, state.manifest, exposures);
        const session = await this.#connect({ ...rebase(state, sessionId, options, pid), workspace }, options);
        try {
          await session.hydrateWorkspace(data);
        } catch (e) {
          session.state.keep = false; // a session made only for this restore
          await session.close();
          throw e;
        }
        return session;
      }
      throw new SandboxLifecycleError(
        `Sandbench session ${state.sessionId} cannot be resumed: ${tried.join('; ')}`);
    }
  }

  /**
   * Calls `listener(request, session)` for each approval request of every session this client
   * creates or resumes from now on, so an application whose sessions the Runner makes can
   * answer them (`session.approve(request.id)` or `deny`); returns the unsubscribe.
   */
  onApprovalRequest(listener) {
    this.#approvalListeners.add(listener);
    return () => this.#approvalListeners.delete(listener);
  }

  async #connect(state, options) {
    const session = await connect(state, options);
    try {
      await session.checkMounts();
    } catch (e) {
      await session.close();
      throw e;
    }
    session.onApprovalRequest((request) => {
      for (const listener of [...this.#approvalListeners]) listener(request, session);
    });
    return session;
  }

  /** Where this client keeps what it makes (fresh project folders, local snapshots). */
  #home() {
    return path.join(stateHome(cliOf(this.options).env), 'sandbench', 'openai-agents');
  }

  /**
   * The changes archive a state's snapshot holds: a remote one from the spec's store, a local
   * one from its folder, which must lie in the configured snapshot folder (a saved state could
   * name any folder of this machine).
   */
  async #snapshotData(state, options) {
    const spec = state.snapshotSpec ?? options.snapshot;
    const snapshot = state.snapshot;
    if (snapshot?.type === 'remote' && spec?.store) return (await spec.store.load({ id: snapshot.id })).data;
    if (snapshot?.type !== 'local' || typeof snapshot.path !== 'string') return undefined;
    const configured = options.snapshot?.type === 'local' ? options.snapshot : {};
    const base = path.resolve(configured.baseDir ?? process.env.OPENAI_AGENTS_SANDBOX_SNAPSHOT_DIR ?? path.join(this.#home(), 'snapshots'));
    const rel = path.relative(base, path.resolve(snapshot.path));
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || rel.includes(path.sep)) return undefined;
    if (!(await fs.stat(snapshot.path).catch(() => undefined))?.isDirectory()) return undefined;
    return loadLocal(snapshot);
  }

  /**
   * The state to resume from: the session, the manifest and the environment, less its ephemeral
   * values and resolved secrets (resume resolves those again). With a remote snapshot spec the
   * session's changes are saved in its store first.
   */
  async serializeSessionState(state) {
    const spec = state.snapshotSpec ?? this.options.snapshot ?? null;
    let snapshot = state.snapshot ?? null;
    if (spec?.type === 'remote' && state.session) {
      const saved = await spec.store.save({ id: spec.id, data: await state.session.persistWorkspace() });
      snapshot = { type: 'remote', id: saved.id };
    } else if (spec?.type === 'local' && state.session) {
      const archive = JSON.parse(new TextDecoder().decode(await state.session.persistWorkspace()));
      const saved = await saveLocal(spec, this.#home(), state.sessionId, archive);
      await dropLocal(snapshot);
      snapshot = saved;
    } else if (spec?.type === 'noop') {
      await dropLocal(snapshot);
      snapshot = null;
    }
    state.snapshot = snapshot;
    return {
      manifest: serializeManifest(state.manifest),
      sessionId: state.sessionId,
      socketPath: state.socketPath,
      workspace: state.workspace ?? null,
      keep: state.keep,
      environment: sanitizeEnvironmentForPersistence(state),
      snapshotSpec: spec
        ? { type: spec.type, ...(spec.id ? { id: spec.id } : {}), ...(spec.baseDir ? { baseDir: spec.baseDir } : {}) }
        : null,
      snapshot,
      configuredExposedPorts: state.configuredExposedPorts ?? [],
      exposedPorts: state.exposedPorts ?? null,
    };
  }

  async deserializeSessionState(record) {
    const manifest = record.manifest instanceof Manifest ? record.manifest : deserializeManifest(record.manifest);
    const persisted = record.environment ?? {};
    const runtimeOnly = Object.fromEntries(Object.entries(persisted).filter(([key]) => !(key in manifest.environment)));
    const configured = this.options.snapshot;
    const spec = record.snapshotSpec
      ? (configured?.type === record.snapshotSpec.type ? configured : record.snapshotSpec)
      : null;
    return {
      ...record,
      manifest,
      // Rebuilt from the manifest: on a RunState resume the SDK gives it the agent's own
      // environment, ephemeral values included, which the saved state never holds.
      environment: {
        ...(await manifest.resolveEnvironment()),
        ...runtimeOnly,
        ...(await rehydratePersistedEnvironmentForRuntime(manifest, persisted)),
      },
      workspace: record.workspace ?? undefined,
      snapshotSpec: spec,
      exposedPorts: record.exposedPorts ?? undefined,
    };
  }

  /** Stops a session of this client's (its changes stay for review). */
  async delete(state) {
    await runCli(this.options, ['stop', state.sessionId]).catch(() => {});
  }
}

/** The state of the session `sessionId` that went on with `state`'s changes. */
function rebase(state, sessionId, options, supervisorPid) {
  return {
    ...state, sessionId, socketPath: socketPathOf(sessionId, cliOf(options).env), exposedPorts: undefined, supervisorPid,
  };
}

async function connect(state, options) {
  const connection = await ControlConnection.connect(state.socketPath, CLIENT_NAME).catch((e) => {
    throw new SandboxProviderError(`cannot reach Sandbench session ${state.sessionId}: ${e.message}`);
  });
  const inside = connection.welcome.session?.workspace_inside ?? connection.welcome.session?.workspace;
  if (state.manifest.root !== '/' && inside !== state.manifest.root) {
    connection.close();
    throw new SandboxProviderError(
      `session ${state.sessionId} shows its workspace at ${inside}, not at the manifest's root ` +
      `${state.manifest.root}: start it with --workspace-at ${state.manifest.root}`);
  }
  const session = new SandbenchSandboxSession(state, connection, options);
  // serializeSessionState persists a remote snapshot through the live session.
  Object.defineProperty(state, 'session', { value: session, enumerable: false, configurable: true, writable: true });
  return session;
}
