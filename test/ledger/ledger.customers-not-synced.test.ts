import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { syncMirror, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Transaction {
  customer: { id: number };
  points_approved: number;
  points_pending: number;
  created_at: string;
}

interface Check {
  customers: number;
  balanced: number;
  pending: Array<{ customer_id: number; balance: string; customer: number | null; transactions: number; reason: string }>;
  defects: Array<{ customer_id: number; balance: string; customer: number | null; transactions: number }>;
}

/** Every day the simulator's transactions fall on, and more. */
const AS_OF = '2099-12-31';

describe('the ledger with transactions synced and the customers stream not', () => {
  it('balances lists the customers known from transactions, and verify --ledger and the report say nothing was reconciled instead of passing', async () => {
    sim = await startSimulator({ size: 'small', seed: 14 });
    const { db, path, dir } = freshMirror();
    const config = testConfig(sim, path);
    const sync = (streams: Array<'customers' | 'transactions'>): Promise<void> => syncMirror(db, config, { streams });
    const env = { LOYALTY_DB: path };
    await sync(['transactions']);

    // The truth: each customer's transactions summed here.
    const sums = new Map<number, { approved: number; pending: number }>();
    for (const t of sim.truth('transactions') as Transaction[]) {
      const sum = sums.get(t.customer.id) ?? { approved: 0, pending: 0 };
      sums.set(t.customer.id, { approved: sum.approved + t.points_approved, pending: sum.pending + t.points_pending });
    }
    const ids = [...sums.keys()].sort((a, b) => a - b);

    const json = await runCli(['balances', '--as-of', AS_OF, '--format', 'json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const { balances } = JSON.parse(json.stdout) as { balances: Array<{ customer_id: number; approved: number; pending: number; in_customers: boolean }> };
    expect(balances.map(({ customer_id, approved, pending, in_customers }) => ({ customer_id, approved, pending, in_customers }))).toEqual(
      ids.map((id) => ({ customer_id: id, ...sums.get(id)!, in_customers: false })),
    );
    const one = ids[3];
    const csv = await runCli(['balances', '--as-of', AS_OF, '--customer', String(one)], { env });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.trimEnd().split('\n')[1]).toMatch(new RegExp(`^${one},,${sums.get(one)!.approved},${sums.get(one)!.pending},\\d{4}-\\d{2}-\\d{2},false$`));

    const unchecked = await runCli(['verify', '--ledger', '--json'], { env });
    expect(unchecked.code, unchecked.stderr).toBe(0);
    const { ledger } = JSON.parse(unchecked.stdout) as { ledger: Check };
    expect(ledger.customers).toBe(ids.length);
    expect(ledger.balanced).toBe(0);
    expect(ledger.defects).toEqual([]);
    expect(ledger.pending.filter((p) => p.customer_id === one)).toEqual([
      { customer_id: one, balance: 'approved', customer: null, transactions: sums.get(one)!.approved, reason: 'the customers stream has never been synced: no balance to compare with' },
      { customer_id: one, balance: 'pending', customer: null, transactions: sums.get(one)!.pending, reason: 'the customers stream has never been synced: no balance to compare with' },
    ]);
    const text = await runCli(['verify', '--ledger'], { env });
    expect(text.stdout).toContain(`ledger: ${ids.length} customers, 0 balanced, ${(ids.length * 2).toLocaleString('en-US')} pending, 0 defects`);
    expect(text.stdout).toContain(`not reconciled: none of the ${ids.length} customers could be compared yet (the customers stream has never been synced`);

    const page = join(dir, 'report.html');
    expect((await runCli(['report', '--out', page], { env })).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('data-figure="reconciliation" data-value="not-reconciled"><strong>Not reconciled</strong>');
    expect(html).not.toContain('Balanced');

    // Once the customers stream is synced, every customer is compared and balances.
    await sync(['customers']);
    const checked = await runCli(['verify', '--ledger', '--json'], { env });
    expect(checked.code, checked.stdout).toBe(0);
    const customers = (sim.truth('customers') as unknown[]).length;
    expect(JSON.parse(checked.stdout)).toEqual({ ledger: { customers, balanced: customers, pending: [], defects: [], undated_transactions: 0, unattributed_transactions: 0 } });
    const after = JSON.parse((await runCli(['balances', '--as-of', AS_OF, '--format', 'json'], { env })).stdout) as { balances: Array<{ in_customers: boolean }> };
    expect(after.balances.every((row) => row.in_customers)).toBe(true);
    expect((await runCli(['report', '--out', page], { env })).code).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain('data-figure="reconciliation" data-value="ok"><strong>Balanced</strong>');

    // A customer the customers stream no longer lists (verify --repair marked it removed) while their transactions
    // remain: their balance cannot be compared, and that is a defect once no read in flight explains it.
    db.prepare("UPDATE customers SET _removed_at = '2026-01-01T00:00:00Z' WHERE id = ?").run(one);
    const missing = await runCli(['verify', '--ledger', '--json'], { env });
    expect(missing.code).toBe(1);
    expect((JSON.parse(missing.stdout) as { ledger: Check }).ledger.defects).toEqual([
      { customer_id: one, balance: 'approved', customer: null, transactions: sums.get(one)!.approved },
      { customer_id: one, balance: 'pending', customer: null, transactions: sums.get(one)!.pending },
    ]);
    expect((await runCli(['verify', '--ledger'], { env })).stdout).toContain(`defect: customer ${one} approved: the customers stream holds no record of the customer, the transactions add up to ${sums.get(one)!.approved}`);
    db.close();
  });
});
