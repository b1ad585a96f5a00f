import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type PageOrder, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('a first sync', () => {
  for (const pageOrder of ['newest-first', 'oldest-first'] as PageOrder[]) {
    it(`leaves the mirror equal to the truth (${pageOrder}, faults on)`, async () => {
      sim = await startSimulator({
        seed: 7,
        size: 'small',
        pageOrder,
        faults: { rateLimited: 0.03, rateLimitedNoRetryAfter: 0.03, serverError: 0.03, drop: 0.03, truncate: 0.03, seed: 11 },
      });
      const { db, path } = freshMirror();
      const config = testConfig(sim, path);
      const { logger } = recordingLogger();
      const client = testClient(config, logger);
      const report = await runSync({ db, client, config, logger });
      await client.close();

      expect(report.streams.map((s) => [s.stream, s.status, s.error])).toEqual(
        ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].map((stream) => [stream, 'succeeded', undefined]),
      );
      expect(report.ok).toBe(true);
      expect(client.stats.retries).toBeGreaterThan(0);
      expect(mirrorDiffAll(db, sim)).toEqual([]);
      db.close();
    });
  }
});
