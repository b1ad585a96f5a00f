import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runVerify } from '../../src/verify/index.js';
import { startHostileListServer, type HostileListServer } from '../helpers/hostileListServer.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
let hostile: HostileListServer;
beforeAll(async () => {
  sim = await startSimulator({ seed: 24, size: 'tiny' });
  hostile = await startHostileListServer(sim);
});
afterAll(async () => {
  await hostile.close();
  await sim.close();
});

const DEPTH = 20_000;

function depthOf(value: unknown): number {
  let depth = 0;
  for (let node = value; typeof node === 'object' && node !== null; node = (node as { inner: unknown }).inner) depth += 1;
  return depth;
}

it('a record with a field nested 20,000 levels deep is stored whole, its drift recorded, and verify finds it equal', async () => {
  hostile.act({ kind: 'deep-record', list: 'transactions', depth: DEPTH });
  const { db } = freshMirror();
  const config = testConfig({ url: hostile.url, keys: sim.keys }, db.name);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  const report = await runSync({ db, client, config, logger, streams: ['transactions'] });
  expect(report.streams[0].error).toBeUndefined();
  expect(report.ok).toBe(true);
  const raws = db.prepare('SELECT raw FROM transactions').pluck().all() as string[];
  expect(raws).toHaveLength((sim.truth('transactions') as unknown[]).length);
  const deep = raws.map((raw) => JSON.parse(raw) as { nested_far?: unknown }).find((record) => record.nested_far !== undefined);
  expect(depthOf(deep?.nested_far)).toBe(DEPTH);
  // Fields only: the ledger also records the deep record's missing activity state as an unclassified enum value.
  expect(db.prepare("SELECT kind, path FROM schema_drift WHERE stream = 'transactions' AND kind = 'field'").all()).toEqual([{ kind: 'field', path: 'nested_far' }]);

  // The second sync re-reads the overlap and compares the stored record with the new one.
  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
  const verified = await runVerify({ db, client, config, logger, streams: ['transactions'], mode: 'full', requests: 1, repair: false });
  expect(verified.streams[0]).toMatchObject({ stale_count: 0, missing_count: 0, extra_count: 0 });
  expect(verified.ok).toBe(true);
  await client.close();
  db.close();
});
