import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

const permissions = (path: string): string => (statSync(path).mode & 0o777).toString(8);

// With no umask, a file created with the default mode would be readable (and writable) by everyone: only
// the mode the mirror is created with can keep it private. The CLI's child process inherits this umask.
let umask: number;
beforeEach(() => {
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});

it('a mirror a command creates is readable by its owner only, and so are its WAL log and index', async () => {
  const path = join(tempDir('ls-owner-only-'), 'data', 'mirror.db');
  const added = await runCli(['queue', 'add-points', '--customer', 'c-7', '--points', '5', '--reason', 'welcome'], { env: { LOYALTY_DB: path } });
  expect(added.code, added.stderr).toBe(0);
  expect(permissions(path)).toBe('600');

  // While a connection writes, SQLite keeps the -wal and -shm files beside it, with the mirror's mode.
  const db = openDatabase(path);
  try {
    db.prepare("UPDATE write_jobs SET updated_at = updated_at WHERE id = 1").run();
    expect([permissions(`${path}-wal`), permissions(`${path}-shm`)]).toEqual(['600', '600']);
  } finally {
    db.close();
  }
});
