import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { logRecords, runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { MODEST_PROGRAM, useStateStore } from './stateStore.js';

/**
 * A platform stops a scheduled job with SIGTERM (a cancelled execution, a timeout, a drained node), then
 * SIGKILL after its grace. `once` on the state in the bucket must do what the README says: commit the page
 * in flight, begin no further step, save the state before it exits, and exit 1 (its work is not done), so
 * that the next run goes on from the pages committed instead of starting over.
 */
describe('once stopped by SIGTERM, with state.url', () => {
  const store = useStateStore({ seed: 33, size: MODEST_PROGRAM, faults: { latencyMs: 20 } });

  it('commits the page in flight, saves the state, exits 1 saying the sync was interrupted, and the next run goes on from there', async () => {
    const first = store.freshRun('stopped', { LOYALTY_API__PAGE_SIZE: '25', LOYALTY_RUNTIME__SHUTDOWN_DEADLINE_SECONDS: '10' });
    const proc = startCli(['once', '--export-daily'], first.env);
    await proc.waitForLine((line) => line.msg === 'took the lease on the state');
    // Some pages into the sync: a few pages of orders served, whatever this machine's speed.
    const ordersPages = () => store.sim().stats().byPath['/v2/orders'] ?? 0;
    let exitedEarly = false;
    void proc.exited.then(() => (exitedEarly = true));
    while (ordersPages() < 3 && !exitedEarly) await new Promise((resolve) => setTimeout(resolve, 10));
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(1);
    // Streams finished before the stop show their counts; the one in flight and those after it say interrupted.
    expect(proc.stdout()).toMatch(/^FAIL sync: (\w+ (interrupted|\+\d+ ~\d+)(, )?)+\n$/);
    expect(proc.stdout()).toMatch(/\borders interrupted\b/);
    const messages = proc.lines.map((line) => line.msg);
    expect(messages).toContain('saved the state to the bucket');
    expect(messages.indexOf('saved the state to the bucket')).toBeGreaterThan(messages.indexOf('stopping: finishing the work in flight'));

    // A fresh container: the pages committed before the stop come back from the bucket.
    const second = store.freshRun('stopped', { LOYALTY_API__PAGE_SIZE: '25', LOG_LEVEL: 'info' });
    const result = await runCli(['once', '--export-daily'], { env: second.env });
    expect(result.code, result.stderr).toBe(0);
    const restored = logRecords(result.stderr).find((record) => record.msg === 'restored the mirror from the bucket');
    expect(restored?.rows).toBeGreaterThan(0);
    const db = openDatabase(join(second.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, store.sim())).toEqual([]);
    } finally {
      db.close();
    }
  });
});
