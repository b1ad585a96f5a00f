import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { StoredObject } from '../../bucket/objects.js';
import { type HashedFile, writeHashedFile } from '../../writeHashedFile.js';
import { StateError } from '../errors.js';
import type { StateClock, StateStore } from './stateStore.js';

/** link(2) answers these where the filesystem has no hard links (FAT, many FUSE object-store mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** The folder is on this machine (or a mount of it): the local clock is the store's clock. */
const LOCAL_CLOCK: StateClock = { now: () => Date.now(), usable: true, unusableBecause: null, uncertaintyMs: 0 };

/**
 * The state in a local or mounted folder (`state.url=file:///PATH`), laid out as in a bucket: each
 * object a file under PATH. A plain write goes to a temporary file beside its target, is flushed, and
 * renamed over it, so a reader sees the old file or the new one. A create-only write is a complete
 * temporary file hard-linked to its name: link(2) fails when the name exists, atomically, on local
 * filesystems and on NFS (where a retried link is judged by the temporary file's link count, as
 * open(2) advises). Files and folders are the owner's only; temporary files start with a dot and are
 * never listed.
 */
export class FolderStateStore implements StateStore {
  readonly clock = LOCAL_CLOCK;
  readonly label: string;

  constructor(
    /** Absolute, without a trailing slash. */
    readonly root: string,
    readonly url: string,
  ) {
    this.label = `folder ${root}`;
  }

  where(path: string): string {
    return this.file(path);
  }

  private file(path: string): string {
    return join(this.root, ...path.split('/'));
  }

  async list(under = ''): Promise<StoredObject[]> {
    const folder = this.file(under);
    let entries;
    try {
      entries = await readdir(folder, { recursive: true, withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return [];
      throw this.failure('list', folder, error);
    }
    const found: StoredObject[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      const path = relative(this.root, file).split(sep).join('/');
      // Temporary files of writes in flight, and what editors and desktops leave behind (.DS_Store).
      if (path.split('/').some((segment) => segment.startsWith('.'))) continue;
      const stats = await stat(file).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw this.failure('list', file, error);
      });
      if (stats !== null) found.push({ path, size: stats.size, modifiedMs: Math.floor(stats.mtimeMs) });
    }
    return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readBytes(path: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(path));
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.failure('read', this.file(path), error);
    }
  }

  /** A file has no tag: its listing's size and modification time describe it. */
  async readVersion(path: string): Promise<{ bytes: Buffer } | null> {
    const bytes = await this.readBytes(path);
    return bytes === null ? null : { bytes };
  }

  async readText(path: string): Promise<string | null> {
    return (await this.readBytes(path))?.toString('utf8') ?? null;
  }

  async putBytes(path: string, body: Buffer): Promise<void> {
    const target = this.file(path);
    const temp = await this.writeTemp(target, body);
    try {
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw this.failure('write', target, error);
    }
    await flushFolder(dirname(target));
  }

  async putCreateOnly(path: string, body: Buffer): Promise<'created' | 'exists' | 'refused'> {
    const target = this.file(path);
    const temp = await this.writeTemp(target, body);
    try {
      await link(temp, target);
      await flushFolder(dirname(target));
      return 'created';
    } catch (error) {
      const code = errorCode(error);
      // Over NFS a link whose answer was lost is sent again and answered EEXIST: then the link count tells.
      if (code === 'EEXIST') return (await stat(temp)).nlink === 2 ? 'created' : 'exists';
      if (code !== undefined && NO_HARD_LINKS.has(code)) return 'refused';
      throw this.failure('create', target, error);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async delete(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      try {
        await rm(this.file(path), { force: true });
      } catch (error) {
        throw this.failure('delete', this.file(path), error);
      }
    }
  }

  async download(path: string, file: string): Promise<{ bytes: number; sha256: string } | null> {
    try {
      return await copyHashed(this.file(path), file);
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.failure('read', this.file(path), error);
    }
  }

  async upload(path: string, file: string, expected: { bytes: number; sha256: string }): Promise<void> {
    const target = this.file(path);
    await this.makeFolder(dirname(target));
    const temp = tempBeside(target);
    try {
      const copied = await copyHashed(file, temp);
      if (copied.bytes !== expected.bytes || copied.sha256 !== expected.sha256) {
        throw new StateError(`The copy of ${file} at ${temp} holds ${copied.bytes} bytes with SHA-256 ${copied.sha256}; expected ${expected.bytes} bytes with ${expected.sha256}.`);
      }
      await flush(temp);
      await rename(temp, target);
      await flushFolder(dirname(target));
    } catch (error) {
      await rm(temp, { force: true });
      throw error instanceof StateError ? error : this.failure('write', target, error);
    }
  }

  /** `body` in a flushed temporary file beside `target`, on the same filesystem so that it can be renamed or linked there. */
  private async writeTemp(target: string, body: Buffer): Promise<string> {
    await this.makeFolder(dirname(target));
    const temp = tempBeside(target);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(body);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return temp;
    } catch (error) {
      await rm(temp, { force: true });
      throw this.failure('write', target, error);
    }
  }

  /**
   * The temporary files (see tempBeside) last written before `boundaryMs`: what writers killed between
   * writing and renaming left behind. Read only; `removeTempFiles` deletes them.
   */
  async staleTempFiles(boundaryMs: number): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return [];
      throw this.failure('list', this.root, error);
    }
    const stale: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || !TEMP_NAME.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      const stats = await stat(file).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw this.failure('list', file, error);
      });
      if (stats !== null && stats.mtimeMs < boundaryMs) stale.push(file);
    }
    return stale.sort();
  }

  /** Deletes temporary files `staleTempFiles` found; one already gone is no error. */
  async removeTempFiles(files: readonly string[]): Promise<void> {
    for (const file of files) {
      try {
        await rm(file, { force: true });
      } catch (error) {
        throw this.failure('delete', file, error);
      }
    }
  }

  private async makeFolder(folder: string): Promise<void> {
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw this.failure('create the folder', folder, error);
    }
  }

  private failure(operation: string, file: string, error: unknown): StateError {
    return new StateError(`Could not ${operation} ${file} of the state in ${this.label}: ${(error as Error).message}.`, { cause: error });
  }
}

function tempBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** A name tempBeside gives, and no other: a dotfile an operator keeps (.DS_Store, .keep) is never swept. */
const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;

/** Copies `from` to `to` (replacing it), owner-only, and says how many bytes with which SHA-256; `from` missing is thrown as ENOENT before `to` is touched. */
async function copyHashed(from: string, to: string): Promise<HashedFile> {
  const source = await open(from, 'r');
  return writeHashedFile(source.createReadStream({ highWaterMark: 1024 * 1024 }), to);
}

async function flush(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A rename is durable once its folder is flushed; some filesystems cannot flush a folder, and keep it anyway. */
async function flushFolder(folder: string): Promise<void> {
  await flush(folder).catch(() => undefined);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** ENOTDIR too: a path through a file is no object either. */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
