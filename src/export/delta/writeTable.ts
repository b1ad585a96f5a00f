import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { ParquetColumn } from '../arrowColumns.js';
import type { ColumnBatch } from '../columnBatches.js';
import { BATCH_ROWS, batchColumns, encoderFor, writeParquet } from '../parquetWriter.js';
import type { EncoderThread } from '../parquetThread.js';
import type { TableSchema } from '../schema.js';
import type { Snapshot } from '../snapshot.js';
import { commitPath, parseCommit, PROTOCOL, serializeCommit, type Action, type AddFile, type Metadata, type RemoveFile, type TableState } from './actions.js';
import { shouldCheckpoint, writeCheckpoint } from './checkpoint.js';
import { inspectTarget, type TargetContents } from './logReader.js';
import { fullRewrite, planIncremental, type PlanOptions, type PlannedFile, type RowidSlice, type WritePlan } from './plan.js';
import { replay } from './replay.js';
import { FileStatsCollector } from './stats.js';
import type { DataFileSink, DeltaStore } from './store.js';
import { appIdFor, compareSchemas, deltaColumns, schemaString, tableIdFor } from './tableSchema.js';
import { LOG_RETAIN_MS, vacuum } from './vacuum.js';

/**
 * Rows per data file. Orders and activities change mostly near their newest ids (refunds, approvals):
 * small files there keep a day's rewrite to the newest file or two (16,384 orders are about 2 MB).
 * Transactions never change, and customers' changes are spread over every id, so every customer file is
 * rewritten whatever its size: both take large files, fewer to list and open.
 */
const FILE_ROWS: Record<string, number> = { orders: 16_384, activities: 16_384 };
const LARGE_FILE_ROWS = 131_072;

export function fileRowsFor(table: string): number {
  return FILE_ROWS[table] ?? LARGE_FILE_ROWS;
}

