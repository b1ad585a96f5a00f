import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 9, size: 'small' });
});
afterAll(async () => sim.close());

describe('once --verify, failed by the reconciliation alone', () => {
  it("says on its verify line that the ledger's balances failed it, not stream rows that all compared equal", async () => {
    const dir = tempDir('loyalty-once-ledger-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    expect((await runCli(['sync'], { env })).code).toBe(0);
    // A balance moved without a transaction, and the program ran past sync.idOverlapHours: a defect, not pending.
    const customer = (sim.truth('customers') as Array<{ id: number }>)[10];
    sim.moveBalances([{ customerId: customer.id, approved: 25 }]);
    sim.tick(3);

    const once = await runCli(['once', '--verify'], { env });
    expect(once.code).toBe(1);
    const line = once.stdout.split('\n').find((text) => text.includes(' verify: '));
    // Every stream compared equal: the ledger is what failed, and the line says so.
    expect(line).toMatch(/^FAIL verify: LEDGER DEFECTS \(balances unequal to the sum of their transactions\), \d+ requests; customers 0\/0\/0 of \d+, /);
    expect(line).toMatch(/, ledger 1 defect\(s\) of \d+ customers/);
  });
});
