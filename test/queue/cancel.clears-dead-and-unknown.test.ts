import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import type { HealthFinding } from '../../src/health/checkHealth.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';
import { usableCustomers } from './helpers.js';

const HOUR_MS = 3_600_000;

describe('queue cancel ID', () => {
  const dir = tempDir('loyalty-cancel-');
  const dbPath = join(dir, 'mirror.db');
  let sim: SimulatorHandle;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runCli(args, { env });
  const findings = async (): Promise<string[]> => {
    const result = await cli('status', '--check', '--json');
    return (JSON.parse(result.stdout) as HealthFinding[]).map((finding) => finding.kind);
  };
  const state = (id: number): string => {
    const db = openDatabase(dbPath, { readonly: true });
    try {
      return db.prepare('SELECT state FROM write_jobs WHERE id = ?').pluck().get(id) as string;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, size: 'tiny' });
    env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: dbPath, LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const sync = await cli('sync');
    expect(sync.code, sync.stderr).toBe(0);
  });
  afterAll(async () => sim.close());

  it('clears a dead job: status --check counts it no more, and the same write queued or imported again is not sent', async () => {
    const write = ['queue', 'add-points', '--customer', 'no-such-customer', '--points', '5', '--reason', 'cancel test'];
    expect((await cli(...write)).code).toBe(0);
    expect((await cli('push')).code).toBe(1);
    expect(state(1)).toBe('dead');
    expect(await findings()).toEqual(['dead_jobs']);

    const cancelled = await cli('queue', 'cancel', '1');
    expect(cancelled.stderr).toBe('');
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/^job 1 cancelled \(it was dead: 404 .+\); it will not be sent, and status --check no longer counts it\n$/);
    expect(state(1)).toBe('cancelled');
    expect(await findings()).toEqual([]);
    expect((await cli('status', '--check')).code).toBe(0);

    // The key stays taken: the same command, or the same row imported, queues nothing and sends nothing.
    expect((await cli(...write)).stdout).toBe('already queued as job 1 (state cancelled); nothing added\n');
    const file = join(dir, 'credits.csv');
    writeFileSync(file, 'customer_merchant_id,points,reason\nno-such-customer,5,cancel test\n');
    expect((await cli('queue', 'import', file, '--kind', 'add_points')).stdout).toBe(`${file}: 1 rows: 0 new, 1 already queued\n`);
    const requestsBefore = sim.stats().requests;
    expect((await cli('push')).code).toBe(0);
    expect(sim.stats().requests).toBe(requestsBefore);
    expect(state(1)).toBe('cancelled');
  });

  it('clears an unknown job a person has checked, saying that it may have been applied', async () => {
    const [customer] = usableCustomers(sim);
    expect((await cli('queue', 'add-points', '--customer', customer.merchant_id, '--points', '7', '--reason', 'unknown cancel test')).code).toBe(0);
    // What a send whose answer never came leaves behind, a day and more ago (the test cannot wait that long).
    const db = openDatabase(dbPath);
    db.prepare(`UPDATE write_jobs SET state = 'unknown', attempts = 1, in_doubt = 1, last_status = 503, last_error = 'Service unavailable', updated_at = ? WHERE id = 2`).run(
      new Date(Date.now() - 30 * HOUR_MS).toISOString(),
    );
    db.close();
    expect(await findings()).toEqual(['unknown_jobs']);

    const cancelled = await cli('queue', 'cancel', '2');
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toBe(
      'job 2 cancelled (it was unknown: 503 Service unavailable: it may have been applied, as checked by hand); it will not be sent or looked up again, and status --check no longer counts it\n',
    );
    expect(state(2)).toBe('cancelled');
    expect(await findings()).toEqual([]);
  });

  it('refuses a succeeded job in one sentence, and its help says when an unknown job may be cancelled', async () => {
    const [customer] = usableCustomers(sim);
    expect((await cli('queue', 'add-points', '--customer', customer.merchant_id, '--points', '9', '--reason', 'applied')).code).toBe(0);
    expect((await cli('push')).code).toBe(0);
    expect(state(3)).toBe('succeeded');
    const refused = await cli('queue', 'cancel', '3');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'loyalty-sync: Job 3 has already succeeded (the API applied it), so it cannot be cancelled; undo it with a new write (for points, queue add-points with the opposite amount).\n',
    );
    expect(state(3)).toBe('succeeded');

    const help = await cli('queue', 'cancel', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('dead      cleared: "status --check" and the LoyaltyDeadJobs alert no longer count it');
    expect(help.stdout).toContain('unknown   it may already have been applied, so check the customer, order or review in the loyalty');
  });
  it('cancelling a queued order answered unclearly before says an earlier attempt may have been applied, and names the order to check', async () => {
    const write = ['queue', 'create-order', '--merchant-id', 'ord-cancel-doubt', '--customer-id', 'c-doubt', '--customer-email', 'doubt@example.com'];
    const queued = await cli(...write, '--total', '5.00', '--total-shipping', '0.00', '--total-paid', '5.00', '--payment-status', 'paid');
    expect(queued.code, queued.stderr).toBe(0);
    const id = Number(/job (\d+)/.exec(queued.stdout)?.[1]);
    // What a 502 after the order may have been created leaves: queued again, in doubt, looked up before any resend.
    const db = openDatabase(dbPath);
    db.prepare(`UPDATE write_jobs SET attempts = 1, in_doubt = 1, last_status = 502, last_error = 'Bad gateway' WHERE id = ?`).run(id);
    db.close();
    const cancelled = await cli('queue', 'cancel', String(id));
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toBe(
      `job ${id} cancelled (an earlier attempt may have been applied: 502 Bad gateway); check order ord-cancel-doubt in the loyalty program: it will not be sent or looked up again\n`,
    );
    expect(state(id)).toBe('cancelled');
  });
});
