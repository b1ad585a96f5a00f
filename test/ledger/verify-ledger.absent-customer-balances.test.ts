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

describe('verify --ledger on customers whose records leave out points_pending', () => {
  it('counts the absent balance 0, as an absent points field of a transaction: a program that moves no pending points balances', async () => {
    // The bare program moves no pending points: every transaction's points_pending is 0.
    sim = await startSimulator({ profile: 'bare', size: 'small', seed: 4 });
    proxy = await startRewritingProxy(sim.url, (path, body) => {
      if (path !== '/v2/customers') return body;
      for (const customer of (body as { customers: Array<Record<string, unknown>> }).customers) delete customer.points_pending;
      return body;
    });
    const { db, path } = freshMirror();
    const config = testConfig({ url: proxy.url, keys: sim.keys }, path);
    // Two syncs: the second settles what the first left in flight.
    for (let run = 0; run < 2; run++) {
      await syncMirror(db, config);
    }
    expect(db.prepare('SELECT count(*) FROM customers WHERE points_pending IS NOT NULL').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM transactions WHERE coalesce(points_pending, 0) <> 0').pluck().get()).toBe(0);
    const result = await runCli(['verify', '--ledger', '--json'], { env: { LOYALTY_DB: path } });
    const { ledger } = JSON.parse(result.stdout) as { ledger: { customers: number; balanced: number; pending: unknown[]; defects: unknown[] } };
    expect(ledger.defects).toEqual([]);
    expect(ledger.customers).toBeGreaterThan(0);
    expect(ledger.balanced + ledger.pending.length).toBe(ledger.customers);
    expect(result.code).toBe(0);
    db.close();
  });
});
