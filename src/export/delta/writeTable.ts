import { randomUUID } from 'node:crypto';
import { modelRowChanges, TRACKED_MODELS } from '../../ledger/rowChanges.js';
import type { Logger } from '../../log.js';
import { warnInvalidValues, type InvalidValues } from '../invalidValues.js';
import type { TableSchema } from '../schema.js';
import type { Snapshot } from '../snapshot.js';
import { commitPath, parseCommit, PROTOCOL, serializeCommit, type Action, type AddFile, type CommitInfo, type Metadata, type RemoveFile, type TableState } from './actions.js';
import { CHECKPOINT_INTERVAL, shouldCheckpoint, writeCheckpoint } from './checkpoint.js';
import { fileRowsFor, ROWID_MAX_TAG, ROWID_MIN_TAG, writeSlices } from './dataFiles.js';
import { inspectTarget, type TargetContents } from './logReader.js';
import { fullRewrite, planIncremental, type PlanOptions, type PlannedFile, type WritePlan } from './plan.js';
import { replay } from './replay.js';
import type { DeltaStore } from './store.js';
import { appIdFor, columnsWithInvariants, compareSchemas, deltaColumns, schemaString, tableIdFor } from './tableSchema.js';
import { retentionConfiguration, tableRetention } from './retention.js';
import { checkpointVersionsIn, vacuum } from './vacuum.js';

const HOUR_MS = 3_600_000;
const COMMIT_ID = 'loyalty_sync.commitId';

/** Files under a quarter of the size are small; more than 8 of them, side by side, are merged. */
function planOptions(table: string): PlanOptions {
  return { smallFileRows: fileRowsFor(table) / 4, maxSmallFiles: 8 };
}

/** The path holds something this writer must not touch: not a Delta table, another table, or one needing features it lacks. */
export class ForeignTableError extends Error {
  override readonly name = 'ForeignTableError';
}

export interface TableWriteContext {
  snapshot: Snapshot;
  schema: TableSchema;
  /**
   * The places that hold this table in the same state (the export folder and the bucket, usually): each
   * data file is written to all of them at once, and each gets the commit. The first names the table in messages.
   */
  stores: readonly DeltaStore[];
  /** What the places hold, inspected by the caller (who grouped places by it); read from the first place when absent. */
  found?: TargetContents;
  mirrorId: string;
  /**
   * The highest change counter the mirror recorded any place of this table to reflect (or a commit under
   * way to name), or null. A table whose `txn` names a higher one was written from a past this mirror no
   * longer has (it was restored from a backup): its counter now means other changes.
   */
  recordedChangeSeq: () => number | null;
  /** Whether another export run (by id) is still running: vacuum spares the files it has not committed yet. */
  isRunLive: (runId: string) => boolean;
  /** Notes, before a commit to `location`, the change counter it will name (see recordedChangeSeq). */
  notePending: (location: string, changeSeq: number) => void;
  /** The mirror's change counter at the snapshot: the table reflects the mirror up to here after the commit. */
  changeSeq: number;
  runId: string;
  tool: string;
  rowGroupSize: number;
  /** export.delta.retainDays: how long a removed data file is kept, unless the table says otherwise. */
  retainDays: number;
  /** export.delta.logRetainDays: how long JSON commits a checkpoint covers are kept, unless the table says otherwise. */
  logRetainDays: number;
  logger: Logger;
  signal?: AbortSignal;
  now?: () => number;
}

export interface TableWriteResult {
  version: number;
  committed: boolean;
  files: number;
  bytes: number;
  rows: number;
  rowsAdded: number;
  rowsRemoved: number;
  bytesAdded: number;
  /** The mirror change counter the table's `txn` names after the run. */
  reflectedChangeSeq: number;
  /** ms; null for a table whose commits carry no timestamp. */
  lastCommitAt: number | null;
  /** Values of the rows this run's commit added that their column's type cannot hold, written as NULL. */
  invalid: Record<string, InvalidValues>;
}

