// persistWorkspace and hydrateWorkspace on a Sandbench session: the archive holds the session's
// changes (what it added, modified and deleted over the project), never the project itself. It
// is the SDK's portable workspace archive (JSON, version 1: directories, files as base64), with
// the deletions and the files' modes beside, so a remote snapshot store keeps it like any other.
import fs from 'node:fs/promises';
import path from 'node:path';

import { UserError } from '@openai/agents';
import { SandboxArchiveError, resolveSandboxArchiveLimits } from '@openai/agents/sandbox';

function excluded(relative, ephemeral) {
  for (const e of ephemeral)
    if (e === '.' || relative === e || relative.startsWith(`${e}/`)) return true; // '.': the whole project
  return false;
}

/**
 * The archive of `changes` (sandbench-cli changes --json of the session): `files.read(abs)` reads
 * a file as the sandbox sees it; paths under `ephemeral` (the manifest's ephemeral entries) stay out.
 */
export async function createChangesArchive(changes, root, files, ephemeral) {
  const archive = { version: 1, directories: [], files: [], deleted: [] };
  for (const change of changes) {
    if (excluded(change.path, ephemeral)) continue;
    if (change.kind === 'deleted') {
      archive.deleted.push(change.path);
    } else if (change.type === 'directory') {
      archive.directories.push(change.path);
    } else if (change.type === 'file') {
      const { data, mode } = await files.read(path.posix.join(root, change.path));
      archive.files.push({ path: change.path, data: data.toString('base64'), mode });
    }
  }
  return new TextEncoder().encode(JSON.stringify(archive));
}

function archiveError(message, details) {
  return new SandboxArchiveError(message, details);
}

/** The archive parsed and checked against `limits` (the SDK's archive limits, same reasons). */
export function readArchive(data, limits) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data)
    : data instanceof Uint8Array ? data : new Uint8Array(data);
  const resolved = resolveSandboxArchiveLimits(limits);
  if (resolved?.maxInputBytes != null && bytes.byteLength > resolved.maxInputBytes)
    throw archiveError('Workspace archive input size exceeds limit.',
      { reason: 'archive input size exceeds limit', limit: resolved.maxInputBytes, actual: bytes.byteLength });
  let archive;
  try {
    archive = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new UserError(`not a workspace archive: ${e.message}`);
  }
  if (archive?.version !== 1) throw new UserError('Unsupported remote snapshot archive version.');
  archive.directories ??= [];
  archive.files ??= [];
  archive.deleted ??= [];
  let members = 0;
  let extracted = 0;
  const member = (name) => {
    members += 1;
    if (resolved?.maxMembers != null && members > resolved.maxMembers)
      throw archiveError('Workspace archive member count exceeds limit.',
        { reason: 'archive member count exceeds limit', limit: resolved.maxMembers, actual: members, member: name });
  };
  for (const dir of archive.directories) member(dir);
  for (const file of archive.files) {
    member(file.path);
    extracted += Buffer.byteLength(file.data ?? '', 'base64');
    if (resolved?.maxExtractedBytes != null && extracted > resolved.maxExtractedBytes)
      throw archiveError('Workspace archive extracted size exceeds limit.',
        { reason: 'archive extracted size exceeds limit', limit: resolved.maxExtractedBytes, actual: extracted, member: file.path });
  }
  for (const p of [...archive.directories, ...archive.files.map((f) => f.path), ...archive.deleted])
    if (typeof p !== 'string' || p === '' || path.posix.isAbsolute(p) || p.split('/').includes('..'))
      throw new UserError(`Remote snapshot archive path escapes root: ${p}`);
  return archive;
}

/**
 * Makes the session's changes those of `archive`: a change the archive lacks is undone (an added
 * path removed, a modified or deleted file given the project's content again, read from
 * `project` on this machine), then the archive's folders, files and deletions are written.
 */
export async function hydrateChanges(archive, changes, root, project, files) {
  const inArchive = new Set([...archive.directories, ...archive.files.map((f) => f.path), ...archive.deleted]);
  const abs = (p) => path.posix.join(root, p);
  // Deepest first, so a folder is emptied before it goes.
  for (const change of [...changes].sort((a, b) => b.path.length - a.path.length)) {
    if (inArchive.has(change.path)) continue;
    if (change.kind === 'added') {
      await files.remove(abs(change.path));
    } else if (change.type === 'file') {
      if (!project) throw new UserError(`cannot undo the change to ${change.path}: the session's project folder is unknown`);
      const original = path.join(project, change.path);
      const info = await fs.lstat(original).catch(() => undefined);
      if (info?.isFile()) await files.write(abs(change.path), await fs.readFile(original), info.mode & 0o7777);
      else await files.remove(abs(change.path)); // gone from the project meanwhile: gone here too
    } else if (change.type === 'directory' && change.kind === 'deleted') {
      await files.mkdir(abs(change.path));
    }
  }
  for (const dir of archive.directories) await files.mkdir(abs(dir));
  for (const file of archive.files) await files.write(abs(file.path), Buffer.from(file.data ?? '', 'base64'), file.mode);
  for (const gone of archive.deleted) await files.remove(abs(gone));
}
