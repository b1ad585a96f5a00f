import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

describe('report after program.timeZone or ledger.pointValue changed, before the next sync', () => {
  it("names the zone and point value the ledger's tables were built with, not the config's new ones", async () => {
    const { db, path } = freshMirror();
    db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (1, 7, 100, 0, 'activity', 'approved', '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', 1)`,
    ).run();
    updateLedger(db, { timeZone: 'Asia/Tokyo', pointValue: '0.01' }, new Date('2026-03-02T12:00:00Z'));
    db.close();
    const out = join(tempDir('report-built-'), 'points.html');
    const result = await runCli(['report', '--out', out], { env: { LOYALTY_DB: path, LOYALTY_PROGRAM__TIME_ZONE: 'America/New_York', LOYALTY_LEDGER__POINT_VALUE: '0.05' } });
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('days in Asia/Tokyo');
    expect(page).not.toContain('America/New_York');
    expect(page).toContain('one point = 0.01');
    expect(page).not.toContain('0.05');
  });
});