/**
 * Brings one Delta table in one place up to the snapshot: reads its log, refuses what is not this
 * mirror's table, writes the rows that changed since the version its `txn` names into new files, and
 * commits them as the next version, put only if absent. Then a checkpoint every 10 versions, and vacuum.
 * Nothing changed: no commit. A run stopped at any point leaves the table at its previous version;
 * the files it wrote are orphans that vacuum removes later.
 */
export async function writeDeltaTable(context: TableWriteContext): Promise<TableWriteResult> {
  const { stores, schema, logger } = context;
  const store = stores[0];
  const now = context.now ?? Date.now;
  const table = schema.table;
  const tableId = tableIdFor(context.mirrorId, table);
  const appId = appIdFor(context.mirrorId);
  const columns = deltaColumns(schema.columns);
  const wantedSchema = schemaString(columns);

  const found = context.found ?? (await inspectTarget(store));
  if (found.kind === 'not-delta') {
    throw new ForeignTableError(`${store.location} already holds ${found.example}, which is not a Delta table; the Delta export writes only to an empty folder or its own table there, so move it away or choose another export.dir or prefix.`);
  }
  const state = found.kind === 'delta' ? found.state : null;
  if (state !== null) refuseForeign(state, tableId, store.location);

  const { metadata, plan } = planCommit(context, state, tableId, wantedSchema, now());

  if (state !== null && metadata === null && plan.slices.length === 0 && plan.remove.length === 0) {
    for (const place of stores) await afterCommit(context, place, state, now());
    return summary(state, appId, false, 0, 0, 0);
  }

  const removedAt = now();
  const removes: RemoveFile[] = plan.remove.map((file) => {
    const add = state?.files.get(file.path);
    return { path: file.path, deletionTimestamp: removedAt, dataChange: true, extendedFileMetadata: true, partitionValues: {}, size: add?.size ?? 0 };
  });
  const { adds, invalid } = await writeSlices(context, columns, plan.slices, live(schema));
  const version = state === null ? 0 : state.version + 1;
  const rowsAdded = adds.reduce((sum, add) => sum + recordsOf(add), 0);
  const rowsRemoved = plan.remove.reduce((sum, file) => sum + file.rows, 0);
  const commitId = randomUUID();
  const bytesAdded = adds.reduce((sum, add) => sum + add.size, 0);
  const actions: Action[] = [
    { commitInfo: commitInfo(context, { created: state === null, adds, removes, rowsAdded, rowsRemoved, bytesAdded, commitId, nowMs: now() }) },
    ...(version === 0 ? [{ protocol: PROTOCOL }] : []),
    ...(metadata !== null ? [{ metaData: metadata }] : []),
    { txn: { appId, version: context.changeSeq, lastUpdated: now() } },
    ...removes.map((remove) => ({ remove })),
    ...adds.map((add) => ({ add })),
  ];
  context.signal?.throwIfAborted();
  const next = replay(state, [{ version, actions }]);
  for (const place of stores) {
    context.notePending(place.location, context.changeSeq);
    await commit(place, version, actions, commitId);
    logger.info({ table, version, added: adds.length, removed: removes.length, rowsAdded, rowsRemoved }, `committed version ${version} of Delta table ${place.location}`);
    warnInvalidValues(logger, table, `version ${version} of Delta table ${place.location}`, invalid);
  }
  for (const place of stores) await afterCommit(context, place, next, now());
  return { ...summary(next, appId, true, rowsAdded, rowsRemoved, bytesAdded), invalid };
}

interface CommitFacts {
  created: boolean;
  adds: readonly AddFile[];
  removes: readonly RemoveFile[];
  rowsAdded: number;
  rowsRemoved: number;
  bytesAdded: number;
  commitId: string;
  nowMs: number;
}

