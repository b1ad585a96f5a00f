import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

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
  it('passes on the simulator, and after balances moved without a transaction names exactly those customers and balances and exits 1', async () => {
    sim = await startSimulator({ size: 'small', seed: 9 });
    const { db, path } = freshMirror();
    const sync = async (): Promise<void> => {
      const config = testConfig(sim!, path);
      const { logger } = recordingLogger();
      const client = testClient(config, logger);
      expect((await runSync({ db, client, config, logger })).ok).toBe(true);
      await client.close();
    };
    const env = { LOYALTY_DB: path };
    await sync();

    const clean = await runCli(['verify', '--ledger', '--json'], { env });
    expect(clean.code, clean.stderr).toBe(0);
    const before = JSON.parse(clean.stdout) as { ledger: { customers: number; balanced: number; pending: unknown[]; defects: unknown[] } };
    const customers = sim.truth('customers') as Customer[];
    expect(before.ledger).toEqual({ customers: customers.length, balanced: customers.length, pending: [], defects: [] });

    const [first, second] = [customers[10], customers[20]];
    sim.moveBalances([
      { customerId: first.id, approved: 40 },
      { customerId: second.id, approved: -3, pending: 12 },
    ]);
    await sync();

    const broken = await runCli(['verify', '--ledger', '--json'], { env });
    expect(broken.code, broken.stderr).toBe(1);
    const after = JSON.parse(broken.stdout) as { ledger: { balanced: number; pending: unknown[]; defects: unknown[] } };
    expect(after.ledger.pending).toEqual([]);
    expect(after.ledger.balanced).toBe(customers.length - 2);
    expect(after.ledger.defects).toEqual([
      { customer_id: first.id, balance: 'approved', customer: first.points_approved + 40, transactions: first.points_approved },
      { customer_id: second.id, balance: 'approved', customer: second.points_approved - 3, transactions: second.points_approved },
      { customer_id: second.id, balance: 'pending', customer: second.points_pending + 12, transactions: second.points_pending },
    ]);

    const text = await runCli(['verify', '--ledger'], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`defect: customer ${first.id} approved: the customer shows ${first.points_approved + 40}, the transactions add up to ${first.points_approved}`);
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
});
