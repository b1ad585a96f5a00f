import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { startHostileListServer, type HostileListServer } from '../helpers/hostileListServer.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
let hostile: HostileListServer;
beforeAll(async () => {
  sim = await startSimulator({ seed: 23, size: 'tiny' });
  hostile = await startHostileListServer(sim);
});
afterAll(async () => {
  await hostile.close();
  await sim.close();
});

it('a list that hands out a new cursor on every page over the same rows fails its stream after a few pages, naming why', async () => {
  hostile.act({ kind: 'fresh-cursors', list: 'transactions' });
  const { db } = freshMirror();
  const config = testConfig({ url: hostile.url, keys: sim.keys }, db.name);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  const report = await runSync({ db, client, config, logger, streams: ['transactions', 'customers'] });
  expect(report.streams[0]).toMatchObject({
    stream: 'transactions',
    status: 'failed',
    error: 'GET transactions: 5 pages in a row came with new cursors but held only rows already read, so the list would never end',
  });
  // The first page, then five that repeat it.
  expect(hostile.hostileAnswers).toBe(6);
  // What was read is kept, each row once; the next stream still runs.
  expect(db.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe((sim.truth('transactions') as unknown[]).length);
  expect(report.streams[1]).toMatchObject({ stream: 'customers', status: 'succeeded' });
  await client.close();
  db.close();
});
