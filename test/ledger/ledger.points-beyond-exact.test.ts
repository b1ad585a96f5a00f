import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { upsert } from '../export/helpers.js';
import { freshMirror } from '../helpers/tempDir.js';

const SETTINGS = { timeZone: 'UTC', pointValue: '0.01' };
const NOW = new Date('2026-03-05T12:00:00Z');
const BEYOND = /^points ledger: .* reach [\d,]+ points, beyond the 9,007,199,254,740,991 it adds exactly; the build stops rather than write rounded sums/;

function transaction(id: number, customerId: number, approved: number, createdAt: string): ApiRecord {
  return { id, customer: { id: customerId }, points_approved: approved, points_pending: 0, created_at: createdAt, resource: 'points_import' };
}

/** Stores the transactions as the sync does: the sync keeps any safe integer, 2^53 − 1 included. */
function store(db: Db, records: ApiRecord[]): void {
  upsert(db, 'transactions', records, '2026-03-05T00:00:00.000Z');
}

function tables(db: Db): unknown[] {
  return ['points_ledger_daily', 'customer_points_daily', 'program_metrics_daily'].map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
}

describe('points whose sums pass 2^53 − 1, what the ledger hands every reader exactly', () => {
  it("stop a full build with one sentence when a customer's balance passes it, and write nothing", () => {
    const { db } = freshMirror();
    store(db, [transaction(1, 7, 10, '2026-02-20T10:00:00.000Z')]);
    updateLedger(db, SETTINGS, NOW);
    const before = tables(db);
    // No day's movements pass it: the customer's balance does, on the second day.
    store(db, [transaction(2, 8, Number.MAX_SAFE_INTEGER - 1, '2026-03-01T10:00:00.000Z'), transaction(3, 8, 2, '2026-03-02T11:00:00.000Z')]);
    db.prepare('DELETE FROM ledger_state').run();
    expect(() => updateLedger(db, SETTINGS, NOW)).toThrow(BEYOND);
    expect(() => updateLedger(db, SETTINGS, NOW)).toThrow(/^points ledger: customer 8's approved points on 2026-03-02 reach 9,007,199,254,740,992 points/);
    expect(tables(db)).toEqual(before);
    db.close();
  });

  it('stop an update whose running balance passes it, keeping the last build', () => {
    const { db } = freshMirror();
    store(db, [transaction(1, 7, Number.MAX_SAFE_INTEGER - 5, '2026-03-01T10:00:00.000Z')]);
    updateLedger(db, SETTINGS, NOW);
    const before = tables(db);
    expect(db.prepare('SELECT approved_end FROM customer_points_daily').pluck().all()).toEqual([Number.MAX_SAFE_INTEGER - 5]);
    store(db, [transaction(2, 7, 10, '2026-03-03T10:00:00.000Z')]);
    expect(() => updateLedger(db, SETTINGS, NOW)).toThrow(/^points ledger: customer 7's approved points on 2026-03-03 reach 9,007,199,254,740,996 points/);
    expect(tables(db)).toEqual(before);
    db.close();
  });

  it("stop a build when the program's points of a day pass it, though every customer's stay within", () => {
    const { db } = freshMirror();
    const half = Math.ceil(Number.MAX_SAFE_INTEGER / 2) + 1;
    store(db, [transaction(1, 7, half, '2026-03-01T10:00:00.000Z'), transaction(2, 8, half, '2026-03-01T11:00:00.000Z')]);
    expect(() => updateLedger(db, SETTINGS, NOW)).toThrow(/^points ledger: the program's points moved on 2026-03-01 reach/);
    db.close();
  });

  it("stop a build when the program's outstanding points pass it over days, though no day's movement does", () => {
    const { db } = freshMirror();
    const half = Math.ceil(Number.MAX_SAFE_INTEGER / 2) + 1;
    store(db, [transaction(1, 7, half, '2026-03-01T10:00:00.000Z'), transaction(2, 8, half, '2026-03-02T11:00:00.000Z')]);
    expect(() => updateLedger(db, SETTINGS, NOW)).toThrow(/^points ledger: the program's outstanding points on 2026-03-02 reach/);
    db.close();
  });

  it('build exactly up to it', () => {
    const { db } = freshMirror();
    store(db, [transaction(1, 7, Number.MAX_SAFE_INTEGER - 2, '2026-03-01T10:00:00.000Z'), transaction(2, 7, 2, '2026-03-02T10:00:00.000Z')]);
    updateLedger(db, SETTINGS, NOW);
    expect(db.prepare('SELECT CAST(approved_end AS TEXT) FROM customer_points_daily ORDER BY day').pluck().all()).toEqual(['9007199254740989', '9007199254740991']);
    expect(db.prepare("SELECT liability_end FROM points_ledger_daily WHERE day = '2026-03-02'").pluck().get()).toBe('90071992547409.91');
    db.close();
  });
});
