import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from './errors.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * Refuses an --out whose replacement would lose what is stored: the page is renamed over the path, so --out
 * naming the mirror (or its -wal, -shm or journal) would swap the mirror for the page, another SQLite file
 * (a backup, a second mirror) would be gone the same way, and a device or FIFO (/dev/null, /dev/stdout to
 * root) would be replaced by a plain file. A page from an earlier run is replaced, as the help says.
 */
export async function refuseStoredData(out: string, shown: string, mirrorPath: string): Promise<void> {
  const target = await stat(out).catch(() => null);
  const mirror = resolve(mirrorPath);
  const companions = [mirror, `${mirror}-wal`, `${mirror}-shm`, `${mirror}-journal`];
  const mirrorFile = await stat(mirror).catch(() => null);
  const sameAsMirror = target !== null && mirrorFile !== null && target.dev === mirrorFile.dev && target.ino === mirrorFile.ino;
  if (companions.includes(out) || sameAsMirror) {
    throw new UsageError(`--out is "${shown}", which is the mirror ${mirrorPath} (db.path or LOYALTY_DB) or one of its files; expected another path: the page would replace it.`);
  }
  if (target === null) return;
  if (!target.isFile()) throw new UsageError(`--out is "${shown}", which is not a regular file; expected the path of an HTML file to write (it is replaced whole).`);
  if (await startsWithSqliteHeader(out)) {
    throw new UsageError(`--out is "${shown}", which holds a SQLite database; expected the path of an HTML file to write (it is replaced whole), not a database to lose.`);
  }
}

async function startsWithSqliteHeader(path: string): Promise<boolean> {
  const file = await open(path, 'r').catch(() => null);
  if (file === null) return false;
  try {
    const buffer = Buffer.alloc(SQLITE_HEADER.length);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return bytesRead === buffer.length && buffer.toString('latin1') === SQLITE_HEADER;
  } finally {
    await file.close();
  }
}
