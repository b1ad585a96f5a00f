import { afterEach, describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/ledger/reconcile.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
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

interface Transaction {
  id: number;
  customer: { id: number };
  points_approved: number;
  created_at: string;
}
interface Customer {
  id: number;
  points_approved: number;
  updated_at: string;
}

describe('a timestamp on a day its month lacks (31 February)', () => {
  it('is stored NULL by the sync and recorded as drift, so verify --ledger names the customer whose balance the ledger is short of it', async () => {
    sim = await startSimulator({ size: 'small', seed: 15 });
    const transactions = sim.truth('transactions') as Transaction[];
    const newest = Math.max(...transactions.map((t) => Date.parse(t.created_at)));
    // A customer unchanged for a day before the newest transaction: no read in flight explains their difference.
    const customer = (sim.truth('customers') as Customer[]).find(
      (c) => Date.parse(c.updated_at) < newest - 24 * 3600_000 && transactions.some((t) => t.customer.id === c.id && t.points_approved > 0),
    );
    if (customer === undefined) throw new Error('the seed has no customer unchanged for a day with an earning');
    const odd = transactions.find((t) => t.customer.id === customer.id && t.points_approved > 0) as Transaction;
    const impossible = `${odd.created_at.slice(0, 4)}-02-31T12:00:00.000Z`;
    proxy = await startRewritingProxy(sim.url, (path, body) => {
      if (path !== '/v2/transactions') return body;
      for (const t of (body as { transactions: Transaction[] }).transactions) if (t.id === odd.id) t.created_at = impossible;
      return body;
    });
    const { db, path } = freshMirror();
    const config = testConfig({ url: proxy.url, keys: sim.keys }, path);
    await syncMirror(db, config);

    expect(db.prepare("SELECT created_at, json_extract(raw, '$.created_at') AS sent FROM transactions WHERE id = ?").get(odd.id)).toEqual({ created_at: null, sent: impossible });
    expect(db.prepare("SELECT kind FROM schema_drift WHERE stream = 'transactions' AND path = 'created_at'").pluck().all()).toEqual(['type']);
    const env = { LOYALTY_DB: path };
    const printed = await runCli(['balances', '--as-of', '2099-12-31', '--customer', String(customer.id), '--format', 'json'], { env });
    expect((JSON.parse(printed.stdout) as { balances: Array<{ approved: number }> }).balances[0].approved).toBe(customer.points_approved - odd.points_approved);
    const result = await runCli(['verify', '--ledger', '--json'], { env });
    expect(result.code).toBe(1);
    const { ledger } = JSON.parse(result.stdout) as { ledger: { defects: Array<{ customer_id: number; balance: string }>; undated_transactions: number } };
    expect(ledger.undated_transactions).toBe(1);
    expect(ledger.defects.map((d) => [d.customer_id, d.balance])).toEqual([[customer.id, 'approved']]);
    db.close();
  });

  it('held by a mirror synced before the check counted days: no day for its transaction, its order or its enrolment, and the rest counted', () => {
    const { db } = freshMirror();
    db.prepare(
      `INSERT INTO customers (id, enrolled, enrolled_at, created_at, updated_at, points_approved, points_pending, raw, _synced_at, _change_seq)
       VALUES (7, 1, '2026-02-31T09:00:00.000Z', '2026-02-26T10:00:00.000Z', '2026-02-26T10:00:00.000Z', 105, 0, '{}', '2026-03-01T00:00:00.000Z', 1)`,
    ).run();
    const transaction = db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (?, 7, ?, 0, 'activity', 'approved', ?, '{}', '2026-03-01T00:00:00.000Z', 2)`,
    );
    transaction.run(1, 100, '2026-02-28T10:00:00.000Z');
    transaction.run(2, 5, '2026-02-31T10:00:00.000Z');
    const order = db.prepare(
      `INSERT INTO orders (id, customer_id, total_paid, total_refunded, created_at, raw, _synced_at, _change_seq) VALUES (?, 7, ?, '0.00', ?, '{}', '2026-03-01T00:00:00.000Z', 3)`,
    );
    order.run(1, '10.00', '2026-02-25T10:00:00.000Z');
    order.run(2, '20.00', '2026-02-27T10:00:00.000Z');
    // Sorts after every real day of February: the last order by text.
    order.run(3, '5.00', '2026-02-31T10:00:00.000Z');
    db.prepare("INSERT INTO sync_runs (run_id, stream, started_at, status) VALUES ('r', 'customers', '2026-03-01T00:00:00Z', 'succeeded'), ('r', 'transactions', '2026-03-01T00:00:00Z', 'succeeded')").run();
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));

    expect(db.prepare('SELECT customer_id, day, approved_end FROM customer_points_daily').all()).toEqual([{ customer_id: 7, day: '2026-02-28', approved_end: 100 }]);
    const metrics = db.prepare('SELECT day, members, orders, revenue FROM program_metrics_daily WHERE orders > 0 OR new_members > 0 ORDER BY day').all();
    // The member from the day they were created, as a customer whose record gives no enrolment time; the first
    // order, before any transaction or membership, still starts the days.
    expect(metrics).toEqual([
      { day: '2026-02-25', members: 0, orders: 1, revenue: '10.00' },
      { day: '2026-02-26', members: 1, orders: 0, revenue: '0.00' },
      { day: '2026-02-27', members: 1, orders: 1, revenue: '20.00' },
    ]);
    const check = checkLedger(db, { idOverlapHours: 2, updatedAtOverlapMinutes: 10 });
    expect(check.undated_transactions).toBe(1);
    expect(check.defects).toEqual([{ customer_id: 7, balance: 'approved', customer: 105, transactions: 100, undated_transactions: 1 }]);
    db.close();
  });
});
