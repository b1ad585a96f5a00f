import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/open.js';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory under the OS temp dir, removed when the test process exits. */
export function tempDir(prefix = 'loyalty-sync-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export interface FreshMirror {
  db: Db;
  /** The SQLite file, for a child process or a second connection. */
  path: string;
  dir: string;
}

/** A new mirror file with every migration applied, in its own temp dir. */
export function freshMirror(): FreshMirror {
  const dir = tempDir('loyalty-mirror-');
  const path = join(dir, 'mirror.db');
  return { db: openDatabase(path), path, dir };
}
