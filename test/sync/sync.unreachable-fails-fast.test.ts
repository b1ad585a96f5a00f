import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { logRecords, runCli, sentences, type CliResult } from '../helpers/cli.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';

/** A loopback port nobody listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The summary lines a CLI run printed on stdout (its logs go to stderr). */
function plainLines(result: CliResult): string[] {
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('an API that cannot be reached at all', () => {
  let baseUrl: string;
  const dir = tempDir('ls-unreachable-');
  const env = () => ({ LOYALTY_API_KEY: 'sk_unreachable_test', LOYALTY_BASE_URL: baseUrl, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') });

  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${await closedPort()}`;
  });

  it('fails the sync on its first stream and skips the other four, naming the address once', async () => {
    const result = await runCli(['sync'], { env: env() });
    expect(result.code, result.stderr).toBe(1);
    expect(plainLines(result)).toEqual([
      'customers: failed, 0 rows read, 0 new, 0 updated, 0 pages',
      'orders: skipped, 0 rows read, 0 new, 0 updated, 0 pages',
      'activities: skipped, 0 rows read, 0 new, 0 updated, 0 pages',
      'transactions: skipped, 0 rows read, 0 new, 0 updated, 0 pages',
      'unsubscribes: skipped, 0 rows read, 0 new, 0 updated, 0 pages',
    ]);
    const said = sentences(result.stderr).trim().split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toBe(
      `loyalty-sync: the API at ${baseUrl} could not be reached (GET /v2/customers failed: the connection was refused (ECONNREFUSED)); skipped orders, activities, transactions, unsubscribes.`,
    );
    expect(result.stderr).not.toContain('sk_unreachable_test');
    // Only the first stream spent retries: no other endpoint was ever asked.
    const retried = logRecords(result.stderr).filter((record) => String(record.msg).startsWith('retrying after'));
    expect(retried.length).toBeGreaterThan(0);
    expect(new Set(retried.map((record) => record.path))).toEqual(new Set(['/v2/customers']));
  });

  it('stops a push at once: every job stays queued with no attempt counted', async () => {
    for (const customer of ['c-1', 'c-2', 'c-3']) {
      const queued = await runCli(['queue', 'add-points', '--customer', customer, '--points', '5', '--reason', 'welcome'], { env: env() });
      expect(queued.code, queued.stderr).toBe(0);
    }
    const result = await runCli(['push'], { env: env() });
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toContain(`loyalty-sync: the API at ${baseUrl} could not be reached`);
    expect(result.stderr).toContain('the remaining jobs stay queued for the next push');
    const db = openDatabase(join(dir, 'mirror.db'));
    try {
      const jobs = db.prepare('SELECT state, attempts FROM write_jobs ORDER BY id').all();
      expect(jobs).toEqual([
        { state: 'queued', attempts: 0 },
        { state: 'queued', attempts: 0 },
        { state: 'queued', attempts: 0 },
      ]);
    } finally {
      db.close();
    }
  });

  it('makes `once` skip the push, still export the mirror, and exit 1', async () => {
    const result = await runCli(['once'], { env: env() });
    expect(result.code, result.stdout).toBe(1);
    const steps = plainLines(result).map((line) => line.split(':')[0]);
    expect(steps).toEqual(['FAIL sync', 'SKIP push', 'ok   export']);
    expect(plainLines(result)[1]).toBe('SKIP push: skipped: the API was unreachable; the queued jobs wait for the next run');
  });
});

describe('an API that is up but flaky', () => {
  let sim: SimulatorHandle;
  const dir = tempDir('ls-flaky-');

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'tiny', faults: { serverError: 0.15, drop: 0.15, rateLimited: 0.1, seed: 5 } });
  });
  afterAll(async () => sim.close());

  it('keeps its retries: every stream completes and the mirror equals the truth', async () => {
    const result = await runCli(['sync'], {
      env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db') },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(sim.stats().faultsInjected).toBeGreaterThan(0);
    expect(plainLines(result).every((line) => line.includes(': succeeded,'))).toBe(true);
    const db = openDatabase(join(dir, 'mirror.db'));
    try {
      expect(mirrorDiffAll(db, sim)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
