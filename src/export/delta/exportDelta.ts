import type { Config } from '../../config.js';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { acquireLock, type HeldLock } from '../../runtime/lock.js';
import { toolVersion } from '../../version.js';
import { invalidValuesInManifest } from '../invalidValues.js';
import type { ManifestDeltaTable } from '../manifest.js';
import type { TableSchema } from '../schema.js';
import type { Snapshot } from '../snapshot.js';
import { isRunLive } from '../runLock.js';
import { inspectTarget, type TargetContents } from './logReader.js';
import type { DeltaStore } from './store.js';
import { writeDeltaTable, type TableWriteResult } from './writeTable.js';

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
    // The write queue is operational state, not data for analysts: it has no Delta table.
    if (schema.kind === 'queue') continue;
    for (const group of await placesByState(options.places, schema.table)) {
      options.signal?.throwIfAborted();
      const result = await writeDeltaTable({
        snapshot,
        schema,
        stores: group.members.map((member) => member.store),
        found: group.found,
        mirrorId,
        changeSeq: snapshot.changeSeq,
        runId: options.runId,
        tool,
        rowGroupSize: config.export.parquetRowGroupSize,
        retainDays: config.export.delta.retainDays,
        logRetainDays: config.export.delta.logRetainDays,
        recordedChangeSeq: () => recordedChangeSeq(db, schema.table),
        notePending: (location, changeSeq) => notePending(db, schema.table, location, changeSeq),
        isRunLive: (runId) => isRunLive(db, runId),
        logger,
        signal: options.signal,
      });
      for (const { place, store } of group.members) {
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
          ...invalidValuesInManifest(result.invalid),
        });
      }
    }
  }
  const tableOrder = options.schemas.map((schema) => schema.table);
  return reports.sort((a, b) => placeOrder(options.places, a.where) - placeOrder(options.places, b.where) || tableOrder.indexOf(a.table) - tableOrder.indexOf(b.table));
}

interface PlaceGroup {
  found: TargetContents;
  members: Array<{ place: DeltaPlace; store: DeltaStore }>;
}

/**
 * The places of one table grouped by the state they hold: places in the same state (the usual case: the
 * folder and the bucket were written together) share one plan and one encoding of every data file. A
 * place left behind (a publication that failed) gets its own plan from its own state.
 */
async function placesByState(places: readonly DeltaPlace[], table: string): Promise<PlaceGroup[]> {
  const groups = new Map<string, PlaceGroup>();
  for (const place of places) {
    const store = place.storeFor(table);
    const found = await inspectTarget(store);
    const key = stateKey(found);
    const group = groups.get(key);
    if (group) group.members.push({ place, store });
    else groups.set(key, { found, members: [{ place, store }] });
  }
  return [...groups.values()];
}

/** Equal for two places only when a plan made from one holds for the other. A place holding something else is alone. */
function stateKey(found: TargetContents): string {
  if (found.kind === 'empty') return 'empty';
  if (found.kind === 'not-delta') return `not-delta:${randomUUID()}`;
  const { state } = found;
  const txns = [...state.txns.values()].map((txn) => `${txn.appId}=${txn.version}`).sort();
  const configuration = Object.entries(state.metadata.configuration).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([state.version, state.metadata.id, state.metadata.schemaString, configuration, state.protocol, txns, [...state.files.keys()].sort()]);
}

function placeOrder(places: readonly DeltaPlace[], where: DeltaPlace['where']): number {
  return places.findIndex((place) => place.where === where);
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

function recordDeltaTable(db: Db, table: string, location: string, result: TableWriteResult): void {
  db.prepare(
    `INSERT INTO delta_tables (table_name, location, version, files, bytes, rows, mirror_change_seq, pending_change_seq, committed_at, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
     ON CONFLICT (table_name, location) DO UPDATE SET version = excluded.version, files = excluded.files, bytes = excluded.bytes, rows = excluded.rows,
       mirror_change_seq = excluded.mirror_change_seq, pending_change_seq = NULL, committed_at = excluded.committed_at, checked_at = excluded.checked_at`,
  ).run(table, location, result.version, result.files, result.bytes, result.rows, result.reflectedChangeSeq, result.lastCommitAt === null ? null : new Date(result.lastCommitAt).toISOString(), new Date().toISOString());
}

/**
 * The highest change counter any place of `table` was recorded to reflect, or a commit was about to name.
 * Any place: a copied or moved export folder is still this mirror's table.
 */
function recordedChangeSeq(db: Db, table: string): number | null {
  const value = db.prepare('SELECT max(max(coalesce(mirror_change_seq, -1), coalesce(pending_change_seq, -1))) FROM delta_tables WHERE table_name = ?').pluck().get(table) as number | null;
  return value === null || value < 0 ? null : value;
}

function notePending(db: Db, table: string, location: string, changeSeq: number): void {
  db.prepare(
    `INSERT INTO delta_tables (table_name, location, version, files, bytes, rows, mirror_change_seq, pending_change_seq, committed_at, checked_at) VALUES (?, ?, -1, 0, 0, 0, NULL, ?, NULL, ?)
     ON CONFLICT (table_name, location) DO UPDATE SET pending_change_seq = excluded.pending_change_seq`,
  ).run(table, location, changeSeq, new Date().toISOString());
}
