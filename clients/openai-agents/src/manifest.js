// A manifest's entries made real in a Sandbench session: what the client accepts of a manifest,
// where a local_file or local_dir may come from on this machine, and the writes that put the
// entries in place through the session's file API (so they land in its layer, for review).
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { UserError } from '@openai/agents';
import { SandboxUnsupportedFeatureError, isMount, permissionsForSandboxEntry } from '@openai/agents/sandbox';

const PROVIDER = 'SandbenchSandboxClient';
const SUPPORTED_ENTRIES = new Set(['dir', 'file', 'local_file', 'local_dir']);

function unsupported(message, feature, extra = {}) {
  return new SandboxUnsupportedFeatureError(message, { provider: PROVIDER, feature, ...extra });
}

/** Rejects, by name, what a Sandbench session cannot materialise, before anything is started. */
export function checkManifest(manifest) {
  if (manifest.users.length)
    throw unsupported(`${PROVIDER} does not support manifest users yet: a Sandbench sandbox runs as one user`,
      'manifest.users');
  if (manifest.groups.length)
    throw unsupported(`${PROVIDER} does not support manifest groups yet: a Sandbench sandbox runs as one user`,
      'manifest.groups');
  for (const grant of manifest.extraPathGrants)
    if (grant.hostPath !== undefined && grant.hostPath !== grant.path)
      throw unsupported(`${PROVIDER} does not support a path grant whose hostPath differs from its path ` +
        `("${grant.path}"): a sandbox sees the host's paths where they are, or through the policy's exposures`,
      'manifest.extraPathGrants.hostPath', { path: grant.path });
  for (const { logicalPath, entry } of manifest.iterEntries()) checkEntry(logicalPath, entry);
}

export function checkEntry(logicalPath, entry) {
  if (isMount(entry)) {
    if (entry.mountStrategy?.type !== 'local_bind' || typeof entry.source !== 'string' || !path.isAbsolute(entry.source))
      throw unsupported(`manifest entry ${logicalPath}: ${PROVIDER} does not support ${entry.mountStrategy?.type ?? entry.type} ` +
        'mounts (a local_bind mount of an absolute host folder is shown through the session\'s exposures)',
      `entries.${entry.type}`, { path: logicalPath });
    return;
  }
  if (!SUPPORTED_ENTRIES.has(entry.type)) {
    const why = entry.type === 'git_repo'
      ? 'clone inside the sandbox with the shell instead, where the network policy decides'
      : 'a Sandbench sandbox sees only what its policy exposes: give the folder as a path grant or in the policy\'s filesystem exposures';
    throw unsupported(`manifest entry ${logicalPath}: ${PROVIDER} does not support ${entry.type} entries (${why})`,
      `entries.${entry.type}`, { path: logicalPath });
  }
  if (entry.group)
    throw unsupported(`manifest entry ${logicalPath}: ${PROVIDER} does not support sandbox entry group ownership yet ` +
      '(a Sandbench sandbox runs as one user)', 'entries.group', { path: logicalPath });
  for (const [name, child] of Object.entries(entry.type === 'dir' ? entry.children ?? {} : {}))
    checkEntry(`${logicalPath}/${name}`, child);
}

/** The positive whole number a concurrency limit must be (the SDK's default where unset). */
export function concurrencyLimit(value, fallback) {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1) throw new UserError('Sandbox concurrency limits must be positive numbers.');
  return Math.floor(value);
}

