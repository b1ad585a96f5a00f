import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { listJobs } from '../../src/queue/listJobs.js';
import { cliEnv, runCli, startCli } from './cli.js';
import { jobsByState, queue, startHarness, usableCustomers, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  // Latency keeps requests in flight, so the kill lands while jobs are `running`.
  h = await startHarness({ sim: { faults: { latencyMs: 40 } } });
});
afterEach(() => h.close());

test('a push killed with SIGKILL mid-run and restarted applies nothing twice', async () => {
  const customers = usableCustomers(h.sim).slice(0, 10);
  for (let i = 0; i < 30; i++) queue(h, 'add_points', { customer_merchant_id: customers[i % 10].merchant_id, points: '3', reason: `kill test ${i}` });
  for (let i = 0; i < 15; i++) {
    const c = customers[(i + 3) % 10];
    queue(h, 'create_order', { merchant_id: `ord-kill-${i}`, customer_id: c.merchant_id, customer_email: c.email, total: '9.00', total_shipping: '1.00', total_paid: '9.00', payment_status: 'paid' });
  }
  for (let i = 0; i < 15; i++) queue(h, 'update_review', { platform: 'custom', merchant_id: `rev-${1000 + i}`, status: 'approved' });
  const configFile = join(h.dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ push: { backoffBaseMs: 5, backoffMaxMs: 50 }, api: { requestsPerSecond: 1000, burst: 50 } }));
  const env = cliEnv({ baseUrl: h.sim.url, apiKey: h.sim.keys.full, dbPath: h.dbPath });

  const first = startCli(['--config', configFile, 'push'], { ...env, LOG_LEVEL: 'debug' });
  let requests = 0;
  first.stderr?.on('data', (chunk: Buffer) => {
    requests += chunk.toString().split('"api request"').length - 1;
    if (requests >= 20 && first.exitCode === null && !first.killed) first.kill('SIGKILL');
  });
  const [, signal] = (await once(first, 'exit')) as [number | null, NodeJS.Signals | null];
  expect(signal).toBe('SIGKILL');
  expect(jobsByState(h.db).running).toBeGreaterThan(0);
  const appliedBeforeRestart = h.sim.ledger().length;
  expect(appliedBeforeRestart).toBeGreaterThan(0);

  const second = await runCli(['--config', configFile, 'push'], env);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(/recovered from a stopped worker/);

  const ledger = h.sim.ledger();
  const jobs = listJobs(h.db);
  expect(jobs.filter((j) => j.state === 'queued' || j.state === 'running')).toEqual([]);
  for (const job of jobs) {
    const p = job.payload;
    const applied = ledger.filter((e) =>
      job.kind === 'add_points' ? (e.body as { reason?: unknown }).reason === p.reason : e.kind === job.kind && e.target === (job.kind === 'create_order' ? p.merchant_id : `custom/${String(p.merchant_id)}`),
    ).length;
    if (job.kind === 'update_review') expect(applied, `job ${job.id}`).toBeGreaterThanOrEqual(1);
    else if (job.state === 'succeeded') expect(applied, `job ${job.id} ${job.kind}`).toBe(1);
    else {
      expect(job.state, `job ${job.id}`).toBe('unknown');
      expect(applied, `job ${job.id} ${job.kind}`).toBeLessThanOrEqual(1);
    }
  }
  // Every order and review ends succeeded: the ones cut off were looked up or resent, not left behind.
  expect(jobs.filter((j) => j.kind !== 'add_points').every((j) => j.state === 'succeeded')).toBe(true);
});