/** Provenance as Spark writes it (DESCRIBE HISTORY shows it), plus the run and the commit id a retried commit recognises itself by. */
function commitInfo(context: TableWriteContext, facts: CommitFacts): CommitInfo {
  const appendOnly = facts.removes.length === 0;
  return {
    timestamp: facts.nowMs,
    operation: facts.created ? 'CREATE TABLE AS SELECT' : facts.adds.length === 0 && appendOnly ? 'SET TBLPROPERTIES' : appendOnly ? 'WRITE' : 'MERGE',
    operationParameters: { mode: appendOnly ? 'Append' : 'Overwrite', partitionBy: '[]' },
    isolationLevel: 'Serializable',
    isBlindAppend: appendOnly,
    operationMetrics: {
      numFiles: String(facts.adds.length),
      numOutputRows: String(facts.rowsAdded),
      numOutputBytes: String(facts.bytesAdded),
      numRemovedFiles: String(facts.removes.length),
      numRemovedRows: String(facts.rowsRemoved),
    },
    engineInfo: context.tool.replace(' ', '/'),
    'loyalty_sync.runId': context.runId,
    'loyalty_sync.mirrorChangeSeq': context.changeSeq,
    [COMMIT_ID]: facts.commitId,
  };
}

/**
 * What the next version writes: the rows (planRows), and a metaData action when the table is new, gains
 * columns, or its retention properties should follow the config (see retention.ts).
 */
function planCommit(context: TableWriteContext, state: TableState | null, tableId: string, wantedSchema: string, nowMs: number): { metadata: Metadata | null; plan: WritePlan } {
  if (state === null) {
    const configuration = retentionConfiguration({ 'delta.checkpointInterval': String(CHECKPOINT_INTERVAL) }, context) ?? {};
    return { metadata: newMetadata(tableId, wantedSchema, configuration, nowMs), plan: fullRewrite([]) };
  }
  const { metadata, plan } = planRows(context, state, wantedSchema);
  const base = metadata ?? state.metadata;
  const configuration = retentionConfiguration(base.configuration, context);
  return { metadata: configuration === null ? metadata : { ...base, configuration }, plan };
}

/**
 * The rows the next version writes: everything for a table gaining columns (with the new schema), or
 * one that does not follow this mirror's changes (a restored mirror, files another writer laid out);
 * otherwise only the files that hold rows changed since the version's `txn`, and the gaps new rows fell into.
 */
function planRows(context: TableWriteContext, state: TableState, wantedSchema: string): { metadata: Metadata | null; plan: WritePlan } {
  const { logger, schema } = context;
  const location = context.stores[0].location;
  const everyFile = (): PlannedFile[] => [...state.files.values()].map((add) => plannedFile(add) ?? { path: add.path, from: 0n, to: 0n, rows: recordsOf(add) });
  const schemaChange = compareSchemas(state.metadata.schemaString, wantedSchema);
  if (schemaChange.kind === 'incompatible') throw new ForeignTableError(`${location} is a Delta table whose schema this version cannot continue: ${schemaChange.reason}.`);
  if (schemaChange.kind === 'added') {
    // Files written before the new columns do not hold them: every row is written again.
    logger.info({ table: schema.table, columns: schemaChange.columns }, `Delta table ${location} gains column(s) ${schemaChange.columns.join(', ')}`);
    return { metadata: { ...state.metadata, schemaString: wantedSchema }, plan: fullRewrite(everyFile()) };
  }
  // A model is rebuilt from a day on, so its rows carry no change counter: customer_points_daily's updates note the
  // rowids they wrote (ledger_row_changes); the daily tables, a row a day, are written whole each time.
  if (!schema.tracksChanges && !TRACKED_MODELS.includes(schema.table)) return { metadata: null, plan: fullRewrite(everyFile()) };
  const reflected = state.txns.get(appIdFor(context.mirrorId))?.version;
  const files = [...state.files.values()].map(plannedFile);
  // The mirror must know the table at the version it names: a mirror restored from a backup counts its
  // changes anew from an older value, so rows changed since then would be taken for old news.
  const recorded = context.recordedChangeSeq();
  const known = reflected !== undefined && recorded !== null && reflected <= recorded;
  if (reflected === undefined || reflected > context.changeSeq || !known || files.some((file) => file === null)) {
    logger.info({ table: schema.table }, `Delta table ${location} does not follow this mirror's recorded changes (a restored mirror?); writing it whole`);
    return { metadata: null, plan: fullRewrite(everyFile()) };
  }
  if (schema.tracksChanges) {
    const changed = changedRowids(context.snapshot, schema.table, reflected);
    return { metadata: null, plan: planIncremental(files as PlannedFile[], changed, planOptions(schema.table)) };
  }
  const ranges = modelRowChanges(context.snapshot.db, schema.table, reflected);
  if (ranges === 'every') return { metadata: null, plan: fullRewrite(everyFile()) };
  const slices = ranges.map((range) => ({ from: BigInt(range.first), to: BigInt(range.last) }));
  return { metadata: null, plan: planIncremental(files as PlannedFile[], [], planOptions(schema.table), slices) };
}

