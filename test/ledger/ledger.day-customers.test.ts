/**
 * ledger_day_customers holds each day's customers of customer_points_daily as one blob, which the active members
 * read: ids of any size a mirror stores (beyond 32 bits, below zero, up to 2^53 − 1) come back exactly, updates and
 * full builds write the same days, and a mirror an earlier version built gets the table filled by the migration.
 */
import { describe, expect, it } from 'vitest';
import { closeEpoch, installChangeTracking } from '../../src/state/changeTracking.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { dayCustomers } from '../../src/ledger/dayCustomers.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorBeforeMigration, readFullBuild } from './ledgerCopies.js';

const UTC = { timeZone: 'UTC', pointValue: null };
const NOW = new Date('2026-04-25T12:00:00Z');
/** The migration that adds ledger_day_customers. */
const DAY_CUSTOMERS_MIGRATION = 18;
const BIG = 2 ** 40 + 3;
const LARGEST = Number.MAX_SAFE_INTEGER;
const NEGATIVE = -5;
const NEGATIVE_BIG = -(2 ** 40 + 3);
const SMALLEST = Number.MIN_SAFE_INTEGER;

function nextSeq(db: Db): number {
  return db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
}

function storeMember(db: Db, id: number): void {
  db.prepare(
    `INSERT INTO customers (id, enrolled, enrolled_at, created_at, points_approved, points_pending, raw, _synced_at, _change_seq)
     VALUES (?, 1, '2026-01-05T09:00:00.000Z', '2026-01-05T09:00:00.000Z', 0, 0, '{}', '2026-03-01T00:00:00Z', ?)`,
  ).run(id, nextSeq(db));
}

