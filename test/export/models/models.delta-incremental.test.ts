import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.js';
import { listMigrations } from '../../../src/db/migrate.js';
import { openDatabase, type Db } from '../../../src/db/open.js';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { runExport, type ExportReport } from '../../../src/export/index.js';
import { updateLedger, type LedgerSettings } from '../../../src/ledger/updateLedger.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { exportConfig, silentLogger, tempDir, upsert } from '../helpers.js';
import { expectEngineReadsMirror } from '../delta/engineChecks.js';

const UTC: LedgerSettings = { timeZone: 'UTC', pointValue: null };
/** The zone a later full build moves the program to. */
const KIRITIMATI: LedgerSettings = { timeZone: 'Pacific/Kiritimati', pointValue: null };
const CUSTOMERS = 1000;
/**
 * 20 days of a transaction for every customer but the last, who has none from day 17 on (a customer whose rows near
 * the end of the first file have a file of rows between them and the newest days): 19,996 customer-days, two Delta
 * files of at most 16,384 rows.
 */
const DAYS = 20;
const QUIET_CUSTOMER = CUSTOMERS;
const QUIET_FROM_DAY = 17;
const FIRST_ROWS = CUSTOMERS * DAYS - (DAYS - QUIET_FROM_DAY + 1);
/** The daily tables are written whole by every export (models.export-typed checks them): this follows the one that is not. */
const TABLES = ['customer_points_daily'] as const;

let nextId = 1;
function transaction(customerId: number, day: string, approved: number): ApiRecord {
  return { id: nextId++, customer: { id: customerId }, points_approved: approved, points_pending: 0, created_at: `${day}T12:00:00.000Z`, resource: 'points_import' };
}

const dayOf = (n: number): string => `2026-01-${String(n).padStart(2, '0')}`;

/** The row's rowid in the mirror: the Delta files name the rowids they hold. */
function rowidOf(db: Db, customer: number, day: string): number {
  return db.prepare('SELECT rowid FROM customer_points_daily WHERE customer_id = ? AND day = ?').pluck().get(customer, day) as number;
}

