import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { ParquetColumn } from '../arrowColumns.js';
import type { ColumnBatch } from '../columnBatches.js';
import { BATCH_ROWS, batchColumns, writeParquet } from '../parquetWriter.js';
import type { TableSchema } from '../schema.js';
import type { Snapshot } from '../snapshot.js';
import { commitPath, parseCommit, PROTOCOL, serializeCommit, type Action, type AddFile, type Metadata, type RemoveFile, type TableState } from './actions.js';
import { shouldCheckpoint, writeCheckpoint } from './checkpoint.js';
import { inspectTarget } from './logReader.js';
import { fullRewrite, planIncremental, type PlannedFile, type RowidSlice, type WritePlan } from './plan.js';
import { replay } from './replay.js';
import { FileStatsCollector } from './stats.js';
import type { DeltaStore } from './store.js';
import { appIdFor, compareSchemas, deltaColumns, schemaString, tableIdFor } from './tableSchema.js';
import { LOG_RETAIN_MS, vacuum } from './vacuum.js';

/** Rows per data file: 131,072 transactions make a file of about 20 MB, so a day's changes rewrite little. */
export const FILE_ROWS = 131_072;
/** Files under a quarter of that are small; more than 8 of them, side by side, are merged. */
const PLAN_OPTIONS = { smallFileRows: FILE_ROWS / 4, maxSmallFiles: 8 };
const DAY_MS = 86_400_000;
const ROWID_MIN_TAG = 'loyalty_sync.rowid_min';
const ROWID_MAX_TAG = 'loyalty_sync.rowid_max';
const COMMIT_ID = 'loyalty_sync.commitId';

/** The path holds something this writer must not touch: not a Delta table, another table, or one needing features it lacks. */
export class ForeignTableError extends Error {
  override readonly name = 'ForeignTableError';
}

export interface TableWriteContext {
  snapshot: Snapshot;
  schema: TableSchema;
  store: DeltaStore;
  mirrorId: string;
  /** The mirror's change counter at the snapshot: the table reflects the mirror up to here after the commit. */
  changeSeq: number;
  runId: string;
  tool: string;
  rowGroupSize: number;
  retainDays: number;
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
  /** ms; null for a table whose commits carry no timestamp. */
  lastCommitAt: number | null;
}

/**
 * Brings one Delta table in one place up to the snapshot: reads its log, refuses what is not this
 * mirror's table, writes the rows that changed since the version its `txn` names into new files, and
 * commits them as the next version, put only if absent. Then a checkpoint every 10 versions, and vacuum.
 * Nothing changed: no commit. A run stopped at any point leaves the table at its previous version;
 * the files it wrote are orphans that vacuum removes later.
 */
