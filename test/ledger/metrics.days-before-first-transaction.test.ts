/**
 * program_metrics_daily covers every day from the first transaction, order or enrolment on: orders and members
 * that precede the first transaction, or a program without any, are in its rows, and its revenue is all the
 * orders' revenue. An update after an order older than every row writes what a full build writes.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { syncMirror, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';
import { readFullBuild } from './ledgerCopies.js';
import { expectedTables } from './expectedLedger.js';

const UTC = { timeZone: 'UTC', pointValue: null };

let sim: SimulatorHandle | undefined;
/** The temp folders of this file's mirrors, removed after each test. */
const folders: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function mirror(): ReturnType<typeof freshMirror> {
  const made = freshMirror();
  folders.push(made.dir);
  return made;
}

function nextSeq(db: Db): number {
  return db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
}

function storeCustomer(db: Db, id: number, enrolledAt: string | null): void {
  db.prepare(
    `INSERT INTO customers (id, enrolled, enrolled_at, created_at, points_approved, points_pending, raw, _synced_at, _change_seq)
     VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', 0, 0, '{}', '2026-03-01T00:00:00Z', ?)`,
  ).run(id, enrolledAt === null ? 0 : 1, enrolledAt, nextSeq(db));
}

function storeOrder(db: Db, id: number, customer: number, paid: string, refunded: string, at: string): void {
  db.prepare(
    `INSERT INTO orders (id, customer_id, total_paid, total_refunded, created_at, raw, _synced_at, _change_seq) VALUES (?, ?, ?, ?, ?, '{}', '2026-03-01T00:00:00Z', ?)`,
  ).run(id, customer, paid, refunded, at, nextSeq(db));
}

