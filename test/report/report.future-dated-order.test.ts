/**
 * program_metrics_daily runs to a later day than today when an order, transaction or enrolment is dated later (a
 * merchant's import with a wrong date, an API clock ahead near midnight). The report's 30-day redemption rate and
 * members are today's, not that later day's: 30 days ending next year would hold none of the points moved so far.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

function figure(page: string, name: string): string | undefined {
  return new RegExp(`data-figure="${name}" data-value="([^"]*)"`).exec(page)?.[1];
}

describe('report with an order dated after today', () => {
  it("shows today's 30-day redemption rate and members, not those of the order's later day", async () => {
    const { db, path } = freshMirror();
    db.prepare(
      `INSERT INTO customers (id, enrolled, enrolled_at, created_at, points_approved, points_pending, raw, _synced_at, _change_seq)
       VALUES (7, 1, '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00.000Z', 800, 0, '{}', '2026-03-02T10:00:00.000Z', 1)`,
    ).run();
    const transaction = db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (?, 7, ?, 0, ?, ?, '2026-03-01T10:00:00.000Z', '{}', '2026-03-02T10:00:00.000Z', ?)`,
    );
    transaction.run(1, 1000, 'activity', 'approved', 2);
    transaction.run(2, -200, 'claimed_reward', null, 3);
    // Next year's date on one order: a legal `date` of create-order, or a platform's clock.
    db.prepare(
      `INSERT INTO orders (id, customer_id, total_paid, total_refunded, created_at, raw, _synced_at, _change_seq)
       VALUES (1, 7, '10.00', '0.00', '2027-01-15T10:00:00.000Z', '{}', '2026-03-02T10:00:00.000Z', 4)`,
    ).run();
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));
    expect(db.prepare('SELECT max(day) FROM program_metrics_daily').pluck().get()).toBe('2027-01-15');
    db.close();

    const out = join(tempDir('report-future-'), 'points.html');
    const result = await runCli(['report', '--out', out], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(figure(page, 'redemption-rate-30d')).toBe('0.2');
    expect(page).toContain('200 of 1,000 earned');
    expect(page).toContain('1 active in 30 days');
  });
});
