import type { Db } from '../db/open.js';

/**
 * The rows a save must carry are found by triggers: every insert, update and delete of a mirror
 * table leaves a marker (table, rowid, epoch) in `state_changes`. The epoch counts saves: a save
 * closes the current epoch and ships the rows marked in the epochs since the last one, so the
 * bucket receives what changed and never the whole mirror again. Installed only when `state.url` is
 * set, so a mirror without a bucket state pays nothing on its hot paths.
 */

/** Tables of the state machinery itself, and the local writer lock, which a restored mirror must not inherit. */
export const UNSAVED_TABLES: ReadonlySet<string> = new Set(['state_changes', 'state_epoch', 'state_local', 'instance_lock']);
/** A marker with this rowid means "the whole table": tables without rowids are small and shipped whole. */
export const WHOLE_TABLE = 0;
const TRIGGER_PREFIX = 'state_track_';

export interface SavedTable {
  name: string;
  /** Without a rowid (WITHOUT ROWID, or SQLite's own sqlite_sequence): always shipped whole when changed. */
  whole: boolean;
}

/** The tables a state holds: every table of the mirror but the state's own and the local lock. */
export function savedTables(db: Db): SavedTable[] {
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string | null }>;
  return rows
    .filter((row) => !UNSAVED_TABLES.has(row.name) && (row.name === 'sqlite_sequence' || !row.name.startsWith('sqlite_')))
    .map((row) => ({ name: row.name, whole: row.name === 'sqlite_sequence' || /\bWITHOUT\s+ROWID\b/i.test(row.sql ?? '') }));
}

export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The state's own tables: markers, the epoch counter, and where the local mirror stands. */
export function createStateTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS state_changes (tbl TEXT NOT NULL, rid INTEGER NOT NULL, epoch INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS state_changes_epoch ON state_changes (epoch);
    CREATE TABLE IF NOT EXISTS state_epoch (one INTEGER PRIMARY KEY CHECK (one = 1), epoch INTEGER NOT NULL);
    INSERT OR IGNORE INTO state_epoch (one, epoch) VALUES (1, 1);
    CREATE TABLE IF NOT EXISTS state_local (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `);
}

/** The state's tables and a trigger trio on every saved table that lacks one (new tables come with migrations). */
export function installChangeTracking(db: Db): void {
  createStateTables(db);
  const existing = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'state_track_%'").all() as Array<{ name: string }>).map((row) => row.name));
  db.transaction(() => {
    for (const table of savedTables(db)) {
      if (table.name === 'sqlite_sequence') continue;
      const quoted = quoteName(table.name);
      const literal = `'${table.name.replaceAll("'", "''")}'`;
      const mark = (rid: string): string =>
        `INSERT INTO state_changes (tbl, rid, epoch) VALUES (${literal}, ${table.whole ? WHOLE_TABLE : rid}, (SELECT epoch FROM state_epoch)) ON CONFLICT (tbl, rid) DO UPDATE SET epoch = excluded.epoch;`;
      const triggers: Array<[string, string]> = [
        ['ins', `AFTER INSERT ON ${quoted} BEGIN ${mark('NEW.rowid')} END`],
        ['upd', `AFTER UPDATE ON ${quoted} BEGIN ${mark('OLD.rowid')} ${table.whole ? '' : mark('NEW.rowid')} END`],
        ['del', `AFTER DELETE ON ${quoted} BEGIN ${mark('OLD.rowid')} END`],
      ];
      for (const [suffix, body] of triggers) {
        const name = `${TRIGGER_PREFIX}${table.name}_${suffix}`;
        if (!existing.has(name)) db.exec(`CREATE TRIGGER ${quoteName(name)} ${body}`);
      }
    }
  })();
}

/** Closes the current epoch and returns it: changes from now on are marked with the next one. */
export function closeEpoch(db: Db): number {
  // Immediate: the read of the epoch and its increment must not interleave with another writer's.
  return db.transaction(() => {
    const { epoch } = db.prepare('SELECT epoch FROM state_epoch').get() as { epoch: number };
    db.prepare('UPDATE state_epoch SET epoch = ?').run(epoch + 1);
    return epoch;
  }).immediate();
}

/** Whether any row changed after epoch `since` closed (the last save's). */
export function changedSince(db: Db, since: number): boolean {
  return db.prepare('SELECT 1 FROM state_changes WHERE epoch > ? LIMIT 1').get(since) !== undefined;
}

/** Markers a new base made needless: the base holds every row as of `epoch`. */
export function forgetChangesThrough(db: Db, epoch: number): void {
  db.prepare('DELETE FROM state_changes WHERE epoch <= ?').run(epoch);
}

/** Where the local mirror stands against the bucket's state: which state, and the epoch of its last save or restore. */
export interface LocalStateMark {
  url: string;
  stateId: string;
  epoch: number;
  seq: number;
}

export function readLocalMark(db: Db): LocalStateMark | null {
  const rows = db.prepare('SELECT key, value FROM state_local').all() as Array<{ key: string; value: string }>;
  const values = new Map(rows.map((row) => [row.key, row.value]));
  const url = values.get('url');
  const stateId = values.get('state_id');
  if (url === undefined || stateId === undefined) return null;
  return { url, stateId, epoch: Number(values.get('epoch') ?? 0), seq: Number(values.get('seq') ?? 0) };
}

export function writeLocalMark(db: Db, mark: LocalStateMark): void {
  const put = db.prepare('INSERT INTO state_local (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  db.transaction(() => {
    put.run('url', mark.url);
    put.run('state_id', mark.stateId);
    put.run('epoch', String(mark.epoch));
    put.run('seq', String(mark.seq));
  })();
}
