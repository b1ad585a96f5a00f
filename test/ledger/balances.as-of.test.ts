import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';
import { syncMirror, testConfig } from '../helpers/sync.js';

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

describe('balances --as-of', () => {
  it("prints each customer's balances at the end of a day in the program's zone, from a mirror it may not write", async () => {
    sim = await startSimulator({ size: 'small', seed: 12 });
    const { db, path } = freshMirror();
    const zone = 'Asia/Tokyo';
    const config = testConfig(sim, path, { program: { timeZone: zone } });
    await syncMirror(db, config);
    db.close();
    chmodSync(path, 0o444);
    chmodSync(dirname(path), 0o555);
    const env = { LOYALTY_DB: path, LOYALTY_PROGRAM__TIME_ZONE: zone };

    // The truth: the customer's transactions up to the end of the day in Tokyo, summed here.
    const dayIn = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    const transactions = sim.truth('transactions') as Transaction[];
    const customers = sim.truth('customers') as Array<{ id: number; merchant_id: string }>;
    const asOf = '2026-01-15';
    const expected = customers.map((c) => {
      const mine = transactions.filter((t) => t.customer.id === c.id && dayIn.format(new Date(t.created_at)) <= asOf);
      return { customer_id: c.id, approved: mine.reduce((s, t) => s + t.points_approved, 0), pending: mine.reduce((s, t) => s + t.points_pending, 0) };
    });

    const json = await runCli(['balances', '--as-of', asOf, '--format', 'json'], { env, boundByFileModes: true });
    expect(json.code, json.stderr).toBe(0);
    const printed = JSON.parse(json.stdout) as { as_of: string; balances: Array<{ customer_id: number; approved: number; pending: number }> };
    expect(printed.as_of).toBe(asOf);
    expect(printed.balances.map(({ customer_id, approved, pending }) => ({ customer_id, approved, pending }))).toEqual(expected);
    expect(expected.some((row) => row.approved !== 0) && expected.some((row) => row.approved === 0 && row.pending === 0)).toBe(true);

    const one = customers[7];
    const csv = await runCli(['balances', '--as-of', asOf, '--customer', String(one.id)], { env, boundByFileModes: true });
    expect(csv.code, csv.stderr).toBe(0);
    const [header, line, ...rest] = csv.stdout.trimEnd().split('\n');
    expect(header).toBe('customer_id,merchant_id,approved,pending,last_movement_day,in_customers');
    expect(rest).toEqual([]);
    const mine = expected.find((row) => row.customer_id === one.id)!;
    expect(line).toMatch(new RegExp(`^${one.id},${one.merchant_id},${mine.approved},${mine.pending},(\\d{4}-\\d{2}-\\d{2})?,true$`));

    const badDate = await runCli(['balances', '--as-of', '2026-02-30'], { env, boundByFileModes: true });
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toContain('--as-of is "2026-02-30"; expected a calendar date written YYYY-MM-DD');
    const unknown = await runCli(['balances', '--as-of', asOf, '--customer', '99'], { env, boundByFileModes: true });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--customer is 99; the mirror holds no customer and no transaction with that id.');
    chmodSync(dirname(path), 0o755);
  });
});