describe("customer_points_daily's Delta table follows the ledger's updates, as the streams' tables follow the sync", () => {
  let db: Db;
  let config: Readonly<Config>;
  const root = (table: string): string => join(config.export.dir, 'delta', table);
  const exportModels = (): Promise<ExportReport> => runExport({ db, config, logger: silentLogger, tables: [...TABLES], formats: ['delta'] });
  const entry = (report: ExportReport): ExportReport['delta'][number] => report.delta.find((table) => table.table === 'customer_points_daily')!;
  const files = async (): Promise<Map<string, { from: number; to: number }>> => {
    const { state } = await readDeltaTable(root('customer_points_daily'));
    return new Map([...state.files.values()].map((add) => [add.path, { from: Number(add.tags?.['loyalty_sync.rowid_min']), to: Number(add.tags?.['loyalty_sync.rowid_max']) }]));
  };
  /** After an export: each file of `before` is still there exactly when it holds none of the `changed` rowids. */
  const expectRewritten = async (before: Map<string, { from: number; to: number }>, changed: readonly number[]): Promise<number> => {
    const after = await files();
    let rewritten = 0;
    for (const [path, range] of before) {
      const holdsChanged = changed.some((rowid) => range.from <= rowid && rowid <= range.to);
      expect(after.has(path), `${path}, rowids ${range.from}-${range.to}`).toBe(!holdsChanged);
      if (holdsChanged) rewritten += 1;
    }
    return rewritten;
  };
  const expectEngineEqualsMirror = (): void => {
    for (const table of TABLES) expectEngineReadsMirror(db, table, root(table));
  };

  beforeAll(async () => {
    const dir = tempDir('models-delta-');
    config = exportConfig(dir, { formats: ['delta'] });
    db = openDatabase(config.db.path);
    const records: ApiRecord[] = [];
    for (let day = 1; day <= DAYS; day += 1) {
      for (let customer = 1; customer <= CUSTOMERS; customer += 1) {
        if (customer !== QUIET_CUSTOMER || day < QUIET_FROM_DAY) records.push(transaction(customer, dayOf(day), customer % 7));
      }
    }
    upsert(db, 'transactions', records);
    updateLedger(db, UTC, new Date('2026-01-21T06:00:00Z'));
    const first = await exportModels();
    expect(entry(first)).toMatchObject({ version: 0, committed: true, rowsAdded: FIRST_ROWS });
    expect((await files()).size).toBe(2);
  });
  afterAll(() => db.close());

  it('a day of new transactions adds their rows and keeps every file before', async () => {
    const before = await files();
    upsert(db, 'transactions', Array.from({ length: 500 }, (_, i) => transaction(i + 1, dayOf(21), 5)));
    updateLedger(db, UTC, new Date('2026-01-21T18:00:00Z'));
    const report = await exportModels();
    expect(entry(report)).toMatchObject({ version: 1, committed: true, rowsAdded: 500, rowsRemoved: 0 });
    const after = await files();
    for (const path of before.keys()) expect(after.has(path), path).toBe(true);
    expectEngineEqualsMirror();
  });

  it("a late transaction three days back rewrites the files of that customer's rows since, and no other", async () => {
    const before = await files();
    const changed = [dayOf(18), dayOf(19), dayOf(20), dayOf(21)].map((day) => rowidOf(db, 7, day));
    upsert(db, 'transactions', [transaction(7, dayOf(18), 1000)]);
    updateLedger(db, UTC, new Date('2026-01-21T19:00:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 2, committed: true });
    expect(await expectRewritten(before, changed)).toBe(2);
    expectEngineEqualsMirror();
  });

  it("rows changed thousands of rowids apart rewrite their own files, not the file between them", async () => {
    // The quiet customer's rows of days 15 and 16 close the first file; their newest row lands past the second.
    upsert(db, 'transactions', [transaction(QUIET_CUSTOMER, dayOf(21), 2)]);
    updateLedger(db, UTC, new Date('2026-01-21T19:10:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 3, committed: true });
    const before = await files();
    const changed = [dayOf(15), dayOf(16), dayOf(21)].map((day) => rowidOf(db, QUIET_CUSTOMER, day));
    upsert(db, 'transactions', [transaction(QUIET_CUSTOMER, dayOf(15), 40)]);
    updateLedger(db, UTC, new Date('2026-01-21T19:20:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 4, committed: true });
    expect(await expectRewritten(before, changed)).toBe(2);
    expect(before.size - 2, 'files between the changed rows, kept').toBeGreaterThanOrEqual(1);
    expectEngineEqualsMirror();
  });

  it('a transaction marked removed, as verify --repair marks one the API no longer has, takes its customer-day out of the table', async () => {
    const gone = rowidOf(db, 900, dayOf(20));
    const id = db.prepare("SELECT id FROM transactions WHERE customer_id = 900 AND created_at LIKE '2026-01-20%'").pluck().get() as number;
    const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
    db.prepare('UPDATE transactions SET _removed_at = ?, _change_seq = ? WHERE id = ?').run('2026-01-21T20:00:00.000Z', seq, id);
    updateLedger(db, UTC, new Date('2026-01-21T20:00:00Z'));
    expect(db.prepare('SELECT count(*) FROM customer_points_daily WHERE rowid = ?').pluck().get(gone)).toBe(0);
    const report = await exportModels();
    expect(entry(report)).toMatchObject({ version: 5, committed: true });
    expectEngineEqualsMirror();
  });

  it('an export between a sync and its ledger update misses nothing: the next export writes what the update did', async () => {
    upsert(db, 'transactions', [transaction(950, dayOf(21), 3)]);
    updateLedger(db, UTC, new Date('2026-01-21T21:00:00Z'));
    // The next sync stores a transaction; an export runs before that sync's ledger update.
    upsert(db, 'transactions', [transaction(960, dayOf(21), 4)]);
    expect(entry(await exportModels())).toMatchObject({ version: 6, committed: true });
    updateLedger(db, UTC, new Date('2026-01-21T21:30:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 7, committed: true });
    expectEngineEqualsMirror();
  });

  it('commits nothing when the ledger changed no row since', async () => {
    updateLedger(db, UTC, new Date('2026-01-21T22:00:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 7, committed: false });
    expectEngineEqualsMirror();
  });

  it('a full build (program.timeZone changed) rewrites the table whole', async () => {
    const rows = db.prepare('SELECT count(*) FROM customer_points_daily').pluck().get() as number;
    expect(updateLedger(db, KIRITIMATI, new Date('2026-01-21T22:30:00Z')).full).toBe(true);
    const report = await exportModels();
    expect(entry(report)).toMatchObject({ version: 8, committed: true, rowsRemoved: rows });
    expectEngineEqualsMirror();
  });

  it('after an upgrade from a version that noted nothing, the first export writes the table whole', async () => {
    const counter = (): number => db.prepare('SELECT value FROM change_counter WHERE id = 1').pluck().get() as number;
    // An update, then a sync whose transaction an export reflects (the table's txn names the counter) before the
    // version before migration 021 updates the ledger for it: rows changed, nothing noted, the counter where it was.
    upsert(db, 'transactions', [transaction(970, dayOf(21), 6)]);
    updateLedger(db, KIRITIMATI, new Date('2026-01-21T23:00:00Z'));
    upsert(db, 'transactions', [transaction(980, dayOf(21), 7)]);
    const reflected = counter();
    expect(entry(await exportModels())).toMatchObject({ version: 9, committed: true });
    updateLedger(db, KIRITIMATI, new Date('2026-01-21T23:10:00Z'));
    db.prepare('UPDATE change_counter SET value = ? WHERE id = 1').run(reflected);
    db.exec('DROP TABLE ledger_row_changes; ALTER TABLE ledger_state DROP COLUMN notes_built_at');
    db.exec(listMigrations().find((migration) => migration.version === 21)!.sql);

    const rows = db.prepare('SELECT count(*) FROM customer_points_daily').pluck().get() as number;
    expect(entry(await exportModels())).toMatchObject({ version: 10, committed: true, rowsAdded: rows });
    expectEngineEqualsMirror();
    // Once, not at every export after: the next update is noted again.
    upsert(db, 'transactions', [transaction(985, dayOf(21), 2)]);
    updateLedger(db, KIRITIMATI, new Date('2026-01-21T23:15:00Z'));
    const next = entry(await exportModels());
    expect(next).toMatchObject({ version: 11, committed: true });
    expect(next.rowsAdded).toBeLessThan(rows);
    expectEngineEqualsMirror();
  });

  it('after an older version updated the ledger again (a rollback), the next export writes the table whole', async () => {
    const rows = (): number => db.prepare('SELECT count(*) FROM customer_points_daily').pluck().get() as number;
    // The older version's update: rows changed and a new built_at, with no note and notes_built_at left as it was.
    const olderUpdate = (customer: number, at: string): void => {
      const { noted, counter } = db.prepare('SELECT notes_built_at AS noted, (SELECT value FROM change_counter) AS counter FROM ledger_state').get() as { noted: string; counter: number };
      upsert(db, 'transactions', [transaction(customer, dayOf(21), 8)]);
      updateLedger(db, KIRITIMATI, new Date(at));
      db.prepare('DELETE FROM ledger_row_changes WHERE change_seq > ?').run(counter);
      db.prepare('UPDATE ledger_state SET notes_built_at = ?').run(noted);
    };
    olderUpdate(990, '2026-01-21T23:20:00Z');
    expect(entry(await exportModels())).toMatchObject({ version: 12, committed: true, rowsAdded: rows() });
    expectEngineEqualsMirror();

    // This version updates after the older one, before any export: its note covers the older one's rows too.
    olderUpdate(991, '2026-01-21T23:30:00Z');
    upsert(db, 'transactions', [transaction(992, dayOf(21), 9)]);
    updateLedger(db, KIRITIMATI, new Date('2026-01-21T23:40:00Z'));
    expect(entry(await exportModels())).toMatchObject({ version: 13, committed: true, rowsAdded: rows() });
    expectEngineEqualsMirror();
    // And from then on, the table follows the notes again.
    upsert(db, 'transactions', [transaction(993, dayOf(21), 10)]);
    updateLedger(db, KIRITIMATI, new Date('2026-01-21T23:50:00Z'));
    const followed = entry(await exportModels());
    expect(followed).toMatchObject({ version: 14, committed: true });
    expect(followed.rowsAdded).toBeLessThan(rows());
    expectEngineEqualsMirror();
  });
});
