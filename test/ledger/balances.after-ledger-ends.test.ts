import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

describe('balances as of a day after the ledger ends', () => {
  it('prints the balances at its end, and says on stderr that the ledger ends earlier', async () => {
    const { db, path } = freshMirror();
    db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (1, 7, 100, 0, 'activity', 'approved', '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', 1)`,
    ).run();
    // Built on 2026-03-02: the mirror knows nothing of the days after it.
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));
    db.close();
    const later = await runCli(['balances', '--as-of', '2026-03-31'], { env: { LOYALTY_DB: path } });
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain('7,,100,0,2026-03-01,false');
    expect(later.stderr).toContain('the points ledger ends on 2026-03-02 (its last build)');
    // The build's own day had not ended when it was built: said so.
    const buildDay = await runCli(['balances', '--as-of', '2026-03-02'], { env: { LOYALTY_DB: path } });
    expect(buildDay.code, buildDay.stderr).toBe(0);
    expect(buildDay.stderr).toBe(
      'note: the points ledger was last built at 2026-03-02T12:00:00.000Z, during 2026-03-02: the balances as of 2026-03-02 hold its movements up to then, not the whole day; run loyalty-sync sync after the day ends for its end.\n',
    );
    const within = await runCli(['balances', '--as-of', '2026-03-01'], { env: { LOYALTY_DB: path } });
    expect(within.stderr).toBe('');
    expect(within.stdout).toContain('7,,100,0,2026-03-01,false');
  });
});