export async function writeDeltaTable(context: TableWriteContext): Promise<TableWriteResult> {
  const { store, schema, snapshot, logger } = context;
  const now = context.now ?? Date.now;
  const table = schema.table;
  const tableId = tableIdFor(context.mirrorId, table);
  const appId = appIdFor(context.mirrorId);
  const columns = deltaColumns(schema.columns);
  const wantedSchema = schemaString(columns);

  const found = await inspectTarget(store);
  if (found.kind === 'not-delta') {
    throw new ForeignTableError(`${store.location} already holds ${found.example}, which is not a Delta table; the Delta export writes only to an empty folder or its own table there, so move it away or choose another export.dir or prefix.`);
  }
  const state = found.kind === 'delta' ? found.state : null;
  if (state !== null) refuseForeign(state, tableId, store.location);

  let metadata: Metadata | null = null;
  let plan: WritePlan;
  const files = state === null ? [] : [...state.files.values()].map(plannedFile);
  if (state === null) {
    metadata = newMetadata(tableId, wantedSchema, now());
    plan = fullRewrite([]);
  } else {
    const schemaChange = compareSchemas(state.metadata.schemaString, wantedSchema);
    if (schemaChange.kind === 'incompatible') throw new ForeignTableError(`${store.location} is a Delta table whose schema this version cannot continue: ${schemaChange.reason}.`);
    const reflected = state.txns.get(appId)?.version;
    const trusted = reflected !== undefined && reflected <= context.changeSeq && files.every((file) => file !== null);
    if (schemaChange.kind === 'added') {
      // Files written before the new columns do not hold them: every row is written again.
      metadata = { ...state.metadata, schemaString: wantedSchema };
      plan = fullRewrite([...state.files.values()].map((add) => plannedFile(add) ?? { path: add.path, from: 0n, to: 0n, rows: recordsOf(add) }));
      logger.info({ table, columns: schemaChange.columns }, `Delta table ${store.location} gains column(s) ${schemaChange.columns.join(', ')}`);
    } else if (!trusted) {
      // The table reflects another past of the mirror (a restored copy) or holds files this writer did not lay out.
      plan = fullRewrite([...state.files.values()].map((add) => plannedFile(add) ?? { path: add.path, from: 0n, to: 0n, rows: recordsOf(add) }));
      logger.info({ table }, `Delta table ${store.location} does not follow this mirror's changes; writing it whole`);
    } else {
      plan = planIncremental(files as PlannedFile[], changedRowids(snapshot, table, reflected), PLAN_OPTIONS);
    }
  }

  if (state !== null && metadata === null && plan.slices.length === 0 && plan.remove.length === 0) {
    await afterCommit(context, state, now());
    return summary(state, false, 0, 0, 0);
  }

  const removedAt = now();
  const removes: RemoveFile[] = plan.remove.map((file) => {
    const add = state?.files.get(file.path);
    return { path: file.path, deletionTimestamp: removedAt, dataChange: true, extendedFileMetadata: true, partitionValues: {}, size: add?.size ?? 0 };
  });
  const adds = await writeSlices(context, columns, plan.slices, live(schema));
  const version = state === null ? 0 : state.version + 1;
  const rowsAdded = adds.reduce((sum, add) => sum + recordsOf(add), 0);
  const rowsRemoved = plan.remove.reduce((sum, file) => sum + file.rows, 0);
  const commitId = randomUUID();
  const actions: Action[] = [
    {
      commitInfo: {
        timestamp: now(),
        operation: state === null ? 'CREATE TABLE AS SELECT' : removes.length === 0 ? 'WRITE' : 'MERGE',
        operationParameters: { mode: removes.length === 0 ? 'Append' : 'Overwrite', partitionBy: '[]' },
        isolationLevel: 'Serializable',
        isBlindAppend: removes.length === 0,
        operationMetrics: {
          numFiles: String(adds.length),
          numOutputRows: String(rowsAdded),
          numOutputBytes: String(adds.reduce((sum, add) => sum + add.size, 0)),
          numRemovedFiles: String(removes.length),
          numRemovedRows: String(rowsRemoved),
        },
        engineInfo: context.tool.replace(' ', '/'),
        'loyalty_sync.runId': context.runId,
        'loyalty_sync.mirrorChangeSeq': context.changeSeq,
        [COMMIT_ID]: commitId,
      },
    },
    ...(version === 0 ? [{ protocol: PROTOCOL }] : []),
    ...(metadata !== null ? [{ metaData: metadata }] : []),
    { txn: { appId, version: context.changeSeq, lastUpdated: now() } },
    ...removes.map((remove) => ({ remove })),
    ...adds.map((add) => ({ add })),
  ];
  context.signal?.throwIfAborted();
  await commit(store, version, actions, commitId);
  const next = replay(state, [{ version, actions }]);
  logger.info({ table, version, added: adds.length, removed: removes.length, rowsAdded, rowsRemoved }, `committed version ${version} of Delta table ${store.location}`);
  await afterCommit(context, next, now());
  return summary(next, true, rowsAdded, rowsRemoved, adds.reduce((sum, add) => sum + add.size, 0));
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
async function afterCommit(context: TableWriteContext, state: TableState, nowMs: number): Promise<void> {
  const { store, logger } = context;
  if (shouldCheckpoint(state.version)) {
    await writeCheckpoint(store, state, nowMs, context.retainDays * DAY_MS).catch((error: unknown) => logger.warn({ err: error, table: context.schema.table }, `could not write the checkpoint of ${store.location}; readers replay the JSON commits instead`));
  }
  await vacuum(store, state, nowMs, { retainMs: context.retainDays * DAY_MS, logRetainMs: LOG_RETAIN_MS }).catch((error: unknown) =>
    logger.warn({ err: error, table: context.schema.table }, `could not vacuum ${store.location}; the next export tries again`),
  );
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
}

function newMetadata(id: string, schema: string, nowMs: number): Metadata {
  return { id, name: null, description: null, format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: [], configuration: { 'delta.checkpointInterval': '10' }, createdTime: nowMs };
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

/** The rows a table holds: not removed upstream (verify) and, for a full-walk stream, still on the list. */
function live(schema: TableSchema): string {
  return schema.columns.some((column) => column.name === 'removed_at') ? '_removed_at IS NULL AND removed_at IS NULL' : '_removed_at IS NULL';
}

function changedRowids(snapshot: Snapshot, table: string, after: number): bigint[] {
  return snapshot.db.prepare(`SELECT rowid FROM "${table}" WHERE _change_seq > ?`).pluck().safeIntegers(true).all(after) as bigint[];
}

/** Writes every live row of the slices into new files of at most FILE_ROWS rows, in rowid order. */
async function writeSlices(context: TableWriteContext, columns: ParquetColumn[], slices: readonly RowidSlice[], where: string): Promise<AddFile[]> {
  const adds: AddFile[] = [];
  const batchRows = Math.min(BATCH_ROWS, context.rowGroupSize);
  for (const slice of slices) {
    const batches = context.snapshot.columnBatches(context.schema.table, batchColumns(columns), null, batchRows, { from: slice.from, to: slice.to, where });
    const source = new PeekableBatches(batches);
    try {
      while (source.peek() !== null) {
        context.signal?.throwIfAborted();
        adds.push(await writeDataFile(context, columns, source, adds.length));
      }
    } finally {
      source.close();
    }
  }
  return adds;
}

async function writeDataFile(context: TableWriteContext, columns: ParquetColumn[], source: PeekableBatches, index: number): Promise<AddFile> {
  const path = `part-${context.runId}-${String(index).padStart(5, '0')}-${randomBytes(4).toString('hex')}.parquet`;
  const collector = new FileStatsCollector(columns);
  let first: bigint | null = null;
  let last: bigint | null = null;
  const batches = function* (): Generator<ColumnBatch> {
    for (let batch = source.peek(); batch !== null && collector.numRecords < FILE_ROWS; batch = source.peek()) {
      source.take();
      collector.observe(batch);
      first ??= batch.firstRowid ?? null;
      last = batch.lastRowid ?? last;
      yield batch;
    }
  };
  const sink = await context.store.createDataFile(path, context.signal);
  try {
    await writeParquet({ [Symbol.iterator]: batches }, columns, sink, { rowGroupSize: context.rowGroupSize, createdBy: context.tool }, context.signal);
    const { bytes } = await sink.finish();
    if (first === null || last === null) throw new Error(`the batches of ${path} carry no rowids`);
    return {
      path,
      partitionValues: {},
      size: bytes,
      modificationTime: Date.now(),
      dataChange: true,
      stats: JSON.stringify(collector.stats()),
      tags: { [ROWID_MIN_TAG]: String(first), [ROWID_MAX_TAG]: String(last) },
    };
  } catch (error) {
    await sink.abort();
    throw error;
  }
}

function summary(state: TableState, committed: boolean, rowsAdded: number, rowsRemoved: number, bytesAdded: number): TableWriteResult {
  let bytes = 0;
  let rows = 0;
  for (const add of state.files.values()) {
    bytes += add.size;
    rows += recordsOf(add);
  }
  return { version: state.version, committed, files: state.files.size, bytes, rows, rowsAdded, rowsRemoved, bytesAdded, lastCommitAt: state.lastCommitTimestamp };
}

/** An iterator one batch can be looked at before it is taken: a file ends where the next batch would overfill it. */
class PeekableBatches {
  private next: ColumnBatch | null | undefined;

  constructor(private readonly iterator: Generator<ColumnBatch>) {}

  peek(): ColumnBatch | null {
    if (this.next === undefined) {
      const step = this.iterator.next();
      this.next = step.done ? null : step.value;
    }
    return this.next;
  }

  take(): void {
    this.next = undefined;
  }

  close(): void {
    this.iterator.return(undefined);
  }
}
