import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { listMigrations } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { updateLedger, type LedgerSettings } from '../../src/ledger/updateLedger.js';
import { tempDir } from '../helpers/tempDir.js';

/**
 * What `read` finds in a copy of the mirror once the ledger is built whole there: the tables an update must equal.
 * The copy is removed afterwards.
 */
export function readFullBuild<T>(db: Db, settings: LedgerSettings, now: Date, read: (copy: Db) => T): T {
  const folder = tempDir('ledger-copy-');
  try {
    const path = join(folder, 'copy.db');
    db.prepare('VACUUM INTO ?').run(path);
    const copy = openDatabase(path);
    copy.prepare('DELETE FROM ledger_state').run();
    expect(updateLedger(copy, settings, now).full).toBe(true);
    const found = read(copy);
    copy.close();
    return found;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * A mirror as the version before migration `version` left it: every earlier migration applied, and `tables` holding
 * the rows of the mirror at `built` (the same rows in either schema, in the columns the older one has). Returns its path, to open with this version.
 */
export function mirrorBeforeMigration(built: string, version: number, tables: readonly string[]): string {
  const path = join(tempDir('loyalty-mirror-'), 'mirror.db');
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    old.exec(migration.sql);
    old.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, '2026-11-01T00:00:00Z');
  }
  old.prepare('ATTACH DATABASE ? AS built').run(built);
  for (const table of tables) {
    // The older schema's columns: a later migration may have added some to the table.
    const columns = (old.prepare(`SELECT name FROM pragma_table_info('${table}', 'main')`).pluck().all() as string[]).join(', ');
    old.exec(`DELETE FROM main.${table}; INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM built.${table}`);
  }
  old.exec('DETACH DATABASE built');
  old.close();
  return path;
}