function storeEarning(db: Db, id: number, customer: number, at: string): void {
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, 100, 0, 'activity', 'approved', ?, '{}', '2026-03-01T00:00:00Z', ?)`,
  ).run(id, customer, at, nextSeq(db));
}

/** Day → active_members_30d for the days asked (-1: no row). */
function activeOn(db: Db, days: readonly string[]): Record<string, number> {
  const byDay = new Map((db.prepare('SELECT day, active_members_30d FROM program_metrics_daily').raw().all() as Array<[string, number]>).map(([day, active]) => [day, active]));
  return Object.fromEntries(days.map((day) => [day, byDay.get(day) ?? -1]));
}

/** Each day's customers as ledger_day_customers gives them back. */
function storedDayCustomers(db: Db): Array<[string, number[]]> {
  return [...dayCustomers(db, '0000-01-01', '9999-12-31')].map(({ day, customers }) => [day, Array.from({ length: customers.length }, (_, i) => customers.at(i))]);
}

/** Each day's customers as customer_points_daily's rows name them. */
function rowDayCustomers(db: Db): Array<[string, number[]]> {
  const byDay = new Map<string, number[]>();
  for (const [day, customer] of db.prepare('SELECT day, customer_id FROM customer_points_daily ORDER BY day, customer_id').raw().iterate() as IterableIterator<[string, number]>) {
    byDay.set(day, [...(byDay.get(day) ?? []), customer]);
  }
  return [...byDay];
}

function modelTables(db: Db): Record<string, unknown[]> {
  return {
    program_metrics_daily: db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all(),
    points_ledger_daily: db.prepare('SELECT * FROM points_ledger_daily ORDER BY day').all(),
    ledger_day_customers: storedDayCustomers(db),
  };
}

function fullBuildOf(db: Db): Record<string, unknown[]> {
  return readFullBuild(db, UTC, NOW, modelTables);
}

describe("each day's customers, kept as one blob a day", () => {
  it('count members of any id as active over the 30 days from their movement, in updates as in a full build', () => {
    const { db } = freshMirror();
    for (const id of [BIG, NEGATIVE, LARGEST, 12, NEGATIVE_BIG, SMALLEST]) storeMember(db, id);
    storeEarning(db, 1, BIG, '2026-03-01T10:00:00Z');
    storeEarning(db, 2, NEGATIVE, '2026-03-10T10:00:00Z');
    storeEarning(db, 3, 12, '2026-03-10T11:00:00Z');
    storeEarning(db, 6, NEGATIVE_BIG, '2026-03-01T11:00:00Z');
    updateLedger(db, UTC, NOW);
    // A later sync: a movement on a new day, and ones on a day already built.
    storeEarning(db, 4, LARGEST, '2026-03-20T10:00:00Z');
    storeEarning(db, 5, BIG, '2026-03-10T12:00:00Z');
    storeEarning(db, 7, SMALLEST, '2026-03-10T13:00:00Z');
    expect(updateLedger(db, UTC, NOW).full).toBe(false);

    expect(storedDayCustomers(db)).toEqual([
      ['2026-03-01', [NEGATIVE_BIG, BIG]],
      ['2026-03-10', [SMALLEST, NEGATIVE, 12, BIG]],
      ['2026-03-20', [LARGEST]],
    ]);
    expect(storedDayCustomers(db)).toEqual(rowDayCustomers(db));
    // BIG's movements of 1 and 10 March cover 1 March to 8 April; NEGATIVE_BIG's, 1 to 30 March; NEGATIVE's, 12's
    // and SMALLEST's, 10 March to 8 April; LARGEST's, 20 March to 18 April.
    expect(activeOn(db, ['2026-02-28', '2026-03-01', '2026-03-10', '2026-03-20', '2026-03-30', '2026-03-31', '2026-04-08', '2026-04-09', '2026-04-18', '2026-04-19'])).toEqual({
      '2026-02-28': 0,
      '2026-03-01': 2,
      '2026-03-10': 5,
      '2026-03-20': 6,
      '2026-03-30': 6,
      '2026-03-31': 5,
      '2026-04-08': 5,
      '2026-04-09': 1,
      '2026-04-18': 1,
      '2026-04-19': 0,
    });
    expect(db.prepare("SELECT customers FROM points_ledger_daily WHERE day IN ('2026-03-01', '2026-03-10', '2026-03-11') ORDER BY day").pluck().all()).toEqual([2, 4, 0]);
    expect(modelTables(db)).toEqual(fullBuildOf(db));
    db.close();
  });

  it("are written only for the days whose customers changed, so a state in a bucket ships no more than those", () => {
    const { db } = freshMirror();
    installChangeTracking(db);
    for (const id of [BIG, 12]) storeMember(db, id);
    storeEarning(db, 1, BIG, '2026-04-20T10:00:00Z');
    storeEarning(db, 2, 12, '2026-04-25T09:00:00Z');
    updateLedger(db, UTC, NOW);
    const marked = (): number[] => {
      const epoch = closeEpoch(db);
      return db.prepare("SELECT rid FROM state_changes WHERE tbl = 'ledger_day_customers' AND epoch = ? ORDER BY rid").pluck().all(epoch) as number[];
    };
    expect(marked()).toHaveLength(2);
    // A sync that found nothing: the update rebuilds today, whose customers are the same.
    updateLedger(db, UTC, new Date(NOW.getTime() + 60_000));
    expect(marked()).toEqual([]);
    // A new customer today: today's row, and only it.
    storeEarning(db, 3, BIG, '2026-04-25T11:00:00Z');
    updateLedger(db, UTC, new Date(NOW.getTime() + 120_000));
    const today = db.prepare("SELECT rowid FROM ledger_day_customers WHERE day = '2026-04-25'").pluck().get() as number;
    expect(marked()).toEqual([today]);
    expect(storedDayCustomers(db)).toEqual([
      ['2026-04-20', [BIG]],
      ['2026-04-25', [12, BIG]],
    ]);
    db.close();
  });

  it('are filled by the migration from the rows a mirror built before it, and its next update equals a full build', () => {
    const built = freshMirror();
    for (const id of [BIG, NEGATIVE, 12]) storeMember(built.db, id);
    storeEarning(built.db, 1, BIG, '2026-03-01T10:00:00Z');
    storeEarning(built.db, 2, NEGATIVE, '2026-03-01T11:00:00Z');
    storeEarning(built.db, 3, 12, '2026-03-03T10:00:00Z');
    updateLedger(built.db, UTC, NOW);
    const before = modelTables(built.db);
    built.db.close();

    const path = mirrorBeforeMigration(built.path, DAY_CUSTOMERS_MIGRATION, [
      'customers', 'transactions', 'change_counter', 'customer_points_daily', 'points_ledger_daily', 'program_metrics_daily', 'ledger_state', 'ledger_members', 'ledger_balances',
    ]);
    const db = openDatabase(path);
    expect(modelTables(db)).toEqual(before);
    expect(storedDayCustomers(db)).toEqual([
      ['2026-03-01', [NEGATIVE, BIG]],
      ['2026-03-03', [12]],
    ]);
    storeEarning(db, 4, 12, '2026-03-25T10:00:00Z');
    expect(updateLedger(db, UTC, NOW).full).toBe(false);
    expect(activeOn(db, ['2026-03-25', '2026-03-31', '2026-04-02', '2026-04-24'])).toEqual({ '2026-03-25': 3, '2026-03-31': 1, '2026-04-02': 1, '2026-04-24': 0 });
    expect(modelTables(db)).toEqual(fullBuildOf(db));
    db.close();
  });
});
