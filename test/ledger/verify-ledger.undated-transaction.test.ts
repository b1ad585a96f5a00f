import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewritingProxy.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  proxy = undefined;
  sim = undefined;
});

interface Transaction {
  id: number;
  customer: { id: number };
  points_approved: number;
  points_pending: number;
  created_at: string;
}

interface Customer {
  id: number;
  points_approved: number;
  points_pending: number;
  updated_at: string;
}

describe('verify --ledger and a transaction without a readable day', () => {
  it('names the customer whose ledger balance lacks a transaction with an unreadable created_at, and exits 1', async () => {
    sim = await startSimulator({ size: 'small', seed: 15 });
    const transactions = sim.truth('transactions') as Transaction[];
    const newest = Math.max(...transactions.map((t) => Date.parse(t.created_at)));
    // A customer unchanged for a day before the newest transaction, so no read in flight explains a difference.
    const customer = (sim.truth('customers') as Customer[]).find(
      (c) => Date.parse(c.updated_at) < newest - 24 * 3600_000 && transactions.some((t) => t.customer.id === c.id && t.points_approved > 0),
    )!;
    const undated = transactions.find((t) => t.customer.id === customer.id && t.points_approved > 0)!;
    // ISO 8601's basic format: a valid timestamp the sync's parser does not read, so it stores created_at NULL (and keeps the text in raw).
    const basic = new Date(undated.created_at).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    proxy = await startRewritingProxy(sim.url, (path, body) => {
      if (path !== '/v2/transactions') return body;
      for (const t of (body as { transactions: Transaction[] }).transactions) if (t.id === undated.id) t.created_at = basic;
      return body;
    });

    const { db, path } = freshMirror();
    const config = testConfig({ url: proxy.url, keys: sim.keys }, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    // One sync: each transaction was stored after the customers sync began (a read in flight), yet no later sync
    // gives the undated one a day, so its customer is a defect at once.
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    await client.close();
    expect(db.prepare('SELECT created_at FROM transactions WHERE id = ?').pluck().get(undated.id)).toBeNull();
    const env = { LOYALTY_DB: path };

    // The ledger holds no day for it, so the balance `balances` prints is short of it ...
    const printed = await runCli(['balances', '--as-of', '2099-12-31', '--customer', String(customer.id), '--format', 'json'], { env });
    expect((JSON.parse(printed.stdout) as { balances: Array<{ approved: number }> }).balances[0].approved).toBe(customer.points_approved - undated.points_approved);

    // ... and the reconciliation says so.
    const result = await runCli(['verify', '--ledger', '--json'], { env });
    expect(result.code, result.stdout).toBe(1);
    const { ledger } = JSON.parse(result.stdout) as { ledger: { defects: unknown[]; undated_transactions: number } };
    expect(ledger.undated_transactions).toBe(1);
    expect(ledger.defects).toEqual([
      { customer_id: customer.id, balance: 'approved', customer: customer.points_approved, transactions: customer.points_approved - undated.points_approved, undated_transactions: 1 },
    ]);
    const text = await runCli(['verify', '--ledger'], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("1 transactions have a created_at that cannot be read (NULL in the mirror, the text in raw): no ledger day holds them, so their customers' balances differ");
    expect(text.stdout).toContain(
      `defect: customer ${customer.id} approved: the customer shows ${customer.points_approved}, the transactions add up to ${customer.points_approved - undated.points_approved} (1 more with an unreadable created_at are in no ledger day)`,
    );
    db.close();
  });
});
