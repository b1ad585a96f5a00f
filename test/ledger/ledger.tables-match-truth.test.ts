import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { expectedTables, type ExpectedTables } from './expectedLedger.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const TABLES = ['points_ledger_daily', 'customer_points_daily', 'program_metrics_daily'] as const;

function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/** Shares are floats computed two ways (exact decimals there, cents here): equal to 12 places. */
function rounded(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(12)) : value])));
}

function tablesOf(db: Db): ExpectedTables {
  return {
    points_ledger_daily: db.prepare('SELECT * FROM points_ledger_daily ORDER BY day').all() as Array<Record<string, unknown>>,
    customer_points_daily: db.prepare('SELECT * FROM customer_points_daily ORDER BY customer_id, day').all() as Array<Record<string, unknown>>,
    program_metrics_daily: db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all() as Array<Record<string, unknown>>,
  };
}

async function syncInto(handle: SimulatorHandle, path: string, db: Db, timeZone: string, pointValue: string | null = null, deep = false): Promise<void> {
  const config = testConfig(handle, path, { program: { timeZone }, ledger: { pointValue } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const report = await runSync({ db, client, config, logger, deep });
  await client.close();
  expect(report.ok).toBe(true);
}

function expectTablesEqual(db: Db, expected: ExpectedTables): void {
  const actual = tablesOf(db);
  for (const table of TABLES) expect(rounded(actual[table]), table).toEqual(rounded(expected[table]));
}

describe('the model tables equal sums computed from the simulator\'s truth', () => {
  const newYork = 'America/New_York';
  const dstCases: Array<[string, SimulatorOptions]> = [
    ['the spring change (2026-03-08)', { epoch: Date.UTC(2026, 2, 20, 12), seed: 3 }],
    ['the autumn change (2026-11-01)', { epoch: Date.UTC(2026, 10, 10, 12), seed: 4 }],
  ];
  for (const [name, options] of dstCases) {
    it(`in ${newYork} across ${name}, with a liability`, async () => {
      sim = await startSimulator({ size: 'small', ...options });
      const { db, path } = freshMirror();
      await syncInto(sim, path, db, newYork, '0.01');
      expectTablesEqual(db, expectedTables(sim, newYork, todayIn(newYork), 1));
      // The day each transaction lands on is the zone's, not UTC's: evenings there are the next day in UTC.
      const utcCounts = new Map<string, number>();
      for (const t of sim.truth('transactions') as Array<{ created_at: string }>) utcCounts.set(t.created_at.slice(0, 10), (utcCounts.get(t.created_at.slice(0, 10)) ?? 0) + 1);
      const zoneCounts = db.prepare('SELECT day, transactions FROM points_ledger_daily WHERE transactions > 0').all() as Array<{ day: string; transactions: number }>;
      expect(zoneCounts.filter((row) => utcCounts.get(row.day) !== row.transactions).length).toBeGreaterThan(10);
      db.close();
    });
  }

  it(`after program.timeZone changes from UTC to ${newYork}, every table is rebuilt whole, for ${newYork}`, async () => {
    sim = await startSimulator({ size: 'small', epoch: Date.UTC(2026, 2, 20, 12), seed: 6 });
    const { db, path } = freshMirror();
    await syncInto(sim, path, db, 'UTC');
    expectTablesEqual(db, expectedTables(sim, 'UTC', todayIn('UTC')));
    // Nothing new comes with this sync: only the zone changed, and every day of every table must follow it.
    await syncInto(sim, path, db, newYork);
    expect(db.prepare('SELECT time_zone, rebuilt_from FROM ledger_state').get()).toEqual({ time_zone: newYork, rebuilt_from: '0000-01-01' });
    expectTablesEqual(db, expectedTables(sim, newYork, todayIn(newYork)));
    db.close();
  });

  it('after voids, a decline, approvals after 60 days and a late-visible transaction on an old day, the update equals a full build', async () => {
    sim = await startSimulator({ size: 'small', seed: 5 });
    const { db, path } = freshMirror();
    const zone = 'Europe/Paris';
    await syncInto(sim, path, db, zone);
    expectTablesEqual(db, expectedTables(sim, zone, todayIn(zone)));
    // A sync that brings nothing rewrites today's row alone, and leaves every row as it was.
    await syncInto(sim, path, db, zone);
    expect((db.prepare('SELECT rebuilt_from FROM ledger_state').get() as { rebuilt_from: string }).rebuilt_from).toBe(todayIn(zone));
    expectTablesEqual(db, expectedTables(sim, zone, todayIn(zone)));

    sim.tick(24);
    const changed = sim.changeOldRecords({ approve: { count: 3, minAgeDays: 60 }, void: { count: 6, minAgeDays: 20 } });
    const customer = (sim.truth('customers') as Array<{ id: number }>)[3].id;
    const late = sim.addBackdatedTransaction({ customerId: customer, points: 77, daysAgo: 50 });
    // Deep: old orders refunded during the day (chargebacks) reach the mirror only by a deep refresh.
    await syncInto(sim, path, db, zone, null, true);

    const truth = sim.truth('transactions') as Array<{ id: number; points_approved: number; points_pending: number; resource: string; activity?: { state: string } }>;
    const newOnes = truth.filter((t) => changed.transactions.includes(t.id));
    // The cases the ledger must tell apart are all there: approvals, voids of approved points, declines of pending ones.
    expect(newOnes.filter((t) => t.activity?.state === 'approved' && t.points_pending < 0).length).toBe(3);
    expect(newOnes.some((t) => t.activity?.state === 'void' && t.points_approved < 0)).toBe(true);
    expect(newOnes.some((t) => t.activity?.state === 'void' && t.points_pending < 0)).toBe(true);
    // Expiries and redemptions come with the generated history.
    expect(truth.some((t) => t.resource === 'claimed_reward')).toBe(true);
    expect(db.prepare('SELECT sum(expired) < 0 AND sum(redeemed) < 0 AND sum(reversed) < 0 AND sum(approved_from_pending) > 0 FROM points_ledger_daily').pluck().get()).toBe(1);

    const expected = expectedTables(sim, zone, todayIn(zone));
    expectTablesEqual(db, expected);
    // The late transaction's old day and every day after it moved; the update started there, not at the beginning.
    const lateDay = (db.prepare('SELECT local_day(created_at) FROM transactions WHERE id = ?').pluck().get(late) as string);
    const state = db.prepare('SELECT rebuilt_from FROM ledger_state').get() as { rebuilt_from: string };
    expect(state.rebuilt_from <= lateDay).toBe(true);
    expect(state.rebuilt_from > (expected.points_ledger_daily[0].day as string)).toBe(true);
    db.close();
  });

  for (const profile of ['empty', 'single'] as const) {
    it(`in the ${profile} program`, async () => {
      sim = await startSimulator({ profile });
      const { db, path } = freshMirror();
      await syncInto(sim, path, db, 'UTC');
      const expected = expectedTables(sim, 'UTC', todayIn('UTC'));
      if (profile === 'empty') expect(expected.points_ledger_daily).toEqual([]);
      else expect(new Set(expected.customer_points_daily.map((row) => row.customer_id)).size).toBe(1);
      expectTablesEqual(db, expected);
      db.close();
    });
  }
});
