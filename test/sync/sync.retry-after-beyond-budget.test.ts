import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, sentences, type CliResult } from '../helpers/cli.js';
import { startRetryAfterProxy, type RetryAfterProxy } from '../helpers/retryAfterProxy.js';
import { mirrorDiff } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';

const TEN_YEARS_SECONDS = 315_360_000;

let sim: SimulatorHandle;
let proxy: RetryAfterProxy | undefined;
beforeAll(async () => {
  sim = await startSimulator({ seed: 20, size: 'tiny' });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => {
  await sim.close();
});

/** `loyalty-sync sync` through the proxy, with the default retry settings unless a config file says otherwise. */
async function syncThrough(through: RetryAfterProxy, config?: unknown): Promise<{ result: CliResult; dbPath: string }> {
  const dir = tempDir('ls-retry-after-');
  const dbPath = join(dir, 'mirror.db');
  const env: Record<string, string> = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: through.url, LOYALTY_DB: dbPath, LOG_LEVEL: 'error' };
  if (config !== undefined) {
    env.LOYALTY_CONFIG = join(dir, 'config.json');
    writeFileSync(env.LOYALTY_CONFIG, JSON.stringify(config));
  }
  return { result: await runCli(['sync'], { env }), dbPath };
}

function summaryLines(result: CliResult): string[] {
  return result.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

it('a ten-year Retry-After on one endpoint fails that stream at once, naming it, and the other streams go on', async () => {
  proxy = await startRetryAfterProxy({ target: sim.url, retryAfter: String(TEN_YEARS_SECONDS), throttles: ({ path }) => path.startsWith('/v2/orders') });
  const { result, dbPath } = await syncThrough(proxy);

  expect(result.code, result.stderr).toBe(1);
  expect(summaryLines(result).map((line) => line.split(',')[0])).toEqual([
    'customers: succeeded',
    'orders: failed',
    'activities: succeeded',
    'transactions: succeeded',
    'unsubscribes: succeeded',
  ]);
  expect(sentences(result.stderr).trim().split('\n')).toEqual([
    `loyalty-sync: sync of orders failed: GET /v2/orders failed: the API's Retry-After asks for a wait of ${TEN_YEARS_SECONDS} s, longer than the 300 s left of the retry budget (api.retry.maxElapsedMs) (status 429)`,
  ]);
  // Asked for ten years, it was not asked again: no retries hammer an API that said to go away.
  expect(proxy.throttled).toHaveLength(1);
  const db = openDatabase(dbPath);
  try {
    for (const stream of ['customers', 'activities', 'transactions', 'unsubscribes'] as const) expect(mirrorDiff(db, sim, stream)).toEqual([]);
  } finally {
    db.close();
  }
});

it('an HTTP-date Retry-After ten years ahead on every request ends the sync, every stream naming the wait it was asked for', async () => {
  const tenYearsAhead = new Date(Date.now() + TEN_YEARS_SECONDS * 1000).toUTCString();
  proxy = await startRetryAfterProxy({ target: sim.url, retryAfter: tenYearsAhead, throttles: () => true });
  const { result } = await syncThrough(proxy);

  expect(result.code, result.stderr).toBe(1);
  const lines = sentences(result.stderr).trim().split('\n');
  expect(lines).toHaveLength(5);
  for (const sentence of lines) {
    expect(sentence).toMatch(/^loyalty-sync: sync of \w+ failed: GET \S+ failed: the API's Retry-After asks for a wait of \d+ s, longer than the 300 s left/);
    // The date is to the second, and the sync reads it a moment later: the wait is ten years less a few seconds.
    const asked = Number(/a wait of (\d+) s/.exec(sentence)?.[1]);
    expect(asked).toBeGreaterThan(TEN_YEARS_SECONDS - 600);
    expect(asked).toBeLessThanOrEqual(TEN_YEARS_SECONDS);
  }
  // Node warns for a timer past 2^31-1 ms and then fires it after 1 ms: the limiter would poll.
  expect(result.stderr).not.toContain('TimeoutOverflowWarning');
});

it('a Retry-After longer than api.retry.maxDelayMs but within the budget is waited out only up to maxDelayMs', async () => {
  // Two minutes asked, twice; with the cap at 50 ms the stream retries twice and completes.
  let asked = 0;
  proxy = await startRetryAfterProxy({ target: sim.url, retryAfter: '120', throttles: ({ path }) => path.startsWith('/v2/orders') && asked++ < 2 });
  const { result, dbPath } = await syncThrough(proxy, { api: { retry: { minDelayMs: 10, maxDelayMs: 50 } } });

  expect(result.code, result.stderr).toBe(0);
  expect(proxy.throttled).toHaveLength(2);
  const db = openDatabase(dbPath);
  try {
    expect(mirrorDiff(db, sim, 'orders')).toEqual([]);
  } finally {
    db.close();
  }
});
