import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

describe('balances after program.timeZone changed, before the next sync', () => {
  it("prints the ledger's days and says on stderr which zone they are in, since --as-of is read as a day of that zone", async () => {
    const { db, path } = freshMirror();
    // 2026-03-01T20:00Z is 2026-03-02 in Tokyo, 2026-03-01 in New York.
    db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (1, 7, 100, 0, 'activity', 'approved', '2026-03-01T20:00:00.000Z', '{}', '2026-03-01T20:00:00.000Z', 1)`,
    ).run();
    updateLedger(db, { timeZone: 'Asia/Tokyo', pointValue: null }, new Date('2026-03-03T12:00:00Z'));
    db.close();
    const result = await runCli(['balances', '--as-of', '2026-03-01', '--format', 'json'], { env: { LOYALTY_DB: path, LOYALTY_PROGRAM__TIME_ZONE: 'America/New_York' } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ as_of: '2026-03-01', balances: [{ customer_id: 7, merchant_id: null, approved: 0, pending: 0, last_movement_day: null, in_customers: false }] });
    expect(result.stderr).toContain('the points ledger\'s days are in Asia/Tokyo, the zone of its last build, not program.timeZone America/New_York');

    const same = await runCli(['balances', '--as-of', '2026-03-02'], { env: { LOYALTY_DB: path, LOYALTY_PROGRAM__TIME_ZONE: 'Asia/Tokyo' } });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toBe('');
  });
});
