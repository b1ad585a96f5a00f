import { afterEach, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
});

it('a second sync with no changes makes at most 2 requests per stream', async () => {
  sim = await startSimulator({ seed: 21, size: 'small', pageOrder: 'newest-first' });
  const { db, path } = freshMirror();
  const config = testConfig(sim, path);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  expect((await runSync({ db, client, config, logger })).ok).toBe(true);

  const before = sim.stats().requests;
  const second = await runSync({ db, client, config, logger });
  await client.close();
  const serverSaw = sim.stats().requests - before;

  expect(second.ok).toBe(true);
  expect(second.streams.every((s) => s.inserted === 0 && s.updated === 0 && !s.refreshed)).toBe(true);
  const perStream = db
    .prepare('SELECT stream, requests FROM sync_runs WHERE run_id = ? ORDER BY id')
    .all(second.runId) as Array<{ stream: string; requests: number }>;
  expect(perStream).toHaveLength(5);
  for (const { stream, requests } of perStream) expect({ stream, atMost2: requests <= 2 }).toEqual({ stream, atMost2: true });
  expect(serverSaw).toBe(perStream.reduce((sum, s) => sum + s.requests, 0));
  expect(serverSaw).toBeLessThanOrEqual(2 * 5);
  // The sync checkpoints the WAL less often while it runs, and gives the connection its setting back.
  expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  db.close();
});
