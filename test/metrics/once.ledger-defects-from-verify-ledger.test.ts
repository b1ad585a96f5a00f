import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { alertsFiring } from '../helpers/alerts.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 9, size: 'small' });
});
afterAll(async () => sim.close());

describe('loyalty_ledger_defects, read from the mirror at start', () => {
  it('carries a `verify --ledger` that found defects into the next once, though no whole verify ever ran, so LoyaltyLedgerDefects fires', async () => {
    const dir = tempDir('loyalty-ledger-metric-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    expect((await runCli(['sync'], { env })).code).toBe(0);
    // A balance moved without a transaction, and the program ran past sync.idOverlapHours: a defect, not pending.
    const customer = (sim.truth('customers') as Array<{ id: number }>)[10];
    sim.moveBalances([{ customerId: customer.id, approved: 25 }]);
    sim.tick(3);
    expect((await runCli(['sync'], { env })).code).toBe(0);
    const check = await runCli(['verify', '--ledger', '--json'], { env });
    expect(check.code, check.stdout).toBe(1);
    expect((JSON.parse(check.stdout) as { ledger: { defects: unknown[] } }).ledger.defects).toHaveLength(1);

    // The CronJob's next run, without --verify: its metrics still say what the last reconciliation found.
    const file = join(dir, 'loyalty_sync.prom');
    const once = await runCli(['once', '--metrics-file', file], { env });
    expect(once.code, once.stderr).toBe(0);
    const samples = parseSamples(readFileSync(file, 'utf8'));
    expect(sumOf(samples, 'loyalty_ledger_defects', {})).toBe(1);
    expect((await alertsFiring(samples, new Date(), 60)).filter((alert) => alert.startsWith('LoyaltyLedgerDefects'))).toEqual(['LoyaltyLedgerDefects']);
  });
});