/** Puts the commit only if its version is free; a version already there is ours only if it carries our commit id. */
async function commit(store: DeltaStore, version: number, actions: Action[], commitId: string): Promise<void> {
  const path = commitPath(version);
  if (await store.putIfAbsent(path, Buffer.from(serializeCommit(actions)))) return;
  const there = await store.read(path);
  if (there !== null) {
    const existing = parseCommit(version, there.toString('utf8'), `${store.location}/${path}`);
    if (existing.actions.some((action) => 'commitInfo' in action && action.commitInfo[COMMIT_ID] === commitId)) return;
  }
  throw new Error(`another writer committed version ${version} of ${store.location} first; this export's files are left for vacuum, and the next export starts from that version.`);
}

/** Checkpoint and vacuum: housekeeping whose failure leaves the table correct, so it only warns. */
async function afterCommit(context: TableWriteContext, store: DeltaStore, state: TableState, nowMs: number): Promise<void> {
  const { logger } = context;
  const retention = tableRetention(state.metadata.configuration, context, store.location);
  for (const sentence of retention.unreadable) logger.warn({ table: context.schema.table }, sentence);
  // One listing serves both: which checkpoints the log holds, and what vacuum may delete. A checkpoint
  // written meanwhile is missing from it, which only makes vacuum keep more of the log this time. A
  // failed listing writes no checkpoint either: the next export writes the one missed.
  const listing = store.list();
  const entries = await listing.catch(() => null);
  if (entries !== null && checkpointDue(checkpointVersionsIn(entries), state.version)) {
    await writeCheckpoint(store, state, nowMs, retention.fileMs).catch((error: unknown) => logger.warn({ err: error, table: context.schema.table }, `could not write the checkpoint of ${store.location}; readers replay the JSON commits instead`));
  }
  const retainMs = retention.fileMs;
  const vacuumed = listing.then(async (listed) => {
    await vacuum(store, state, nowMs, { retainMs, logRetainMs: retention.logMs, isRunLive: context.isRunLive, entries: listed });
    // Uploads of runs killed midway hold storage until aborted; an hour spares one still running elsewhere.
    await store.abortUploadsBegunBefore?.(nowMs - Math.max(retainMs, HOUR_MS));
  });
  await vacuumed.catch((error: unknown) => logger.warn({ err: error, table: context.schema.table }, `could not vacuum ${store.location}; the next export tries again`));
}

/**
 * Every 10 versions; and one missed (a run killed just after its commit) is written by the next export,
 * not 10 versions later. Never for a version that has one: an export that committed nothing neither
 * encodes the checkpoint again nor touches `_last_checkpoint`.
 */
function checkpointDue(checkpoints: readonly number[], version: number): boolean {
  if (checkpoints.includes(version)) return false;
  if (shouldCheckpoint(version)) return true;
  const newest = Math.max(-1, ...checkpoints);
  return version >= CHECKPOINT_INTERVAL && version - newest >= CHECKPOINT_INTERVAL;
}

