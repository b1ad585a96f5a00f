import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { upsert } from '../export/helpers.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

describe('the report and revenue past what a float holds to the cent', () => {
  it("shows each month's revenue and members' revenue to the cent, as program_metrics_daily holds them", async () => {
    const { db, path, dir } = freshMirror();
    const records: Record<'customers' | 'transactions' | 'orders', ApiRecord[]> = {
      customers: [{ id: 1, merchant_id: 'm1', points_approved: 10, points_pending: 0, enrolled: true, enrolled_at: '2026-01-01T10:00:00.000Z', created_at: '2026-01-01T10:00:00.000Z', updated_at: '2026-01-01T10:00:00.000Z' }],
      transactions: [{ id: 10, customer: { id: 1 }, points_approved: 10, points_pending: 0, created_at: '2026-03-01T10:00:00.000Z', resource: 'points_import' }],
      orders: [
        // 2^53 + 1 cents on one day, and 0.01 more the next: a float sums the month to ...409.94.
        { id: 500, customer: { id: 1 }, total_paid: '90071992547409.93', total_refunded: '0.00', created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z' },
        { id: 501, customer: null, total_paid: '0.01', total_refunded: '0.00', created_at: '2026-03-02T10:00:00.000Z', updated_at: '2026-03-02T10:00:00.000Z' },
      ],
    };
    for (const stream of ['customers', 'transactions', 'orders'] as const) upsert(db, stream, records[stream], '2026-03-03T00:00:00.000Z');
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-03T12:00:00Z'));
    expect(db.prepare("SELECT revenue, member_revenue FROM program_metrics_daily WHERE day IN ('2026-03-01', '2026-03-02') ORDER BY day").all()).toEqual([
      { revenue: '90071992547409.93', member_revenue: '90071992547409.93' },
      { revenue: '0.01', member_revenue: '0.00' },
    ]);
    db.close();
    const out = join(dir, 'report.html');
    const result = await runCli(['report', '--out', out], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(0);
    const row = /<th scope="row">2026-03<\/th><td class="num">2<\/td><td class="num">1<\/td><td class="num">([^<]+)<\/td><td class="num">([^<]+)<\/td>/.exec(readFileSync(out, 'utf8'));
    expect(row?.slice(1)).toEqual(['90,071,992,547,409.94', '90,071,992,547,409.93']);
  });
});
