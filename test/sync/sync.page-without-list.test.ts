import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewritingProxy.js';
import { mirrorDiff, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

const MISSING = Symbol('missing');
let sim: SimulatorHandle;
let proxy: RewritingProxy;
/** What the proxy puts under the `orders` key of every orders page. */
let ordersValue: unknown = MISSING;

beforeAll(async () => {
  sim = await startSimulator({ seed: 22, size: 'tiny' });
  proxy = await startRewritingProxy(sim.url, (path, body) => {
    if (path !== '/v2/orders') return body;
    const { orders: _orders, ...rest } = body as Record<string, unknown>;
    return ordersValue === MISSING ? rest : { ...rest, orders: ordersValue };
  });
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

it.each([
  ['missing', MISSING],
  ['null', null],
  ['an object', {}],
  ['a string', '[]'],
])('an orders page whose list is %s fails its stream with one sentence, never as an empty success; the other streams go on', async (_name, value) => {
  ordersValue = value;
  const { db } = freshMirror();
  const config = testConfig({ url: proxy.url, keys: sim.keys }, db.name);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    const report = await runSync({ db, client, config, logger, streams: ['orders', 'transactions'] });
    expect(report.ok).toBe(false);
    const [orders, transactions] = report.streams;
    expect(orders).toMatchObject({ status: 'failed', error: 'GET /v2/orders failed: the response has no "orders" array', rowsRead: 0 });
    expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(0);
    expect(transactions.status).toBe('succeeded');
    expect(mirrorDiff(db, sim, 'transactions')).toEqual([]);
  } finally {
    await client.close();
    db.close();
  }
});
