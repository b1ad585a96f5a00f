import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, realpath, rename, unlink } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { DIR_MODE, FILE_MODE, FileSink } from '../fileSink.js';
import type { DataFileSink, DeltaStore, StoredEntry } from './store.js';

/** Temporary files start so: a listing tells them from the table's files, and vacuum finds those a kill left. */
const TMP_PREFIX = '.tmp-';

/**
 * A Delta table in a folder on disk. A commit is made whole under a temporary name, flushed, then
 * linked to its final name: link(2) fails with EEXIST when the name exists, so of two writers racing
 * for one version exactly one wins, and a reader never sees a half-written commit. Every path is
 * checked to lie inside the table folder, with symlinks on the way resolved, before anything is read,
 * written or deleted: a log or a listing planted by someone else cannot lead outside it.
 */
export class DiskDeltaStore implements DeltaStore {
  readonly location: string;

  constructor(readonly root: string) {
    this.location = root;
  }

  async list(): Promise<StoredEntry[]> {
    return this.walk('');
  }

  async listLog(): Promise<StoredEntry[]> {
    return this.walk('_delta_log');
  }

  async read(path: string): Promise<Buffer | null> {
    const file = await this.existingPath(path);
    if (file === null) return null;
    let handle;
    try {
      // O_NOFOLLOW: a symlink planted at the final name is not followed out of the table.
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async putIfAbsent(path: string, body: Buffer): Promise<boolean> {
    const { folder, file } = await this.writablePath(path);
    const tmp = await writeTempFile(folder, body);
    try {
      await link(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    await syncFolder(folder);
    return true;
  }

  async put(path: string, body: Buffer): Promise<void> {
    const { folder, file } = await this.writablePath(path);
    const tmp = await writeTempFile(folder, body);
    try {
      await rename(tmp, file);
    } catch (error) {
      await unlink(tmp).catch(() => undefined);
      throw error;
    }
    await syncFolder(folder);
  }

  async createDataFile(path: string, signal?: AbortSignal): Promise<DataFileSink> {
    signal?.throwIfAborted();
    const { folder, file } = await this.writablePath(path);
    const sink = await FileSink.create(join(folder, tempName(posix.basename(path))));
    let settled = false;
    return {
      write: async (chunk) => {
        signal?.throwIfAborted();
        await sink.write(chunk);
      },
      finish: async () => {
        signal?.throwIfAborted();
        const written = await sink.finish();
        settled = true;
        try {
          // link, not rename: a data file's name is never reused, and an existing one is never replaced.
          await link(sink.tmpPath, file);
        } finally {
          await unlink(sink.tmpPath).catch(() => undefined);
        }
        await syncFolder(folder);
        return written;
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        await sink.discard().catch(() => undefined);
      },
    };
  }

  async delete(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const file = await this.existingPath(path);
      if (file === null) continue;
      // unlink removes a name and never follows a final symlink.
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }

  /** The file's absolute path when its folder exists inside the table; null when the folder does not exist. */
  private async existingPath(path: string): Promise<string | null> {
    const relative = checkedRelative(path, this.root);
    const folder = join(this.root, posix.dirname(relative));
    const real = await realpathOrNull(folder);
    if (real === null) return null;
    await this.assertInside(real, path);
    return join(folder, posix.basename(relative));
  }

  /** Creates the file's folder (owner only) and checks it lies inside the table. */
  private async writablePath(path: string): Promise<{ folder: string; file: string }> {
    const relative = checkedRelative(path, this.root);
    const folder = join(this.root, posix.dirname(relative));
    // The nearest existing folder is checked first, so that mkdir never creates a folder outside the table.
    let existing = posix.dirname(relative);
    while (existing !== '.' && (await realpathOrNull(join(this.root, existing))) === null) existing = posix.dirname(existing);
    const realExisting = await realpathOrNull(join(this.root, existing));
    if (realExisting !== null) await this.assertInside(realExisting, path);
    await mkdir(folder, { recursive: true, mode: DIR_MODE });
    await this.assertInside(await realpath(folder), path);
    return { folder, file: join(folder, posix.basename(relative)) };
  }

  private async assertInside(realFolder: string, path: string): Promise<void> {
    const realRoot = await realpath(this.root);
    if (realFolder !== realRoot && !realFolder.startsWith(realRoot + sep)) {
      throw new Error(`${path} leads out of the Delta table at ${this.root} through a symlink; expected every file of the table inside its folder.`);
    }
  }

  /** Regular files under `relative`, recursively; symlinks are neither listed nor followed. */
  private async walk(relative: string): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    const folders = [relative];
    while (folders.length > 0) {
      const folder = folders.pop() as string;
      let names;
      try {
        names = await readdir(join(this.root, folder), { withFileTypes: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        throw error;
      }
      for (const dirent of names) {
        const path = folder === '' ? dirent.name : `${folder}/${dirent.name}`;
        if (dirent.isDirectory()) folders.push(path);
        else if (dirent.isFile()) {
          const stats = await lstat(join(this.root, path)).catch(() => null);
          if (stats !== null && stats.isFile()) entries.push({ path, size: stats.size, modifiedMs: Math.floor(stats.mtimeMs) });
        }
      }
    }
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/** `path` as a clean relative path, or an error: no absolute path, no `..`, no empty or `.` segment. */
function checkedRelative(path: string, root: string): string {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`${JSON.stringify(path)} is not a path inside the Delta table at ${root}; expected a relative path without '..', '.' or empty segments.`);
  }
  return path;
}

function tempName(name: string): string {
  return `${TMP_PREFIX}${randomBytes(6).toString('hex')}-${name}`;
}

/** Writes `body` whole under a new temporary name in `folder` and flushes it to disk. */
async function writeTempFile(folder: string, body: Buffer): Promise<string> {
  const tmp = join(folder, tempName('put'));
  const handle = await open(tmp, 'wx', FILE_MODE);
  try {
    await handle.writeFile(body);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return tmp;
}

/** A new name survives a crash only once its folder is flushed too. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}
