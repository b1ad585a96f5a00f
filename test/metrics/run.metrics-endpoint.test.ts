import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { parseSamples, promtool, sumOf, type Sample } from '../helpers/exposition.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';

const STREAMS = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'];
/** Never within a test: the jobs other than sync stay quiet. */
const NEVER = '0 0 1 1 *';

let sim: SimulatorHandle;
beforeAll(async () => {
  // A rate limit well under the client's 20 requests per second: the sync meets 429s on its way.
  sim = await startSimulator({ seed: 13, size: 'small', rateLimit: { requestsPerSecond: 4, burst: 2 } });
});
afterAll(async () => sim.close());

describe('run --metrics-listen', () => {
  it('serves metrics that pass promtool and agree with the mirror, the sync report and the 429s the API answered', async () => {
    const dir = tempDir('loyalty-metrics-');
    const dbPath = join(dir, 'mirror.db');
    const configFile = join(dir, 'config.json');
    // One sync a minute, a few seconds from now: after it ends, the API stays quiet while this test reads.
    const second = (new Date().getUTCSeconds() + 4) % 60;
    writeFileSync(configFile, JSON.stringify({ schedule: { sync: `${second} * * * * *`, refresh: NEVER, push: NEVER, export: NEVER } }));
    const proc = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], {
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: dbPath,
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
    });
    onTestFinished(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    onTestFailed(() => console.error(`stderr: ${proc.stderr()}\nlast log records: ${JSON.stringify(proc.lines.slice(-10))}`));

    const serving = await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
    const base = `http://127.0.0.1:${String(serving.port)}`;
    const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      return { text, samples: parseSamples(text) };
    };

    let first = await scrape();
    while (sumOf(first.samples, 'loyalty_sync_runs_total') < STREAMS.length) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      first = await scrape();
    }
    const simStats = sim.stats();
    // The same figures a moment later prove no second sync started between the scrape and the simulator's count.
    const again = await scrape();
    expect(sumOf(again.samples, 'loyalty_sync_runs_total')).toBe(STREAMS.length);
    expect(sumOf(again.samples, 'loyalty_api_requests_total')).toBe(sumOf(first.samples, 'loyalty_api_requests_total'));

    const lint = await promtool(['check', 'metrics'], first.text);
    expect(lint.output).toBe('');
    expect(lint.code).toBe(0);

    for (const stream of STREAMS) expect(sumOf(first.samples, 'loyalty_sync_runs_total', { stream, outcome: 'succeeded' }), stream).toBe(1);

    const db = openDatabase(dbPath, { readonly: true });
    try {
      const transactions = db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
      expect(transactions).toBeGreaterThan(0);
      expect(sumOf(first.samples, 'loyalty_mirror_rows', { table: 'transactions' })).toBe(transactions);
    } finally {
      db.close();
    }

    // What the sync reported: one summary record per stream.
    for (const stream of STREAMS) {
      const summary = proc.lines.find((line) => line.msg === `${stream} sync succeeded`);
      expect(summary, `${stream} summary`).toBeDefined();
      for (const change of ['inserted', 'updated', 'removed']) {
        const reported = Number(summary?.[change] ?? 0);
        expect(sumOf(first.samples, 'loyalty_sync_rows_total', { stream, change }), `${stream} ${change}`).toBe(reported);
      }
    }
    expect(sumOf(first.samples, 'loyalty_sync_rows_total')).toBeGreaterThan(5000);

    const answered429 = simStats.byStatus['429'] ?? 0;
    expect(answered429).toBeGreaterThan(0);
    expect(sumOf(first.samples, 'loyalty_api_rate_limited_total')).toBe(answered429);
    expect(sumOf(first.samples, 'loyalty_api_requests_total', { status: '429' })).toBe(answered429);
    expect(sumOf(first.samples, 'loyalty_api_requests_total')).toBe(simStats.requests);
    // Endpoints are templates, never a concrete id.
    const endpoints = new Set(first.samples.filter((sample) => sample.name === 'loyalty_api_requests_total').map((sample) => sample.labels.endpoint));
    expect([...endpoints].sort()).toEqual(['/v2/activities', '/v2/customers', '/v2/loyalty_emails/unsubscribes', '/v2/orders', '/v2/transactions']);

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const other = await fetch(`${base}/metrics/extra`);
    expect(other.status).toBe(404);

    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });
});
