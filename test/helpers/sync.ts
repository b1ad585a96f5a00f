import { Writable } from 'node:stream';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { loadConfig, type Config, type LoadConfigOptions } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { SimulatorHandle, StreamName } from '../../src/simulator/index.js';
import { runSync, type SyncOptions } from '../../src/sync/index.js';
import { expect } from 'vitest';

/**
 * The real config pointed at a simulator, with tiny retry delays and no client-side rate limit
 * so fault tests stay fast; `overrides` can change anything else.
 */
export function testConfig(sim: Pick<SimulatorHandle, 'url' | 'keys'>, dbPath: string, overrides: LoadConfigOptions['overrides'] = {}): Readonly<Config> {
  return loadConfig({
    env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: dbPath, LOG_LEVEL: 'silent' },
    overrides: {
      ...overrides,
      api: {
        requestsPerSecond: 10_000,
        burst: 100,
        slowdownAfter429Ms: 10,
        requestTimeoutMs: 5_000,
        retry: { attempts: 10, minDelayMs: 1, maxDelayMs: 20, maxElapsedMs: 60_000 },
        ...overrides.api,
      },
    },
  });
}

/** A logger whose JSON records land in `records`, so a test can check what an operator would read. */
export function recordingLogger(level: 'debug' | 'info' | 'warn' = 'info'): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level, destination: stream }), records };
}

export function testClient(config: Readonly<Config>, logger: Logger): ApiClient {
  return createApiClient(config.api, logger);
}

/**
 * One sync of the mirror with its own client, as a run makes it (of `streams`, or deep); the test fails unless every
 * stream succeeds.
 */
export async function syncMirror(db: Db, config: Readonly<Config>, options: Pick<SyncOptions, 'streams' | 'deep'> = {}): Promise<void> {
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    expect((await runSync({ db, client, config, logger, ...options })).ok).toBe(true);
  } finally {
    await client.close();
  }
}

export const MIRRORED_STREAMS: readonly StreamName[] = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'];

/**
 * Differences between the mirror and the simulator's truth for one stream, as readable lines
 * (empty when equal): ids missing or extra, and rows whose `raw` differs. Unsubscribes compare
 * the addresses currently on the list (rows without `removed_at`); rows verify marked removed are left out.
 */
export function mirrorDiff(db: Db, sim: Pick<SimulatorHandle, 'truth'>, stream: StreamName, compareRaw: (record: Record<string, unknown>) => boolean = () => true): string[] {
  const truth = new Map<string, unknown>();
  for (const record of sim.truth(stream) as Array<{ id: number | string }>) truth.set(String(record.id), record);
  // Rows marked removed (by a tombstone or by verify) are kept, but the mirror no longer claims them.
  const where = stream === 'unsubscribes' ? ' WHERE removed_at IS NULL' : ' WHERE _removed_at IS NULL';
  const rows = db.prepare(`SELECT id, raw FROM ${stream}${where}`).all() as Array<{ id: number | string; raw: string }>;
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const id = String(row.id);
    seen.add(id);
    const expected = truth.get(id);
    if (expected === undefined) problems.push(`${stream} ${id}: in the mirror, not in the truth`);
    else if (compareRaw(expected as Record<string, unknown>) && !deepEqual(JSON.parse(row.raw), expected)) problems.push(`${stream} ${id}: raw differs\n  mirror: ${row.raw}\n  truth:  ${JSON.stringify(expected)}`);
  }
  for (const id of truth.keys()) if (!seen.has(id)) problems.push(`${stream} ${id}: in the truth, not in the mirror`);
  return problems;
}

/** Every stream's differences; a test expects `[]`. Only the first few lines per stream, to keep failures readable. */
export function mirrorDiffAll(db: Db, sim: Pick<SimulatorHandle, 'truth'>, streams: readonly StreamName[] = MIRRORED_STREAMS): string[] {
  return streams.flatMap((stream) => {
    const problems = mirrorDiff(db, sim, stream);
    return problems.length > 5 ? [...problems.slice(0, 5), `${stream}: ${problems.length - 5} more`] : problems;
  });
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** A transaction as the API lists it, for scripted servers; `fields` replace or add members. */
export function apiTransaction(id: number, fields: Record<string, unknown> = {}): { id: number } & Record<string, unknown> {
  return {
    id,
    customer: { id: 1, merchant_id: 'c1', email: 'c1@example.com', points_pending: 0, points_approved: 0, points_spent: 0 },
    points_approved: 1,
    points_pending: 0,
    created_at: '2026-03-01T12:00:00.000Z',
    resource: 'activity',
    ...fields,
  };
}
