import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createHealth } from '../../src/metrics/health.js';
import { createMetrics, knownLabelValues } from '../../src/metrics/registry.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { queueCounts } from '../../src/queue/queueCounts.js';
import { runJob, type WorkerDeps } from '../../src/runtime/jobs.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';
import { queue, usableCustomers } from '../queue/helpers.js';

const MAX_SERIES = 500;
const JOBS = 1000;

let sim: SimulatorHandle;
beforeAll(async () => {
  // A few 429s and 5xx on the way, so statuses and push outcomes other than success get their series too.
  sim = await startSimulator({ seed: 31, size: 'medium', faults: { seed: 31, rateLimited: 0.02, serverError: 0.01 } });
});
afterAll(async () => sim.close());

describe('the metrics of a busy process', () => {
  it(`hold fewer than ${MAX_SERIES} series after a medium sync, a push of ${JOBS} jobs and an export`, async () => {
    const mirror = freshMirror();
    const config = loadConfig({
      env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: mirror.path, LOYALTY_EXPORT_DIR: tempDir('loyalty-cardinality-'), LOG_LEVEL: 'silent' },
      overrides: {
        api: { requestsPerSecond: 2000, burst: 50, slowdownAfter429Ms: 0, retry: { attempts: 10, minDelayMs: 2, maxDelayMs: 20, maxElapsedMs: 30_000 } },
        push: { concurrency: 8, backoffBaseMs: 2, backoffMaxMs: 20 },
      },
    });
    const logger = createLogger({ level: 'silent' });
    // As run builds it: the counters of every configured stream, job kind and export format start at 0.
    const metrics = createMetrics(knownLabelValues(config));
    const client = createApiClient(config.api, logger, undefined, metrics.facts);
    const deps: WorkerDeps = { db: mirror.db, client, config, logger, facts: metrics.facts };
    const server = await startMetricsServer({ address: { host: '127.0.0.1', port: 0 }, registry: metrics.registry, health: createHealth(), logger });
    try {
      expect((await runJob('sync', deps)).ok).toBe(true);

      // Every kind of write, to customers and reviews that exist and to ones that do not (dead on 404).
      const customers = usableCustomers(sim);
      for (let i = 0; i < JOBS; i++) {
        const customer = customers[i % customers.length];
        const target = i % 10 === 0 ? `missing-${i}` : customer.merchant_id;
        switch (i % 4) {
          case 0:
          case 1:
            queue({ db: mirror.db, now: () => new Date() }, 'add_points', { customer_merchant_id: target, points: String(1 + (i % 50)), reason: `cardinality ${i}` });
            break;
          case 2:
            queue({ db: mirror.db, now: () => new Date() }, 'update_review', { platform: 'custom', merchant_id: `rev-${1000 + (i % 300)}`, status: 'approved', full_text: `cardinality ${i}` });
            break;
          default:
            queue({ db: mirror.db, now: () => new Date() }, 'delete_review', { platform: 'custom', merchant_id: `rev-${2000 + i}` });
        }
      }
      expect(mirror.db.prepare('SELECT count(*) FROM write_jobs').pluck().get()).toBe(JOBS);
      for (let run = 0; ; run++) {
        await runJob('push', deps);
        const counts = queueCounts(mirror.db);
        if (counts.queued === 0 && counts.running === 0) break;
        expect(run, 'the queue settles').toBeLessThan(200);
        await sleep(25);
      }
      expect((await runJob('export', deps)).ok).toBe(true);

      const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      const samples = parseSamples(text);
      expect(sumOf(samples, 'loyalty_sync_rows_total')).toBeGreaterThan(100_000);
      expect(sumOf(samples, 'loyalty_push_jobs_total', { outcome: 'succeeded' }) + sumOf(samples, 'loyalty_push_jobs_total', { outcome: 'dead' }) + sumOf(samples, 'loyalty_push_jobs_total', { outcome: 'unknown' })).toBe(JOBS);
      expect(sumOf(samples, 'loyalty_push_jobs_total', { outcome: 'dead' })).toBeGreaterThan(0);
      const endpoints = new Set(samples.filter((sample) => sample.name === 'loyalty_api_requests_total').map((sample) => sample.labels.endpoint));
      for (const endpoint of endpoints) expect(endpoint, 'an endpoint label is a path template').not.toMatch(/\/(missing-|rev-|\d)/);
      console.log(`series after a medium sync, ${JOBS} jobs and an export: ${samples.length}`);
      expect(samples.length).toBeLessThan(MAX_SERIES);
    } finally {
      await server.close();
      await client.close();
      mirror.db.close();
    }
  });
});