function refuseForeign(state: TableState, tableId: string, location: string): void {
  const { protocol, metadata } = state;
  if (protocol.minReaderVersion > PROTOCOL.minReaderVersion || protocol.minWriterVersion > PROTOCOL.minWriterVersion || (protocol.readerFeatures?.length ?? 0) > 0 || (protocol.writerFeatures?.length ?? 0) > 0) {
    throw new ForeignTableError(
      `${location} is a Delta table that needs reader version ${protocol.minReaderVersion} and writer version ${protocol.minWriterVersion}${protocol.writerFeatures?.length ? ` (features ${protocol.writerFeatures.join(', ')})` : ''}; loyalty-sync writes only reader 1 / writer 2 tables and leaves this one alone.`,
    );
  }
  if (metadata.id !== tableId) {
    throw new ForeignTableError(`${location} is another Delta table (id ${metadata.id}), not this mirror's (id ${tableId}); loyalty-sync leaves it alone: move it away or choose another export.dir or prefix.`);
  }
  if (metadata.partitionColumns.length > 0) throw new ForeignTableError(`${location} is partitioned by ${metadata.partitionColumns.join(', ')}; loyalty-sync's tables are not, and it leaves this one alone.`);
  // Writer version 2 must respect both (PROTOCOL.md, "Append-only Tables", "Column Invariants"); this
  // writer removes files whenever rows change, and evaluates no SQL.
  if (metadata.configuration['delta.appendOnly']?.trim().toLowerCase() === 'true') {
    throw new ForeignTableError(
      `${location} was made append-only by another engine (delta.appendOnly=true), and loyalty-sync rewrites and deletes rows, so it commits nothing to it: unset the property (ALTER TABLE … UNSET TBLPROPERTIES ('delta.appendOnly')) or choose another export.dir or prefix.`,
    );
  }
  const guarded = columnsWithInvariants(metadata.schemaString);
  if (guarded.length > 0) {
    throw new ForeignTableError(`${location} has column invariants (delta.invariants on ${guarded.join(', ')}), which loyalty-sync does not enforce, so it commits nothing to it: drop them or choose another export.dir or prefix.`);
  }
}

function newMetadata(id: string, schema: string, configuration: Record<string, string>, nowMs: number): Metadata {
  return { id, name: null, description: null, format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: [], configuration, createdTime: nowMs };
}

/** The rowid range a file covers, from its tags; null for a file this writer did not lay out. */
function plannedFile(add: AddFile): PlannedFile | null {
  const from = add.tags?.[ROWID_MIN_TAG];
  const to = add.tags?.[ROWID_MAX_TAG];
  if (from === undefined || to === undefined || !/^-?\d+$/.test(from) || !/^-?\d+$/.test(to)) return null;
  return { path: add.path, from: BigInt(from), to: BigInt(to), rows: recordsOf(add) };
}

function recordsOf(add: AddFile): number {
  if (typeof add.stats !== 'string') return 0;
  try {
    const records = (JSON.parse(add.stats) as { numRecords?: unknown }).numRecords;
    return typeof records === 'number' ? records : 0;
  } catch {
    return 0;
  }
}

/** The rows a table holds: not removed upstream (verify) and, for a full-walk stream, still on the list; a model's rows all. */
function live(schema: TableSchema): string {
  const has = (name: string): boolean => schema.columns.some((column) => column.name === name);
  const conditions = [...(has('_removed_at') ? ['_removed_at IS NULL'] : []), ...(has('removed_at') ? ['removed_at IS NULL'] : [])];
  return conditions.length > 0 ? conditions.join(' AND ') : '1';
}

function changedRowids(snapshot: Snapshot, table: string, after: number): bigint[] {
  return snapshot.db.prepare(`SELECT rowid FROM "${table}" WHERE _change_seq > ?`).pluck().safeIntegers(true).all(after) as bigint[];
}

function summary(state: TableState, appId: string, committed: boolean, rowsAdded: number, rowsRemoved: number, bytesAdded: number): TableWriteResult {
  let bytes = 0;
  let rows = 0;
  for (const add of state.files.values()) {
    bytes += add.size;
    rows += recordsOf(add);
  }
  const reflectedChangeSeq = state.txns.get(appId)?.version ?? 0;
  return { version: state.version, committed, files: state.files.size, bytes, rows, rowsAdded, rowsRemoved, bytesAdded, reflectedChangeSeq, lastCommitAt: state.lastCommitTimestamp, invalid: {} };
}

