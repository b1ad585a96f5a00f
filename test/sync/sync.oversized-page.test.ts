import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { startHostileListServer, type HostileListServer } from '../helpers/hostileListServer.js';
import { mirrorDiff, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
let hostile: HostileListServer;
beforeAll(async () => {
  sim = await startSimulator({ seed: 22, size: 'tiny' });
  hostile = await startHostileListServer(sim);
});
afterAll(async () => {
  await hostile.close();
  await sim.close();
});

const MAX_RESPONSE_BYTES = 1024 * 1024;
const PAGE_BYTES = 256 * 1024 * 1024;

async function syncOrdersAndTransactions() {
  const { db } = freshMirror();
  const config = testConfig({ url: hostile.url, keys: sim.keys }, db.name, { api: { maxResponseBytes: MAX_RESPONSE_BYTES } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    return { db, report: await runSync({ db, client, config, logger, streams: ['orders', 'transactions'] }) };
  } finally {
    await client.close();
  }
}

describe('a response body larger than api.maxResponseBytes', () => {
  for (const declareLength of [false, true]) {
    it(`fails its stream with one sentence, abandoned while it arrives (${declareLength ? 'with' : 'without'} Content-Length); the other streams go on`, async () => {
      // A well-formed orders page holding no orders, padded to 256 MiB: read whole, it would count as success.
      hostile.act({ kind: 'huge-page', list: 'orders', bytes: PAGE_BYTES, declareLength });
      const sentBefore = hostile.paddingSent;
      const answersBefore = hostile.hostileAnswers;
      const { db, report } = await syncOrdersAndTransactions();

      expect(report.ok).toBe(false);
      const [orders, transactions] = report.streams;
      expect(orders.status).toBe('failed');
      expect(orders.error).toBe(`GET /v2/orders failed: the response body exceeded api.maxResponseBytes (${MAX_RESPONSE_BYTES} bytes) and was abandoned (status 200)`);
      // Refused once, not retried: asking again would only fetch the same bytes.
      expect(hostile.hostileAnswers - answersBefore).toBe(1);
      // The client hung up long before the server could write the page.
      expect(hostile.paddingSent - sentBefore).toBeLessThan(PAGE_BYTES / 4);
      expect(transactions.status).toBe('succeeded');
      expect(mirrorDiff(db, sim, 'transactions')).toEqual([]);
      expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(0);
      db.close();
    });
  }

  it('a page within the limit is read as before', async () => {
    hostile.act(null);
    const { db, report } = await syncOrdersAndTransactions();
    expect(report.ok).toBe(true);
    expect(mirrorDiff(db, sim, 'orders')).toEqual([]);
    db.close();
  });
});
