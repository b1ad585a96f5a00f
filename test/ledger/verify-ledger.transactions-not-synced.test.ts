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

interface Check {
  customers: number;
  balanced: number;
  pending: Array<{ customer_id: number; balance: string; customer: number | null; transactions: number; reason: string }>;
  defects: unknown[];
}

describe('the ledger with the customers stream synced and the transactions stream never', () => {
  it('verify --ledger and the report say nothing was reconciled, not "Balanced" for the customers whose balances are 0', async () => {
    sim = await startSimulator({ size: 'small', seed: 14 });
    const { db, path, dir } = freshMirror();
    const config = testConfig(sim, path);
    await syncMirror(db, config, { streams: ['customers'] });
    db.close();
    const env = { LOYALTY_DB: path };
    const customers = sim.truth('customers') as Array<{ id: number; points_approved: number; points_pending: number }>;
    // The case: some customers hold no points, so their 0 equals the 0 of transactions never read.
    const zero = customers.find((c) => c.points_approved === 0 && c.points_pending === 0);
    expect(zero).toBeDefined();

    const result = await runCli(['verify', '--ledger', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const { ledger } = JSON.parse(result.stdout) as { ledger: Check };
    expect(ledger.customers).toBe(customers.length);
    expect(ledger.balanced).toBe(0);
    expect(ledger.defects).toEqual([]);
    const reason = 'the transactions stream has never been synced';
    expect(ledger.pending.filter((p) => p.customer_id === zero!.id)).toEqual([
      { customer_id: zero!.id, balance: 'approved', customer: 0, transactions: 0, reason },
      { customer_id: zero!.id, balance: 'pending', customer: 0, transactions: 0, reason },
    ]);
    expect((await runCli(['verify', '--ledger'], { env })).stdout).toContain(`not reconciled: none of the ${customers.length.toLocaleString('en-US')} customers could be compared yet (${reason})`);

    const page = join(dir, 'report.html');
    expect((await runCli(['report', '--out', page], { env })).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('data-figure="reconciliation" data-value="not-reconciled"><strong>Not reconciled</strong>');
    expect(html).not.toContain('Balanced');
  });
});
