import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { loadConfig, STREAM_NAMES, type Config, type StreamName } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createUnsubscribeUpserter, createUpserter, nextChangeSeq, type ApiRecord } from '../../src/db/upsertRecords.js';
import { createLogger, type Logger } from '../../src/log.js';
import { startSimulator } from '../../src/simulator/index.js';
import { STREAMS } from '../../src/streams/index.js';

export function tempDir(prefix = 'export-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const silentLogger: Logger = createLogger({ level: 'silent', destination: { write: () => undefined } });

export function exportConfig(dir: string, overrides: Partial<Config['export']> = {}): Readonly<Config> {
  return loadConfig({
    env: {},
    overrides: { db: { path: join(dir, 'mirror.db') }, export: { dir: join(dir, 'exports'), ...overrides } },
  });
}

/** Upserts records of one stream in one write transaction, as a sync page would. */
export function upsert(db: Db, stream: StreamName, records: readonly ApiRecord[], now = new Date().toISOString()): void {
  const definition = STREAMS[stream];
  const write = stream === 'unsubscribes' ? createUnsubscribeUpserter(db, definition) : createUpserter(db, definition);
  db.transaction(() => write(records, nextChangeSeq(db), now))();
}

/** A mirror filled with the simulator's records (no HTTP: its truth goes straight through the upserters). */
export async function fillMirror(dbPath: string, seed = 7, size: 'tiny' | 'small' = 'small'): Promise<Db> {
  const db = openDatabase(dbPath);
  const sim = await startSimulator({ seed, size });
  try {
    for (const stream of STREAM_NAMES) upsert(db, stream, sim.truth(stream) as ApiRecord[]);
  } finally {
    await sim.close();
  }
  return db;
}

/** Parses an export CSV: a quoted empty field is '' and an unquoted empty one is null, as the writer promises. */
export async function readCsv(path: string): Promise<{ header: string[]; rows: Array<Array<string | null>> }> {
  const records = parse(await readFile(path, 'utf8'), {
    cast: (value, context) => (value === '' && !context.quoting ? null : value),
  }) as Array<Array<string | null>>;
  const [header, ...rows] = records;
  return { header: header.map(String), rows };
}

export async function duckdb(): Promise<{ connection: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Rows of a DuckDB query as JSON-safe objects (numbers and timestamps as strings). */
export async function query(connection: DuckDBConnection, sql: string): Promise<Array<Record<string, unknown>>> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJson() as Array<Record<string, unknown>>;
}
