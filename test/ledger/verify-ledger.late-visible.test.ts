import { afterEach, describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/ledger/reconcile.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Check {
  customers: number;
  balanced: number;
  pending: Array<{ customer_id: number; reason: string }>;
  defects: unknown[];
}

describe('verify --ledger on a live program', () => {
  it("calls a balance that includes a transaction not visible yet pending, not a defect, and the next sync balances it", async () => {
    sim = await startSimulator({ size: 'small', seed: 9 });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    const env = { LOYALTY_DB: path };
    // An hour passes between syncs, and some ids of each hour become visible an hour late (the API's balance already counts them).
    sim.tick(1);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    sim.tick(1);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);

    // The truth: customers whose balance in the API counts a transaction it does not list yet (the simulator keeps
    // every balance equal to the sum of all its transactions, visible or not).
    const sums = new Map<number, number>();
    for (const t of sim.truth('transactions') as Array<{ customer: { id: number }; points_approved: number; points_pending: number }>) {
      sums.set(t.customer.id, (sums.get(t.customer.id) ?? 0) + t.points_approved * 1_000_000 + t.points_pending);
    }
    const late = new Set(
      (sim.truth('customers') as Array<{ id: number; points_approved: number; points_pending: number }>)
        .filter((c) => (sums.get(c.id) ?? 0) !== c.points_approved * 1_000_000 + c.points_pending)
        .map((c) => c.id),
    );
    expect(late.size).toBeGreaterThan(0);

    const result = await runCli(['verify', '--ledger', '--json'], { env });
    expect(result.code, result.stdout).toBe(0);
    const { ledger } = JSON.parse(result.stdout) as { ledger: Check };
    expect(ledger.defects).toEqual([]);
    const pending = new Set(ledger.pending.map((p) => p.customer_id));
    // Exactly the customers with a transaction not visible yet are pending; the rest balance.
    expect([...pending].sort((a, b) => a - b)).toEqual([...late].sort((a, b) => a - b));
    expect(ledger.balanced + pending.size).toBe(ledger.customers);
    expect(ledger.pending[0].reason).toContain('sync.idOverlapHours');
    const text = await runCli(['verify', '--ledger'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${pending.size} pending, 0 defects`);

    // The next sync reads them through its id overlap: those customers balance.
    sim.tick(1);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    await client.close();
    const next = checkLedger(db, config.sync);
    expect(next.defects).toEqual([]);
    expect(next.pending.filter((p) => pending.has(p.customer_id))).toEqual([]);
    db.close();
  });
});
