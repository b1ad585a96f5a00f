import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';

const made: string[] = [];
// After the test file's last test, not at the process's exit: vitest ends its worker processes without one, which
// left every test's folders behind.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory under the OS temp dir, removed after the test file's last test. */
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