function storeEarning(db: Db, id: number, customer: number, at: string): void {
  const raw = JSON.stringify({ id, customer: { id: customer }, points_approved: 100, points_pending: 0, created_at: at, resource: 'activity' });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, 100, 0, 'activity', 'approved', ?, ?, '2026-03-01T00:00:00Z', ?)`,
  ).run(id, customer, at, raw, nextSeq(db));
}

function metrics(db: Db): Array<Record<string, unknown>> {
  return db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all() as Array<Record<string, unknown>>;
}

/** program_metrics_daily as a full build of a copy of the mirror writes it. */
function metricsOfFullBuild(db: Db, settings: { timeZone: string; pointValue: string | null }, now: Date): Array<Record<string, unknown>> {
  return readFullBuild(db, settings, now, metrics);
}

/** The first and last day, the row count, and the revenue and orders over every row. */
function coverage(db: Db): { first: string; last: string; rows: number; revenue: number; orders: number } {
  return db
    .prepare('SELECT min(day) AS first, max(day) AS last, count(*) AS rows, sum(CAST(revenue AS REAL)) AS revenue, sum(orders) AS orders FROM program_metrics_daily')
    .get() as { first: string; last: string; rows: number; revenue: number; orders: number };
}

describe('program_metrics_daily starts at the first transaction, order or enrolment', () => {
  it('orders and members without any transaction, then before the first one, show in the rows; each update equals a full build', () => {
    const { db } = mirror();
    const now = new Date('2026-03-02T12:00:00Z');
    storeCustomer(db, 7, '2026-02-01T08:00:00.000Z');
    storeCustomer(db, 9, null);
    storeOrder(db, 1, 7, '50.00', '0.00', '2026-02-20T10:00:00.000Z');
    storeOrder(db, 2, 9, '30.00', '5.00', '2026-02-25T10:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(db.prepare('SELECT count(*) FROM points_ledger_daily').pluck().get()).toBe(0);
    // Every day from the enrolment (1 February) to today, without gaps.
    expect(coverage(db)).toEqual({ first: '2026-02-01', last: '2026-03-02', rows: 30, revenue: 75, orders: 2 });
    expect(db.prepare("SELECT day, members, orders, revenue, member_orders, member_revenue FROM program_metrics_daily WHERE orders > 0 ORDER BY day").all()).toEqual([
      { day: '2026-02-20', members: 1, orders: 1, revenue: '50.00', member_orders: 1, member_revenue: '50.00' },
      { day: '2026-02-25', members: 1, orders: 1, revenue: '25.00', member_orders: 0, member_revenue: '0.00' },
    ]);
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // The first transaction comes on 1 March: the earlier rows stay, and its points count from its day.
    storeEarning(db, 1, 7, '2026-03-01T10:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(coverage(db)).toEqual({ first: '2026-02-01', last: '2026-03-02', rows: 30, revenue: 75, orders: 2 });
    expect(db.prepare("SELECT points_earned_30d, active_members_30d FROM program_metrics_daily WHERE day = '2026-03-02'").get()).toEqual({ points_earned_30d: 100, active_members_30d: 1 });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // An order older than every row (10 January, seen late) moves the first day back; the update starts there.
    storeOrder(db, 3, 9, '20.00', '0.00', '2026-01-10T23:30:00.000Z');
    expect(updateLedger(db, UTC, now).rebuiltFrom.program_metrics_daily).toBe('2026-01-10');
    expect(coverage(db)).toEqual({ first: '2026-01-10', last: '2026-03-02', rows: 52, revenue: 95, orders: 3 });
    expect(db.prepare("SELECT members, revenue FROM program_metrics_daily WHERE day = '2026-01-10'").get()).toEqual({ members: 0, revenue: '20.00' });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // Gone from the API (the deep refresh marks it removed): the rows start at the enrolment again.
    db.prepare("UPDATE orders SET _removed_at = '2026-03-02T12:00:00Z', _change_seq = ? WHERE id = 3").run(nextSeq(db));
    updateLedger(db, UTC, now);
    expect(coverage(db)).toEqual({ first: '2026-02-01', last: '2026-03-02', rows: 30, revenue: 75, orders: 2 });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // An order the API dates tomorrow (a clock ahead) is counted on its day too.
    storeOrder(db, 4, 7, '10.00', '0.00', '2026-03-03T09:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(coverage(db)).toEqual({ first: '2026-02-01', last: '2026-03-03', rows: 31, revenue: 85, orders: 3 });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));
    db.close();
  });

  it('an order whose text sorts after the first yet is earlier (another offset) sets the first day', () => {
    const { db } = mirror();
    const tokyo = { timeZone: 'Asia/Tokyo', pointValue: null };
    // 20:00 UTC on 31 January is 1 February in Tokyo; 00:30 on 1 February at +14:00 is 19:30 on 31 January there.
    storeOrder(db, 1, 9, '10.00', '0.00', '2026-01-31T20:00:00.000Z');
    storeOrder(db, 2, 9, '5.00', '0.00', '2026-02-01T00:30:00+14:00');
    updateLedger(db, tokyo, new Date('2026-02-03T00:00:00Z'));
    expect(db.prepare('SELECT day, orders, revenue FROM program_metrics_daily WHERE orders > 0 ORDER BY day').all()).toEqual([
      { day: '2026-01-31', orders: 1, revenue: '5.00' },
      { day: '2026-02-01', orders: 1, revenue: '10.00' },
    ]);
    expect(coverage(db)).toEqual({ first: '2026-01-31', last: '2026-02-03', rows: 4, revenue: 15, orders: 2 });
    db.close();
  });

  it('a synced simulator program: the rows start with its first customer and order, and hold all its revenue', async () => {
    sim = await startSimulator({ size: 'small', seed: 21 });
    const { db, path } = mirror();
    const config = testConfig(sim, path, { program: { timeZone: 'UTC' }, ledger: { pointValue: null } });
    await syncMirror(db, config);
    const today = new Date().toISOString().slice(0, 10);
    const orders = sim.truth('orders') as Array<{ created_at: string; total_paid: string; total_refunded: string }>;
    const cents = orders.reduce((sum, o) => sum + Math.round(Number(o.total_paid) * 100) - Math.round(Number(o.total_refunded) * 100), 0);
    const { revenue, orders: counted } = coverage(db);
    expect(counted).toBe(orders.length);
    expect(Math.round(revenue * 100)).toBe(cents);
    // The simulator's first customers come before its first transaction: the rows start with them.
    const firstLedgerDay = db.prepare('SELECT min(day) FROM points_ledger_daily').pluck().get() as string;
    expect(coverage(db).first < firstLedgerDay).toBe(true);
    const rounded = (rows: ReadonlyArray<Record<string, unknown>>): unknown[] =>
      rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(12)) : value])));
    expect(rounded(metrics(db))).toEqual(rounded(expectedTables(sim, 'UTC', today).program_metrics_daily));
    db.close();
  });
});
