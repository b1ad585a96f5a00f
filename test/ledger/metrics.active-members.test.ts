/**
 * program_metrics_daily.active_members_30d counts a customer only on the days they are a member: a customer who
 * earned before enrolling is active from their enrolment day, never before it, and an update after an enrolment
 * (or its change) writes what a full build writes.
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

/** An approved earning of customer `customer`, stored as the sync stores a transaction. */
function storeEarning(db: Db, id: number, customer: number, at: string): void {
  const raw = JSON.stringify({ id, customer: { id: customer }, points_approved: 100, points_pending: 0, created_at: at, resource: 'activity' });
  db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, 100, 0, 'activity', 'approved', ?, ?, '2026-03-01T00:00:00Z', ?)`,
  ).run(id, customer, at, raw, nextSeq(db));
}

/** A customer as the sync stores one, created on 1 January; enrolled from `enrolledAt` when given. */
function storeCustomer(db: Db, id: number, enrolledAt: string | null): void {
  db.prepare(
    `INSERT INTO customers (id, enrolled, enrolled_at, created_at, points_approved, points_pending, raw, _synced_at, _change_seq)
     VALUES (@id, @enrolled, @enrolledAt, '2026-01-01T00:00:00.000Z', 0, 0, '{}', '2026-03-01T00:00:00Z', @seq)
     ON CONFLICT (id) DO UPDATE SET enrolled = excluded.enrolled, enrolled_at = excluded.enrolled_at, _change_seq = excluded._change_seq`,
  ).run({ id, enrolled: enrolledAt === null ? 0 : 1, enrolledAt, seq: nextSeq(db) });
}

function metrics(db: Db): Array<Record<string, unknown>> {
  return db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all() as Array<Record<string, unknown>>;
}

/** program_metrics_daily as a full build of a copy of the mirror writes it. */
function metricsOfFullBuild(db: Db, settings: { timeZone: string; pointValue: string | null }, now: Date): Array<Record<string, unknown>> {
  return readFullBuild(db, settings, now, metrics);
}

/** Day → [members, active_members_30d] for the days asked. */
function membersAndActive(db: Db, days: readonly string[]): Record<string, [number, number]> {
  const rows = db.prepare('SELECT day, members, active_members_30d AS active FROM program_metrics_daily').all() as Array<{ day: string; members: number; active: number }>;
  const byDay = new Map(rows.map((row) => [row.day, [row.members, row.active] as [number, number]]));
  return Object.fromEntries(days.map((day) => [day, byDay.get(day) ?? [-1, -1]]));
}

describe('active_members_30d counts members from their enrolment day', () => {
  it('a customer who earned on 1 March and enrols on 15 March is active from 15 to 30 March only, and each update equals a full build', () => {
    const { db } = mirror();
    const now = new Date('2026-04-10T12:00:00Z');
    storeCustomer(db, 7, null);
    // Customer 8, a member since January, earns on 1 March: the program is not empty of members.
    storeCustomer(db, 8, '2026-01-05T09:00:00.000Z');
    storeEarning(db, 1, 7, '2026-03-01T10:00:00.000Z');
    storeEarning(db, 2, 8, '2026-03-01T11:00:00.000Z');
    updateLedger(db, UTC, now);
    const days = ['2026-03-01', '2026-03-14', '2026-03-15', '2026-03-30', '2026-03-31'];
    expect(membersAndActive(db, days)).toEqual({ '2026-03-01': [1, 1], '2026-03-14': [1, 1], '2026-03-15': [1, 1], '2026-03-30': [1, 1], '2026-03-31': [1, 0] });

    storeCustomer(db, 7, '2026-03-15T10:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(membersAndActive(db, days)).toEqual({ '2026-03-01': [1, 1], '2026-03-14': [1, 1], '2026-03-15': [2, 2], '2026-03-30': [2, 2], '2026-03-31': [2, 0] });
    expect(db.prepare('SELECT day FROM program_metrics_daily WHERE active_members_30d > members').all()).toEqual([]);
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // The enrolment moves earlier (10 March), then later (20 March): the days between change, and only those.
    storeCustomer(db, 7, '2026-03-10T10:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(membersAndActive(db, ['2026-03-09', '2026-03-10'])).toEqual({ '2026-03-09': [1, 1], '2026-03-10': [2, 2] });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));
    storeCustomer(db, 7, '2026-03-20T10:00:00.000Z');
    updateLedger(db, UTC, now);
    expect(membersAndActive(db, ['2026-03-19', '2026-03-20'])).toEqual({ '2026-03-19': [1, 1], '2026-03-20': [2, 2] });
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));

    // Leaving the program: customer 7 is neither a member nor active on any day.
    storeCustomer(db, 7, null);
    updateLedger(db, UTC, now);
    expect(db.prepare("SELECT count(*) FROM program_metrics_daily WHERE members > 1 OR active_members_30d > 1").pluck().get()).toBe(0);
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, UTC, now));
    db.close();
  });

  it('after the simulator enrols customers who earned points before, the synced tables equal the truth and a full build', async () => {
    sim = await startSimulator({ size: 'small', seed: 12 });
    const { db, path } = mirror();
    const zone = 'Europe/Paris';
    const config = testConfig(sim, path, { program: { timeZone: zone }, ledger: { pointValue: null } });
    const sync = async (): Promise<void> => {
      await syncMirror(db, config);
    };
    await sync();
    // An edit enrols every registered customer not enrolled yet, from now on, whatever they earned before.
    const customers = sim.truth('customers') as Array<{ id: number; enrolled: boolean; guest: boolean }>;
    const joining = customers.filter((c) => !c.enrolled && !c.guest).map((c) => c.id);
    sim.tick(1);
    sim.changeOldRecords({ edit: { count: customers.length, minAgeDays: 0 } });
    await sync();

    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    // The case is there: customers who moved points before the day they enrolled.
    const earnedBefore = db
      .prepare(`SELECT count(DISTINCT m.customer_id) FROM ledger_members AS m JOIN customer_points_daily AS c ON c.customer_id = m.customer_id AND c.day < m.member_day
                WHERE m.customer_id IN (${joining.join(',')})`)
      .pluck()
      .get() as number;
    expect(earnedBefore).toBeGreaterThan(0);
    expect(db.prepare('SELECT day FROM program_metrics_daily WHERE active_members_30d > members').all()).toEqual([]);
    const expected = expectedTables(sim, zone, today).program_metrics_daily;
    const rounded = (rows: ReadonlyArray<Record<string, unknown>>): unknown[] =>
      rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(12)) : value])));
    expect(rounded(metrics(db))).toEqual(rounded(expected));
    expect(metrics(db)).toEqual(metricsOfFullBuild(db, { timeZone: zone, pointValue: null }, new Date()));
    db.close();
  });
});
