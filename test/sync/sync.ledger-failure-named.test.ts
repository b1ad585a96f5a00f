import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { upsert } from '../export/helpers.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ profile: 'empty' });
});
afterAll(async () => sim.close());

const BEYOND = "points ledger: customer 8's approved points on 2026-03-02 reach 9,007,199,254,740,992 points";

describe('a sync whose points ledger cannot be brought up to date', () => {
  it('says why in one sentence, from sync and on once\'s sync line, not only in a log record', async () => {
    // A broken gateway's balances: each transaction a safe integer, their sum past 2^53 − 1.
    const { db, path, dir } = freshMirror();
    const transaction = (id: number, approved: number, createdAt: string) => ({ id, customer: { id: 8 }, points_approved: approved, points_pending: 0, created_at: createdAt, resource: 'points_import' });
    upsert(db, 'transactions', [transaction(1, Number.MAX_SAFE_INTEGER - 1, '2026-03-01T10:00:00.000Z'), transaction(2, 2, '2026-03-02T11:00:00.000Z')]);
    db.close();
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: path, LOYALTY_EXPORT_DIR: `${dir}/exports`, LOG_LEVEL: 'silent' };

    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(`loyalty-sync: the points ledger could not be updated: ${BEYOND}`);

    const once = await runCli(['once'], { env });
    expect(once.code).toBe(1);
    expect(once.stdout).toMatch(new RegExp(`^FAIL sync: .*; the points ledger could not be updated: ${BEYOND.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  });
});
