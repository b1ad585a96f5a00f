import type { Config } from '../../config.js';
import { STREAM_NAMES } from '../../config.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { acquireLock, type HeldLock } from '../../runtime/lock.js';
import { toolVersion } from '../../version.js';
import type { ManifestDeltaTable } from '../manifest.js';
import type { TableSchema } from '../schema.js';
import type { Snapshot } from '../snapshot.js';
import type { DeltaStore } from './store.js';
import { writeDeltaTable } from './writeTable.js';

/** Where the Delta tables live, relative to the export root or the target's prefix. */
export const DELTA_DIR = 'delta';

/** One place the run keeps its Delta tables: the export folder, or the bucket it publishes to. */
export interface DeltaPlace {
  where: 'local' | 'bucket';
  /** The store of `table`'s Delta table at `delta/TABLE` in this place. */
  storeFor(table: string): DeltaStore;
}

export interface DeltaExportOptions {
  db: Db;
  snapshot: Snapshot;
  schemas: readonly TableSchema[];
  places: readonly DeltaPlace[];
  runId: string;
  config: Readonly<Config>;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * The Delta format of a run: each stream table's Delta table, in each place, brought up to the run's
 * snapshot (see writeTable.ts). The caller holds the mirror's `delta` lock, so one mirror's exports
 * commit one after the other. Each table's state is recorded in the mirror for `status`.
 */
export async function exportDeltaTables(options: DeltaExportOptions): Promise<ManifestDeltaTable[]> {
  const { db, snapshot, config, logger } = options;
  const mirrorId = mirrorIdentity(db);
  const tool = toolVersion();
  const reports: ManifestDeltaTable[] = [];
  for (const schema of options.schemas) {
    if (!(STREAM_NAMES as readonly string[]).includes(schema.table)) continue;
    for (const place of options.places) {
      options.signal?.throwIfAborted();
      const store = place.storeFor(schema.table);
      const result = await writeDeltaTable({
        snapshot,
        schema,
        store,
        mirrorId,
        changeSeq: snapshot.changeSeq,
        runId: options.runId,
        tool,
        rowGroupSize: config.export.parquetRowGroupSize,
        retainDays: config.export.delta.retainDays,
        logger,
        signal: options.signal,
      });
      recordDeltaTable(db, schema.table, store.location, result);
      reports.push({
        table: schema.table,
        where: place.where,
        path: `${DELTA_DIR}/${schema.table}`,
        version: result.version,
        committed: result.committed,
        files: result.files,
        bytes: result.bytes,
        rowsAdded: result.rowsAdded,
        rowsRemoved: result.rowsRemoved,
        bytesAdded: result.bytesAdded,
      });
    }
  }
  return reports;
}

/** The lock in the mirror that one mirror's Delta exports take in turn (a manual `export` beside `run`'s schedule). */
export const DELTA_LOCK = 'delta';

/** Waits for the mirror's Delta lock; the signal (Ctrl-C, shutdown) ends the wait. */
export async function holdDeltaLock(db: Db, leaseMs: number, logger: Logger, signal?: AbortSignal): Promise<HeldLock> {
  return acquireLock({ db, dbPath: db.name, name: DELTA_LOCK, command: 'export', leaseMs, logger, wait: true, signal });
}

function mirrorIdentity(db: Db): string {
  const id = db.prepare('SELECT mirror_id FROM mirror_identity WHERE id = 1').pluck().get() as string | undefined;
  if (id === undefined) throw new Error('the mirror has no identity row (migration 009); open it with this version once to migrate it.');
  return id;
}

function recordDeltaTable(db: Db, table: string, location: string, result: { version: number; files: number; bytes: number; rows: number; lastCommitAt: number | null }): void {
  db.prepare(
    `INSERT INTO delta_tables (table_name, location, version, files, bytes, rows, committed_at, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (table_name, location) DO UPDATE SET version = excluded.version, files = excluded.files, bytes = excluded.bytes, rows = excluded.rows,
       committed_at = excluded.committed_at, checked_at = excluded.checked_at`,
  ).run(table, location, result.version, result.files, result.bytes, result.rows, result.lastCommitAt === null ? null : new Date(result.lastCommitAt).toISOString(), new Date().toISOString());
}
