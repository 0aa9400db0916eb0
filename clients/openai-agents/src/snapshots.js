// The SDK's snapshot specs on Sandbench. A session's changes live in its layer whatever the
// spec; `local` also keeps a copy of them on this machine at each serializeSessionState (a
// folder under baseDir, as the SDK's local client keeps one of its workspace), `remote` keeps
// the changes' archive in the store the application gives. Either rebuilds a session whose
// changes are gone.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

import { UserError } from '@openai/agents';

// The folders this process made: only those are ever removed (a saved state could name any).
const made = new Set();

function localBase(spec, home) {
  return spec.baseDir ?? process.env.OPENAI_AGENTS_SANDBOX_SNAPSHOT_DIR ?? path.join(home, 'snapshots');
}

function inside(root, candidate) {
  const rel = path.relative(root, candidate);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Writes `archive` (a parsed changes archive) as a folder of files under the spec's base, and
 * returns the snapshot record: {type: 'local', id, path, deleted}.
 */
export async function saveLocal(spec, home, sessionId, archive) {
  const base = path.resolve(localBase(spec, home));
  await fs.mkdir(base, { recursive: true, mode: 0o700 });
  const id = `${sessionId}-${randomBytes(4).toString('hex')}`;
  const dir = path.join(base, id);
  await fs.mkdir(dir, { mode: 0o700 });
  made.add(dir);
  const target = (p) => {
    const at = path.join(dir, p);
    if (!inside(dir, at)) throw new UserError(`snapshot path escapes its folder: ${p}`);
    return at;
  };
  for (const d of archive.directories) await fs.mkdir(target(d), { recursive: true });
  for (const f of archive.files) {
    await fs.mkdir(path.dirname(target(f.path)), { recursive: true });
    await fs.writeFile(target(f.path), Buffer.from(f.data ?? '', 'base64'), { mode: (f.mode ?? 0o644) & 0o777, flag: 'wx' });
  }
  return { type: 'local', id, path: dir, deleted: archive.deleted };
}

/** Removes a local snapshot folder this process made (any other is left alone). */
export async function dropLocal(snapshot) {
  if (snapshot?.type !== 'local' || !made.has(snapshot.path)) return;
  made.delete(snapshot.path);
  await fs.rm(snapshot.path, { recursive: true, force: true });
}

/** The changes archive a local snapshot folder holds (its links never followed), as bytes. */
export async function loadLocal(snapshot) {
  const archive = { version: 1, directories: [], files: [], deleted: snapshot.deleted ?? [] };
  const walk = async (dir, rel) => {
    for (const item of await fs.readdir(dir, { withFileTypes: true })) {
      const at = path.join(dir, item.name);
      const p = rel ? `${rel}/${item.name}` : item.name;
      if (item.isDirectory()) {
        archive.directories.push(p);
        await walk(at, p);
      } else if (item.isFile()) {
        const info = await fs.lstat(at);
        archive.files.push({ path: p, data: (await fs.readFile(at)).toString('base64'), mode: info.mode & 0o7777 });
      }
    }
  };
  await walk(snapshot.path, '');
  return new TextEncoder().encode(JSON.stringify(archive));
}
