/**
 * A deleted customer's transactions may come with `customer: null` (or a customer id the mirror cannot read). The
 * ledger counts their points in points_ledger_daily, where they are in no customer's balance, so the program's
 * outstanding points no longer equal the sum of the balances: verify --ledger must say so, not "balanced".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewritingProxy.js';
import { syncMirror, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  proxy = undefined;
  sim = undefined;
});

interface Difference {
  customer_id: number | null;
  balance: string;
  customer: number | null;
  transactions: number;
}

describe('verify --ledger and transactions that name no customer', () => {
  it("names their points as a defect, since points_ledger_daily counts them and no customer's balance does", async () => {
    sim = await startSimulator({ size: 'small', seed: 9 });
    const gone = (sim.truth('customers') as Array<{ id: number }>)[5].id;
    const theirs = (sim.truth('transactions') as Array<{ customer: { id: number }; points_approved: number; points_pending: number }>).filter((t) => t.customer.id === gone);
    const approved = theirs.reduce((sum, t) => sum + t.points_approved, 0);
    expect(approved).not.toBe(0);
    // The customer was deleted: the list no longer has them, and their transactions embed no customer.
    proxy = await startRewritingProxy(sim.url, (path, body) => {
      const page = body as Record<string, unknown>;
      if (path === '/v2/customers') page.customers = (page.customers as Array<{ id: number }>).filter((c) => c.id !== gone);
      if (path === '/v2/transactions') for (const t of page.transactions as Array<{ customer: { id: number } | null }>) if (t.customer?.id === gone) t.customer = null;
      return body;
    });
    const { db, path } = freshMirror();
    const config = testConfig({ url: proxy.url, keys: sim.keys }, path);
    for (let run = 0; run < 2; run++) {
      await syncMirror(db, config);
    }
    // The tables disagree by exactly those points.
    const outstanding = db.prepare('SELECT approved_end FROM points_ledger_daily ORDER BY day DESC LIMIT 1').pluck().get() as number;
    const balances = db
      .prepare('SELECT sum(approved_end) FROM customer_points_daily AS c WHERE day = (SELECT max(day) FROM customer_points_daily WHERE customer_id = c.customer_id)')
      .pluck()
      .get() as number;
    expect(outstanding - balances).toBe(approved);
    db.close();

    const result = await runCli(['verify', '--ledger', '--json'], { env: { LOYALTY_DB: path } });
    const { ledger } = JSON.parse(result.stdout) as { ledger: { defects: Difference[]; unattributed_transactions: number } };
    expect(ledger.unattributed_transactions).toBe(theirs.length);
    expect(ledger.defects.filter((d) => d.customer_id === null)).toContainEqual({ customer_id: null, balance: 'approved', customer: null, transactions: approved });
    expect(result.code).toBe(1);
    const text = await runCli(['verify', '--ledger'], { env: { LOYALTY_DB: path } });
    expect(text.stdout).toContain(`${theirs.length} transactions name no customer`);
  });
});
