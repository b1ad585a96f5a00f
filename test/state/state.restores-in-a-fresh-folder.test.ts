import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { logRecords, runCli } from '../helpers/cli.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { STORE_KINDS, MODEST_PROGRAM, useStateStore } from './stateStore.js';

describe.each(STORE_KINDS)('a job without a volume (state.url in a %s)', (kind) => {
  const store = useStateStore({ seed: 27, size: MODEST_PROGRAM }, kind);
  const sim = () => store.sim();

  /** Each run in a folder of its own, as a job on a fresh container; small pages, so a whole read costs many requests and an incremental one few. */
  const freshRun = (args: string[]) => {
    const { dir, env } = store.freshRun('program-a', { LOYALTY_API__PAGE_SIZE: '25' });
    return { dir, run: () => runCli(args, { env }) };
  };

  it('keeps a local mirror that is the state\'s newest, and replaces one another machine has moved past', async () => {
    // Two machines, each with a folder that lasts from one run to the next.
    const [x, y] = [store.freshRun('two-machines', { LOG_LEVEL: 'info' }), store.freshRun('two-machines', { LOG_LEVEL: 'info' })];
    const restored = (stderr: string) => logRecords(stderr).some((record) => record.msg === 'restored the mirror from the bucket');
    expect((await runCli(['sync'], x)).code).toBe(0);
    const yFirst = await runCli(['sync'], y);
    expect(yFirst.code, yFirst.stderr).toBe(0);
    expect(restored(yFirst.stderr)).toBe(true);

    sim().tick();
    // Y's mirror is the state's newest: it is used as it is, not fetched again.
    const yAgain = await runCli(['sync'], y);
    expect(yAgain.code, yAgain.stderr).toBe(0);
    expect(restored(yAgain.stderr)).toBe(false);

    // X's mirror is behind what Y saved since: set aside, and the bucket's state restored in its place.
    const xAgain = await runCli(['sync'], x);
    expect(xAgain.code, xAgain.stderr).toBe(0);
    expect(restored(xAgain.stderr)).toBe(true);
    expect(existsSync(join(x.dir, 'mirror.db.replaced'))).toBe(true);
    const db = openDatabase(join(x.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim())).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('restores the mirror in an empty folder, syncs a small fraction of the first run, and pushes what another run queued', async () => {
    const requestsBefore = sim().stats().requests;
    const first = await freshRun(['sync']).run();
    expect(first.code, first.stderr).toBe(0);
    const firstRequests = sim().stats().requests - requestsBefore;
    expect(await store.listKeys('program-a/state/dumps/')).toHaveLength(1);

    const customer = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const queued = await freshRun(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '40', '--reason', 'state test']).run();
    expect(queued.code, queued.stderr).toBe(0);
    expect(sim().ledger()).toHaveLength(0);

    sim().tick();
    const before = sim().stats().requests;
    const second = freshRun(['once']);
    const result = await second.run();
    expect(result.code, result.stderr).toBe(0);
    const secondRequests = sim().stats().requests - before;
    // Incremental: the restored checkpoints carry on where the first run stopped.
    expect(secondRequests, `first run ${firstRequests} requests, second ${secondRequests}`).toBeLessThan(firstRequests / 3);
    expect(sim().ledger().map(({ kind, target, body }) => ({ kind, target, points: (body as { points: number }).points }))).toEqual([
      { kind: 'add_points', target: customer.merchant_id, points: 40 },
    ]);

    // A third fresh folder restores what `once` saved and syncs the credit in (with the lookback windows, for the
    // ids the simulator makes visible late): the mirror equals the program, and the job is done, once.
    const third = freshRun(['sync', '--refresh']);
    const listed = await third.run();
    expect(listed.code, listed.stderr).toBe(0);
    const db = openDatabase(join(third.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim())).toEqual([]);
      expect(db.prepare("SELECT kind, state FROM write_jobs").all()).toEqual([{ kind: 'add_points', state: 'succeeded' }]);
    } finally {
      db.close();
    }
    expect(sim().ledger()).toHaveLength(1);
  });
});
