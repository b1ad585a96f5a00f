import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, syncMirror, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Customer {
  id: number;
  points_approved: number;
  points_pending: number;
}

describe('verify --ledger', () => {
  it('passes on the simulator, and once the program has run past the id overlap after balances moved without a transaction, names exactly those customers and balances and exits 1', async () => {
    sim = await startSimulator({ size: 'small', seed: 9 });
    const { db, path } = freshMirror();
    const sync = async (): Promise<void> => {
      const config = testConfig(sim!, path);
      await syncMirror(db, config);
    };
    const env = { LOYALTY_DB: path };
    await sync();

    const clean = await runCli(['verify', '--ledger', '--json'], { env });
    expect(clean.code, clean.stderr).toBe(0);
    const before = JSON.parse(clean.stdout) as { ledger: { customers: number; balanced: number; pending: unknown[]; defects: unknown[] } };
    const customers = sim.truth('customers') as Customer[];
    expect(before.ledger).toEqual({ customers: customers.length, balanced: customers.length, pending: [], defects: [], undated_transactions: 0, unattributed_transactions: 0 });

    const [first, second] = [customers[10], customers[20]];
    sim.moveBalances([
      { customerId: first.id, approved: 40 },
      { customerId: second.id, approved: -3, pending: 12 },
    ]);
    await sync();
    // Right after the move a transaction behind it could still become visible (late-visible ids): pending.
    const early = await runCli(['verify', '--ledger', '--json'], { env });
    expect(early.code, early.stderr).toBe(0);
    expect((JSON.parse(early.stdout) as { ledger: { pending: Array<{ customer_id: number }> } }).ledger.pending.map((p) => p.customer_id)).toEqual([first.id, second.id, second.id]);

    // Once the program has run past sync.idOverlapHours (2) after the move, no late transaction can explain it.
    sim.tick(3);
    await sync();
    const broken = await runCli(['verify', '--ledger', '--json'], { env });
    expect(broken.code, broken.stderr).toBe(1);
    const after = JSON.parse(broken.stdout) as { ledger: { customers: number; balanced: number; pending: Array<{ customer_id: number }>; defects: unknown[] } };
    const now = new Map((sim.truth('customers') as Customer[]).map((c) => [c.id, c]));
    // Customers whose newest transactions are not visible yet are pending; the moved ones are not among them.
    const pending = new Set(after.ledger.pending.map((p) => p.customer_id));
    expect(pending.has(first.id) || pending.has(second.id)).toBe(false);
    expect(after.ledger.balanced + pending.size).toBe(now.size - 2);
    const [firstNow, secondNow] = [now.get(first.id)!, now.get(second.id)!];
    expect(after.ledger.defects).toEqual([
      { customer_id: first.id, balance: 'approved', customer: firstNow.points_approved, transactions: firstNow.points_approved - 40 },
      { customer_id: second.id, balance: 'approved', customer: secondNow.points_approved, transactions: secondNow.points_approved + 3 },
      { customer_id: second.id, balance: 'pending', customer: secondNow.points_pending, transactions: secondNow.points_pending - 12 },
    ]);

    const text = await runCli(['verify', '--ledger'], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`defect: customer ${first.id} approved: the customer shows ${firstNow.points_approved}, the transactions add up to ${firstNow.points_approved - 40}`);
    db.close();
  });

  it('calls a difference pending while the customer changed after the last transactions sync began', async () => {
    sim = await startSimulator({ size: 'small', seed: 10 });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    // Points added after the sync: the customers stream alone reads the new balance, the transaction comes next time.
    const customer = (sim.truth('customers') as Customer[])[5];
    sim.addBackdatedTransaction({ customerId: customer.id, points: 30, daysAgo: 0.001 });
    expect((await runSync({ db, client, config, logger, streams: ['customers'] })).ok).toBe(true);
    await client.close();

    const result = await runCli(['verify', '--ledger', '--json'], { env: { LOYALTY_DB: path } });
    expect(result.code, result.stderr).toBe(0);
    const check = JSON.parse(result.stdout) as { ledger: { pending: Array<{ customer_id: number; balance: string }>; defects: unknown[] } };
    expect(check.ledger.defects).toEqual([]);
    expect(check.ledger.pending.map((p) => [p.customer_id, p.balance])).toEqual([[customer.id, 'approved']]);
    db.close();
  });

  it('after a failed first sync of either side, names every difference pending and none a defect, and counts nobody balanced', async () => {
    sim = await startSimulator({ size: 'tiny', seed: 11 });
    for (const [read, failed] of [['customers', 'transactions'], ['transactions', 'customers']] as const) {
      const { db, path } = freshMirror();
      const { logger } = recordingLogger();
      const config = testConfig(sim, path);
      const client = testClient(config, logger);
      expect((await runSync({ db, client, config, logger, streams: [read] })).ok).toBe(true);
      await client.close();
      // The API unreachable for the other stream's first sync (an outage, a key without that scope).
      const down = testConfig({ url: 'http://127.0.0.1:9', keys: sim.keys }, path);
      const downClient = testClient(down, logger);
      expect((await runSync({ db, client: downClient, config: down, logger, streams: [failed] })).ok).toBe(false);
      await downClient.close();
      expect(db.prepare(`SELECT status FROM sync_runs WHERE stream = ?`).pluck().all(failed)).toEqual(['failed']);

      const result = await runCli(['verify', '--ledger', '--json'], { env: { LOYALTY_DB: path } });
      expect(result.code, `${failed} failed: ${result.stderr}`).toBe(0);
      const check = JSON.parse(result.stdout) as { ledger: { customers: number; balanced: number; pending: Array<{ reason: string }>; defects: unknown[] } };
      expect(check.ledger.defects).toEqual([]);
      expect(check.ledger.balanced).toBe(0);
      expect(check.ledger.customers).toBeGreaterThan(0);
      expect(new Set(check.ledger.pending.map((p) => p.reason))).toEqual(new Set([`no sync of the ${failed} stream has completed yet: the next one reads the ${failed === 'customers' ? 'balances' : 'transactions'} it did not`]));
      db.close();
    }
  });
});
