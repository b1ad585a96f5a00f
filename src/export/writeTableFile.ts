import { join } from 'node:path';
import type { Config, SnapshotFormat } from '../config.js';
import { parquetCreatedBy } from '../version.js';
import { parquetColumns } from './arrowColumns.js';
import { loaderTypesOf, ReadableTimestamps, type CsvLoaderTypes } from './csvLoaderTypes.js';
import { csvLineSql, writeCsv, type CsvBatch } from './csvWriter.js';
import { MODEL_MONEY_MAX_SCALE, MONEY_SCALE, moneyScale } from './decimal.js';
import type { ByteSink } from '../bucket/byteSink.js';
import { FileSink } from './fileSink.js';
import { invalidValuesInManifest, type InvalidValues } from './invalidValues.js';
import { dataFilePath, tmpPathFor } from './layout.js';
import type { ManifestColumn, ManifestFile } from './manifest.js';
import { BATCH_ROWS, batchColumns, writeParquet } from './parquetWriter.js';
import type { TableSchema } from './schema.js';
import type { Snapshot } from './snapshot.js';

/** Lines per read from the mirror: about 1 MB of CSV for transactions (2,048 read faster than 8,192, and hold less). */
const CSV_BATCH_ROWS = 2048;

/** A copy of a file's bytes going elsewhere as they are written (an upload to object storage). */
export interface FileCopy extends ByteSink {
  /** The file is complete: make the copy whole and confirm it. */
  finish(file: { bytes: number; sha256: string }): Promise<void>;
  /** The file failed: drop what the copy holds so far. */
  abort(): Promise<void>;
}

/** A complete data file under its temporary name, with its manifest entry, waiting to be renamed into place. */
export interface PendingFile {
  tmpPath: string;
  finalPath: string;
  entry: ManifestFile;
  /** The copy made while the file was written, still to be finished; null without one. */
  copy: FileCopy | null;
  /** Parquet only: the values written as NULL because the column's type cannot hold them. */
  invalid: Record<string, InvalidValues>;
}

export interface FileContext {
  /** The export root (absolute). */
  root: string;
  runId: string;
  /** The partition date, YYYY-MM-DD. */
  date: string;
  /** Only rows whose _change_seq is above this; null for every row. */
  since: number | null;
  /** The run `since` comes from, for the manifest. */
  sinceRunId: string | null;
  config: Readonly<Config>;
  /** Starts a copy of each file's bytes (its path in the layout), fed as the file is written. */
  copyTo?: (path: string, format: SnapshotFormat) => FileCopy;
  signal?: AbortSignal;
}

/** Writes one table in one format from the snapshot to a temporary file; removes the file if that fails. */
export async function writeTableFile(snapshot: Snapshot, schema: TableSchema, format: SnapshotFormat, context: FileContext): Promise<PendingFile> {
  const path = dataFilePath(schema.table, format, context.runId, context.date);
  const tmpPath = tmpPathFor(context.root, path, context.runId);
  const copy = context.copyTo?.(path, format) ?? null;
  const sink = await FileSink.create(tmpPath, copy);
  try {
    let count: number;
    let columns: ManifestColumn[];
    let invalid: Record<string, InvalidValues> = {};
    let loaderTypes: CsvLoaderTypes | undefined;
    if (format === 'csv') {
      const line = csvLineSql(schema.columns, { formulaGuard: context.config.export.csvFormulaGuard });
      const timestamps = new ReadableTimestamps(schema.columns.filter((column) => column.type === 'timestamp').map((column) => column.name));
      const batches = snapshot.csvBatches(schema.table, context.since, line, CSV_BATCH_ROWS, timestamps.aggregates());
      count = await writeCsv(noting(batches, timestamps), schema.columns, sink, context.signal);
      columns = schema.columns.map(({ name, type }) => ({ name, type }));
      loaderTypes = loaderTypesOf(schema.columns, {
        moneyScale: (column) => columnMoneyScale(snapshot, schema, column, context.since),
        readableTimestamps: timestamps.columns(),
      });
    } else {
      const plan = parquetColumns(schema.columns, (column) => columnMoneyScale(snapshot, schema, column, context.since));
      const { parquetRowGroupSize } = context.config.export;
      const batches = snapshot.columnBatches(schema.table, batchColumns(plan), context.since, Math.min(BATCH_ROWS, parquetRowGroupSize));
      const result = await writeParquet(batches, plan, sink, { rowGroupSize: parquetRowGroupSize, createdBy: parquetCreatedBy() }, context.signal);
      count = result.rows;
      invalid = result.invalid;
      columns = plan.map(({ name, type, physical, logical }) => ({ name, type, parquet: { physical, logical } }));
    }
    const written = await sink.finish();
    const entry: ManifestFile = {
      table: schema.table,
      format,
      path,
      rows: count,
      bytes: written.bytes,
      sha256: written.sha256,
      kind: context.since === null ? 'full' : 'since_last',
      sinceChangeSeq: context.since,
      sinceRunId: context.sinceRunId,
      columns,
      ...invalidValuesInManifest(invalid),
      ...loaderTypes,
    };
    return { tmpPath, finalPath: join(context.root, path), entry, copy, invalid };
  } catch (error) {
    await Promise.all([sink.discard(), copy?.abort()]);
    throw new Error(`writing ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** The batches, each told to `timestamps` as it passes on to the writer. */
function* noting(batches: Iterable<CsvBatch>, timestamps: ReadableTimestamps): Generator<CsvBatch> {
  for (const batch of batches) {
    timestamps.note(batch.checks);
    yield batch;
  }
}

/**
 * The scale of a money column's DECIMAL in this file, null for text (decimal.ts). A stream's amounts are the API's
 * (two places); a model computes its own, whose places follow from the config (liability_end, at a point value of
 * 0.005, has three), so a model's column takes the places its values have.
 */
function columnMoneyScale(snapshot: Snapshot, schema: TableSchema, column: string, since: number | null): number | null {
  return moneyScale(snapshot.values(schema.table, column, since), schema.kind === 'model' ? MODEL_MONEY_MAX_SCALE : MONEY_SCALE);
}
