import { afterEach, expect, it } from 'vitest';
import { enqueueJob, queueCounts, validatePayload, deriveKey } from '../../src/queue/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';

// Pages are written by a storage thread on its own connection, committing several at a time. These tests
// hold it to what the main thread's connection promised before: a failure loses nothing a rerun does not
// restore, and the process's other writers (the push queue in `run`) are never locked out.

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
});

it('a write the storage thread cannot make fails that stream alone, and the next run completes the mirror', async () => {
  sim = await startSimulator({ seed: 11, size: 'small', pageOrder: 'oldest-first' });
  const { db, path } = freshMirror();
  // Small pages, so the failing row comes after several stored groups of the same transaction.
  const pageSize = 50;
  const config = testConfig(sim, path, { api: { pageSize } });
  const ids = (sim.truth('transactions') as Array<{ id: number }>).map((t) => t.id).sort((a, b) => a - b);
  const poisoned = ids[Math.floor(ids.length * 0.6)];
  // A trigger stands in for a failing disk: the storage thread's insert of this one row aborts.
  db.exec(`CREATE TRIGGER refuse_one BEFORE INSERT ON transactions WHEN NEW.id = ${poisoned} BEGIN SELECT RAISE(ABORT, 'disk refused the row'); END`);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  const failed = await runSync({ db, client, config, logger });
  expect(failed.streams.map((s) => [s.stream, s.status])).toEqual([
    ['customers', 'succeeded'],
    ['orders', 'succeeded'],
    ['activities', 'succeeded'],
    ['transactions', 'failed'],
    ['unsubscribes', 'succeeded'],
  ]);
  expect(failed.streams[3].error).toContain('disk refused the row');
  // What is stored is whole pages from the start of the list, none of them the failing one's, and the
  // checkpoint points right after them: nothing half-stored, nothing skipped.
  const stored = db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all() as number[];
  expect(stored.length % pageSize).toBe(0);
  expect(stored).toEqual(ids.slice(0, stored.length));
  expect(stored.length).toBeLessThanOrEqual(ids.indexOf(poisoned) - (ids.indexOf(poisoned) % pageSize));
  const state = db.prepare("SELECT cursor, last_success_at, last_error FROM sync_state WHERE stream = 'transactions'").get() as Record<string, unknown>;
  expect(state).toMatchObject({ last_success_at: null, last_error: expect.stringContaining('disk refused the row') });
  if (stored.length > 0) {
    // The stored cursor continues with the first row not stored.
    const after = await client.fetchPage<{ id: number }>('transactions', {}, state.cursor as string);
    expect(after.items[0].id).toBe(ids[stored.length]);
  } else {
    expect(state.cursor).toBeNull();
  }

  db.exec('DROP TRIGGER refuse_one');
  const recovered = await runSync({ db, client, config, logger });
  await client.close();
  expect(recovered.ok).toBe(true);
  expect(mirrorDiffAll(db, sim)).toEqual([]);
  db.close();
});

it('writes on the main connection during a sync all land, between the storage thread commits', async () => {
  // Latency keeps the sync busy for many pages while the writes below come in.
  sim = await startSimulator({ seed: 12, size: 'small', faults: { latencyMs: 5 } });
  const { db, path } = freshMirror();
  const config = testConfig(sim, path, { api: { pageSize: 50 } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const customers = sim.truth('customers') as Array<{ merchant_id: string }>;

  let syncing = true;
  const sync = runSync({ db, client, config, logger }).finally(() => (syncing = false));
  let queued = 0;
  while (syncing) {
    const validation = validatePayload('add_points', { customer_merchant_id: customers[queued % customers.length].merchant_id, points: queued + 1, reason: `during sync ${queued}` });
    if (!validation.ok) throw new Error(JSON.stringify(validation.problems));
    enqueueJob(db, { kind: 'add_points', payload: validation.payload, idempotencyKey: deriveKey('add_points', validation.payload), source: 'test' }, new Date());
    queued += 1;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const report = await sync;
  await client.close();

  expect(report.ok).toBe(true);
  expect(queued).toBeGreaterThan(5);
  expect(queueCounts(db).queued).toBe(queued);
  expect(mirrorDiffAll(db, sim)).toEqual([]);
  db.close();
});
