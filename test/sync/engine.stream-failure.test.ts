import { afterEach, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { readSyncStatus, runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
});

it('one failed stream does not stop the others; it is recorded, and the next run recovers', async () => {
  sim = await startSimulator({ seed: 5, size: 'tiny' });
  const { db, path } = freshMirror();
  const config = testConfig(sim, path);
  // A stored plan the API refuses for good (since_id must be >= 0): a permanent 400.
  const broken = { passes: [{ kind: 'list', role: 'new', params: { since_id: -5 } }], refreshes: false };
  db.prepare("INSERT INTO sync_state (stream, pass_state, updated_at) VALUES ('orders', ?, 'x')").run(JSON.stringify(broken));
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  const failed = await runSync({ db, client, config, logger });
  expect(failed.ok).toBe(false);
  expect(failed.streams.map((s) => [s.stream, s.status])).toEqual([
    ['customers', 'succeeded'],
    ['orders', 'failed'],
    ['activities', 'succeeded'],
    ['transactions', 'succeeded'],
    ['unsubscribes', 'succeeded'],
  ]);
  const error = failed.streams[1].error ?? '';
  expect(error).toMatch(/400/);
  expect(error).not.toMatch(/\n|at .*\.js/);
  const run = db.prepare("SELECT status, error, requests FROM sync_runs WHERE stream = 'orders'").get() as Record<string, unknown>;
  expect(run).toMatchObject({ status: 'failed', error, requests: 1 });
  const status = readSyncStatus(db).find((s) => s.stream === 'orders');
  expect(status?.lastError?.message).toBe(error);
  expect(status?.lastSuccessAt).toBeNull();

  const recovered = await runSync({ db, client, config, logger });
  await client.close();
  expect(recovered.ok).toBe(true);
  expect(mirrorDiffAll(db, sim)).toEqual([]);
  db.close();
});