function inside(root, candidate) {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function realOrSelf(p) {
  try {
    return await fs.realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The real host path a local_file or local_dir entry names. It must lie, links resolved, inside
 * the current folder or a path grant (themselves resolved), and neither it nor a folder on its
 * way may be a symbolic link (as the SDK's own local client requires): a link cannot bring a host
 * file from outside those roots into the sandbox.
 */
export async function hostSource(manifest, entryType, src) {
  const resolved = path.resolve(process.cwd(), src);
  const roots = [process.cwd(), ...manifest.extraPathGrants.map((g) => g.hostPath ?? g.path).filter(Boolean)];
  if (!roots.some((root) => inside(path.resolve(root), resolved)))
    throw new UserError(`${entryType} source must stay within the current folder or manifest.extraPathGrants: ${resolved}`);
  for (let at = path.dirname(resolved); at !== path.dirname(at) && path.dirname(at) !== path.dirname(path.dirname(at)); at = path.dirname(at)) {
    if ((await fs.lstat(at)).isSymbolicLink())
      throw new UserError(`${entryType} entries do not support symbolic link ancestors: ${resolved}`);
  }
  const info = await fs.lstat(resolved);
  if (info.isSymbolicLink()) throw new UserError(`${entryType} entries do not support symbolic links: ${resolved}`);
  const real = await fs.realpath(resolved);
  const realRoots = await Promise.all(roots.map(realOrSelf));
  if (!realRoots.some((root) => inside(root, real)))
    throw new UserError(`${entryType} source ${resolved} is ${real} on this machine, outside the current folder and every path grant`);
  return real;
}

/** Refuses a local_dir tree that holds a symbolic link, before anything is written. */
export async function checkHostTree(dir) {
  for (const item of await fs.readdir(dir, { withFileTypes: true })) {
    const at = path.join(dir, item.name);
    if (item.isSymbolicLink()) throw new UserError(`local_dir entries do not support symbolic links: ${at}`);
    if (item.isDirectory()) await checkHostTree(at);
  }
}

/** A host file's bytes, opened without following a link (one swapped in since the checks). */
async function readHostFile(file) {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) throw new UserError(`local source ${file} is not a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The mode a manifest entry gets: its permissions, or the SDK's default 0755. */
export function modeOf(entry) {
  return permissionsForSandboxEntry(entry.permissions).toMode() & 0o7777;
}

/** Runs `fn` on each item, at most `limit` at a time. */
async function eachLimited(items, limit, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  });
  await Promise.all(workers);
}

/**
 * Writes `entry` at `absolutePath` with `files` (the session's file API: writeFile(path, bytes,
 * mode), mkdir(path, mode)). A folder's mode is set after its contents, so 0555 does not refuse
 * them.
 */
export async function materializeEntry(files, manifest, absolutePath, entry, limits = {}) {
  if (isMount(entry)) return; // after the entries: materializeManifest
  switch (entry.type) {
    case 'dir': {
      await files.mkdir(absolutePath);
      const children = Object.entries(entry.children ?? {});
      await eachLimited(children, concurrencyLimit(limits.manifestEntries, 4), ([name, child]) =>
        materializeEntry(files, manifest, path.posix.join(absolutePath, name), child, limits));
      await files.mkdir(absolutePath, modeOf(entry));
      return;
    }
    case 'file':
      await files.writeFile(absolutePath, Buffer.from(entry.content ?? ''), modeOf(entry));
      return;
    case 'local_file':
      await files.writeFile(absolutePath, await readHostFile(await hostSource(manifest, 'local_file', entry.src)),
        modeOf(entry));
      return;
    case 'local_dir':
      await copyHostDir(files, await hostSource(manifest, 'local_dir', entry.src), absolutePath, limits);
      await files.mkdir(absolutePath, modeOf(entry));
      return;
    default:
      throw unsupported(`${PROVIDER} does not support ${entry.type} entries`, `entries.${entry.type}`);
  }
}

async function copyHostDir(files, source, target, limits) {
  await files.mkdir(target);
  const items = await fs.readdir(source, { withFileTypes: true });
  await eachLimited(items, concurrencyLimit(limits.localDirFiles, 4), async (item) => {
    const from = path.join(source, item.name);
    const to = path.posix.join(target, item.name);
    if (item.isSymbolicLink()) throw new UserError(`local_dir entries do not support symbolic links: ${from}`);
    if (item.isDirectory()) {
      await copyHostDir(files, from, to, limits);
      await files.mkdir(to, (await fs.stat(from)).mode & 0o7777);
    } else if (item.isFile()) {
      await files.writeFile(to, await readHostFile(from), (await fs.stat(from)).mode & 0o7777);
    }
  });
}

/**
 * The host folders a manifest's local_bind mounts show, and whether they are to be writable: the
 * session shows each at its own path (an exposure), and a link at the mount's path leads there.
 */
export function mountSources(manifest) {
  return manifest.mountTargets().map(({ mountPath, entry }) => ({
    mountPath, source: entry.source, writable: entry.readOnly === false,
  }));
}

/** The local_file and local_dir sources of a manifest, checked before anything is written. */
export async function checkSources(manifest) {
  for (const { entry } of manifest.iterEntries()) {
    if (entry.type !== 'local_file' && entry.type !== 'local_dir') continue;
    const source = await hostSource(manifest, entry.type, entry.src);
    if (entry.type === 'local_dir') await checkHostTree(source);
  }
}

/**
 * Every entry of `manifest` under `root` (the session's: a manifest applied later has a root of
 * its own), top-level entries `limit` at a time, then its mounts' links.
 */
export async function materializeManifest(files, manifest, limits = {}, root = manifest.root) {
  const top = Object.entries(manifest.entries).map(([logical, entry]) => ({
    absolutePath: path.posix.join(root, logical), entry,
  }));
  await eachLimited(top, concurrencyLimit(limits.manifestEntries, 4), ({ absolutePath, entry }) =>
    materializeEntry(files, manifest, absolutePath, entry, limits));
  for (const { mountPath, entry } of manifest.mountTargetsForMaterialization())
    await files.symlink(mountPath, entry.source);
}
