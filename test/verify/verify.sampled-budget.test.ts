import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runVerify } from '../../src/verify/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { syncMirror, verifyCli } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A small seeded PRNG (mulberry32): the same seed draws the same rows and windows. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('sampled verify', () => {
  it('never sends more requests than --requests, counted at the simulator, even when requests fail and are retried', async () => {
    sim = await startSimulator({ seed: 4, size: 'small' });
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path);
    db.close();
    sim.setFaults({ rateLimited: 0.1, serverError: 0.1, seed: 3 });

    for (const budget of [1, 4, 9, 25]) {
      const before = sim.stats().requests;
      const verified = await verifyCli(sim, path, ['--requests', String(budget)]);
      const sent = sim.stats().requests - before;
      expect(verified.report?.requests).toBe(sent);
      expect(sent).toBeLessThanOrEqual(budget);
      // Small budgets are used whole (the mirror needs more pages than that to cover).
      if (budget < 10) expect(sent).toBe(budget);
    }
  });

  it('on a mirror with 1% of its rows deleted at random, bounds the missing share above the true rate in at least 19 of 20 seeded runs', async () => {
    sim = await startSimulator({ seed: 12, size: { transactions: 20_000 } });
    const { db, path, dir } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger('warn');
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const total = sim.truth('transactions').length;

    const outcomes: Array<{ rate: number; bound: number; missing: number; compared: number }> = [];
    for (let run = 1; run <= 20; run++) {
      const copy = join(dir, `run-${run}.db`);
      copyFileSync(path, copy);
      const damaged = openDatabase(copy);
      const random = seeded(run);
      const ids = damaged.prepare('SELECT id FROM transactions').pluck().all() as number[];
      const doomed = new Set<number>();
      while (doomed.size < Math.round(total / 100)) doomed.add(ids[Math.floor(random() * ids.length)]);
      damaged.prepare(`DELETE FROM transactions WHERE id IN (${[...doomed].join(',')})`).run();

      const report = await runVerify({ db: damaged, client, config, logger, streams: ['transactions'], mode: 'sample', requests: 20, repair: false, random });
      damaged.close();
      const [stream] = report.streams;
      outcomes.push({ rate: doomed.size / total, bound: stream.missing_bound!, missing: stream.missing_count, compared: stream.compared });
    }
    await client.close();

    const contained = outcomes.filter((outcome) => outcome.bound >= outcome.rate).length;
    expect(contained, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(19);
    // A bound of 100% would always contain the rate: these stay close to it.
    expect(Math.max(...outcomes.map((outcome) => outcome.bound))).toBeLessThan(0.03);
    expect(Math.min(...outcomes.map((outcome) => outcome.compared))).toBeGreaterThan(6_000);
  });
});
