import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createLogger, type Logger } from '../../src/log.js';
import { enqueueJob } from '../../src/queue/enqueueJob.js';
import { deriveKey } from '../../src/queue/idempotencyKey.js';
import { validatePayload } from '../../src/queue/kinds.js';
import { pushDueJobs, type PushReport } from '../../src/queue/push/pushDueJobs.js';
import { queueCounts } from '../../src/queue/queueCounts.js';
import type { JobKind, WriteJob } from '../../src/queue/types.js';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';
import { SIMULATED_EPOCH } from '../../src/simulator/time.js';

export interface Harness {
  sim: SimulatorHandle;
  db: Db;
  dbPath: string;
  dir: string;
  config: Readonly<Config>;
  client: ApiClient;
  logger: Logger;
  /** Runs from the simulator's epoch, so reconciliation windows line up with the simulated clock. */
  now: () => Date;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sim?: SimulatorOptions;
  push?: Partial<Config['push']>;
  api?: Partial<Config['api']>;
}

/** A fresh simulator and a fresh SQLite file in a temp dir; backoff in milliseconds so retries are fast. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ seed: 7, size: 'small', ...options.sim });
  const dir = mkdtempSync(join(tmpdir(), 'queue-test-'));
  const dbPath = join(dir, 'mirror.db');
  const config = loadConfig({
    env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: dbPath, LOG_LEVEL: 'silent' },
    overrides: {
      push: { concurrency: 4, maxAttempts: 30, backoffBaseMs: 2, backoffMaxMs: 20, ...options.push },
      api: {
        requestsPerSecond: 2000,
        burst: 50,
        slowdownAfter429Ms: 0,
        retry: { attempts: 10, minDelayMs: 2, maxDelayMs: 20, maxElapsedMs: 30_000 },
        ...options.api,
      },
    },
  });
  const logger = createLogger({ level: 'silent' });
  const db = openDatabase(dbPath);
  const client = createApiClient(config.api, logger);
  const started = Date.now();
  return {
    sim,
    db,
    dbPath,
    dir,
    config,
    client,
    logger,
    now: () => new Date(SIMULATED_EPOCH + (Date.now() - started)),
    async close() {
      await client.close();
      db.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Validates and queues one write with a derived key, as `queue <kind>` would. */
export function queue(h: Pick<Harness, 'db' | 'now'>, kind: JobKind, raw: Record<string, unknown>): WriteJob {
  const validation = validatePayload(kind, raw);
  if (!validation.ok) throw new Error(`bad test job: ${JSON.stringify(validation.problems)}`);
  return enqueueJob(h.db, { kind, payload: validation.payload, idempotencyKey: deriveKey(kind, validation.payload), source: 'test' }, h.now()).job;
}

/** Pushes until no job is queued or running, waiting out backoff between runs. Returns the summed reports. */
export async function pushUntilSettled(h: Harness, maxRuns = 200): Promise<PushReport> {
  const total: PushReport = { sent: 0, succeeded: 0, reconciled: 0, retried: 0, dead: 0, unknown: 0, recovered: 0, unreachable: null, deadJobs: [] };
  const counted = ['sent', 'succeeded', 'reconciled', 'retried', 'dead', 'unknown', 'recovered'] as const;
  for (let run = 0; run < maxRuns; run++) {
    const report = await pushDueJobs({ db: h.db, client: h.client, config: h.config, logger: h.logger, now: h.now });
    for (const key of counted) total[key] += report[key];
    total.unreachable ??= report.unreachable;
    total.deadJobs.push(...report.deadJobs);
    const counts = queueCounts(h.db);
    if (counts.queued === 0 && counts.running === 0) return total;
    await sleep(msUntilNextDue(h));
  }
  throw new Error(`the queue did not settle in ${maxRuns} runs: ${JSON.stringify(queueCounts(h.db))}`);
}

function msUntilNextDue(h: Harness): number {
  const row = h.db.prepare(`SELECT MIN(next_attempt_at) AS next FROM write_jobs WHERE state = 'queued'`).get() as { next: string | null };
  return row.next === null ? 0 : Math.max(0, Date.parse(row.next) - h.now().getTime()) + 1;
}

export interface SimCustomer {
  id: number;
  merchant_id: string;
  email: string;
  blocked: boolean;
  points_approved: number;
}

/** Customers that accept points (not blocked), by id. */
export function usableCustomers(sim: SimulatorHandle): SimCustomer[] {
  return (sim.truth('customers') as SimCustomer[]).filter((c) => !c.blocked);
}

/** What `sync` would have stored: the service id beside each merchant id, so reconciliation can find customers. */
export function mirrorCustomers(db: Db, customers: SimCustomer[]): void {
  const insert = db.prepare(
    `INSERT OR REPLACE INTO customers (id, merchant_id, email, raw, _synced_at, _change_seq) VALUES (?, ?, ?, ?, ?, 0)`,
  );
  db.transaction(() => {
    for (const c of customers) insert.run(c.id, c.merchant_id, c.email, JSON.stringify(c), new Date().toISOString());
  })();
}

export function jobsByState(db: Db): Record<string, number> {
  const rows = db.prepare('SELECT state, COUNT(*) AS n FROM write_jobs GROUP BY state').all() as Array<{ state: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
