import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

/** A mirror with one transaction and a built ledger: what `report` reads. */
function mirrorWithLedger(): { path: string; dir: string } {
  const { db, path, dir } = freshMirror();
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (1, 7, 100, 0, 'activity', 'approved', '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', 1)`,
  ).run();
  updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));
  db.close();
  return { path, dir };
}

const transactionsIn = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
  } finally {
    db.close();
  }
};

describe('report --out never replaces what is stored', () => {
  it('refuses the mirror itself as --out (exit 2, one sentence), and the mirror keeps its rows', async () => {
    const { path } = mirrorWithLedger();
    const result = await runCli(['report', '--out', path], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`--out is "${path}"`);
    expect(result.stderr).toContain('the mirror');
    expect(transactionsIn(path)).toBe(1);
  });

  it('refuses another SQLite database as --out', async () => {
    const { path, dir } = mirrorWithLedger();
    const other = join(dir, 'backup.db');
    copyFileSync(path, other);
    const result = await runCli(['report', '--out', other], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('SQLite database');
    expect(transactionsIn(other)).toBe(1);
  });

  it('refuses a --out that is not a regular file (a FIFO here; /dev/null is the same to root), leaving it as it was', async () => {
    const { path, dir } = mirrorWithLedger();
    const fifo = join(dir, 'pipe.html');
    execFileSync('mkfifo', [fifo]);
    const result = await runCli(['report', '--out', fifo], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('not a regular file');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('still replaces an earlier page whole', async () => {
    const { path, dir } = mirrorWithLedger();
    const page = join(dir, 'points.html');
    writeFileSync(page, 'old page');
    const result = await runCli(['report', '--out', page], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain('<!DOCTYPE html>');
  });
});