/** Files under a quarter of the size are small; more than 8 of them, side by side, are merged. */
function planOptions(table: string): PlanOptions {
  return { smallFileRows: fileRowsFor(table) / 4, maxSmallFiles: 8 };
}
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
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
  /**
   * The places that hold this table in the same state (the export folder and the bucket, usually): each
   * data file is written to all of them at once, and each gets the commit. The first names the table in messages.
   */
  stores: readonly DeltaStore[];
  /** What the places hold, inspected by the caller (who grouped places by it); read from the first place when absent. */
  found?: TargetContents;
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
  const { stores, schema, snapshot, logger } = context;
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
      plan = planIncremental(files as PlannedFile[], changedRowids(snapshot, table, reflected), planOptions(table));
    }
  }

  if (state !== null && metadata === null && plan.slices.length === 0 && plan.remove.length === 0) {
    for (const place of stores) await afterCommit(context, place, state, now());
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
  const next = replay(state, [{ version, actions }]);
  for (const place of stores) {
    await commit(place, version, actions, commitId);
    logger.info({ table, version, added: adds.length, removed: removes.length, rowsAdded, rowsRemoved }, `committed version ${version} of Delta table ${place.location}`);
  }
  for (const place of stores) await afterCommit(context, place, next, now());
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
async function afterCommit(context: TableWriteContext, store: DeltaStore, state: TableState, nowMs: number): Promise<void> {
  const { logger } = context;
  if (shouldCheckpoint(state.version)) {
    await writeCheckpoint(store, state, nowMs, context.retainDays * DAY_MS).catch((error: unknown) => logger.warn({ err: error, table: context.schema.table }, `could not write the checkpoint of ${store.location}; readers replay the JSON commits instead`));
  }
  const retainMs = context.retainDays * DAY_MS;
  const vacuumed = vacuum(store, state, nowMs, { retainMs, logRetainMs: LOG_RETAIN_MS }).then(async () => {
    // Uploads of runs killed midway hold storage until aborted; an hour spares one still running elsewhere.
    await store.abortUploadsBegunBefore?.(nowMs - Math.max(retainMs, HOUR_MS));
  });
  await vacuumed.catch((error: unknown) => logger.warn({ err: error, table: context.schema.table }, `could not vacuum ${store.location}; the next export tries again`));
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

/** Writes every live row of the slices into new files of at most fileRowsFor(table) rows, in rowid order. */
async function writeSlices(context: TableWriteContext, columns: ParquetColumn[], slices: readonly RowidSlice[], where: string): Promise<AddFile[]> {
  const files: Array<Promise<AddFile>> = [];
  const batchRows = Math.min(BATCH_ROWS, context.rowGroupSize);
  // Two encoding threads, taking files in turn: one finishes a file while the other starts the next.
  const encoders: EncoderThread[] = [];
  const encoderOf = async (index: number): Promise<EncoderThread> => (encoders[index % 2] ??= await encoderFor(columns, { rowGroupSize: context.rowGroupSize, createdBy: context.tool }));
  try {
    for (const slice of slices) {
      const batches = context.snapshot.columnBatches(context.schema.table, batchColumns(columns), null, batchRows, { from: slice.from, to: slice.to, where });
      const source = new PeekableBatches(batches);
      try {
        while (source.peek() !== null) {
          context.signal?.throwIfAborted();
          const file = startDataFile(context, columns, source, files.length, await encoderOf(files.length));
          files.push(file.done);
          // The next file reads on as soon as this one has its rows, while this one's encoder finishes the
          // last row group and the file is made durable: files overlap instead of draining one by one.
          await Promise.race([file.rowsTaken, file.done]);
          // At most two files at once: the one before this must be done.
          if (files.length >= 2) await files[files.length - 2];
        }
      } finally {
        source.close();
      }
    }
    return await Promise.all(files);
  } catch (error) {
    await Promise.allSettled(files);
    throw error;
  } finally {
    await Promise.all(encoders.map((encoder) => encoder.stop()));
  }
}

interface StartedFile {
  /** Resolves once the file has taken its last batch from the source. */
  rowsTaken: Promise<void>;
  /** Resolves with the file's add once it is whole under its final name in every place. */
  done: Promise<AddFile>;
}

function startDataFile(context: TableWriteContext, columns: ParquetColumn[], source: PeekableBatches, index: number, encoder: EncoderThread): StartedFile {
  const path = `part-${context.runId}-${String(index).padStart(5, '0')}-${randomBytes(4).toString('hex')}.parquet`;
  const collector = new FileStatsCollector(columns);
  const fileRows = fileRowsFor(context.schema.table);
  let first: bigint | null = null;
  let last: bigint | null = null;
  let rowsTaken = (): void => undefined;
  const taken = new Promise<void>((resolve) => (rowsTaken = resolve));
  const batches = function* (): Generator<ColumnBatch> {
    try {
      for (let batch = source.peek(); batch !== null && collector.numRecords < fileRows; batch = source.peek()) {
        source.take();
        collector.observe(batch);
        first ??= batch.firstRowid ?? null;
        last = batch.lastRowid ?? last;
        yield batch;
      }
    } finally {
      rowsTaken();
    }
  };
  const done = (async (): Promise<AddFile> => {
    const sink = await teeDataFile(context.stores, path, context.signal);
    try {
      await writeParquet({ [Symbol.iterator]: batches }, columns, sink, { rowGroupSize: context.rowGroupSize, createdBy: context.tool, encoder }, context.signal);
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
    } finally {
      rowsTaken();
    }
  })();
  // Awaited later (Promise.all); marked handled now, so a failure while another file runs is no unhandled rejection.
  done.catch(() => undefined);
  return { rowsTaken: taken, done };
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

/** One data file written to every place at once: the rows are read and encoded once, whatever the number of places. */
async function teeDataFile(stores: readonly DeltaStore[], path: string, signal?: AbortSignal): Promise<DataFileSink> {
  const sinks: DataFileSink[] = [];
  try {
    for (const store of stores) sinks.push(await store.createDataFile(path, signal));
  } catch (error) {
    await Promise.all(sinks.map((sink) => sink.abort()));
    throw error;
  }
  if (sinks.length === 1) return sinks[0];
  return {
    write: async (chunk) => {
      await Promise.all(sinks.map((sink) => sink.write(chunk)));
    },
    finish: async () => (await Promise.all(sinks.map((sink) => sink.finish())))[0],
    abort: async () => {
      await Promise.all(sinks.map((sink) => sink.abort()));
    },
  };
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
