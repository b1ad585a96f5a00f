import { randomBytes } from 'node:crypto';
import type { ParquetColumn } from '../arrowColumns.js';
import type { ColumnBatch } from '../columnBatches.js';
import { addInvalidValues, type InvalidValues } from '../invalidValues.js';
import type { EncoderThread } from '../parquetThread.js';
import { BATCH_ROWS, batchColumns, encoderFor, writeParquet } from '../parquetWriter.js';
import { parquetCreatedBy } from '../../version.js';
import type { AddFile } from './actions.js';
import type { RowidSlice } from './plan.js';
import { FileStatsCollector } from './stats.js';
import type { DataFileSink, DeltaStore } from './store.js';
import type { TableWriteContext } from './writeTable.js';

/** The tags of an add that name the range of mirror rowids its file covers (see plan.ts). */
export const ROWID_MIN_TAG = 'loyalty_sync.rowid_min';
export const ROWID_MAX_TAG = 'loyalty_sync.rowid_max';

/**
 * Rows per data file. Orders and activities change mostly near their newest ids (refunds, approvals),
 * and customer_points_daily's updates write the rows of the newest days, which sit at its newest rowids:
 * small files there keep a day's rewrite to the newest file or two (16,384 orders are about 2 MB).
 * Transactions never change, and customers' changes are spread over every id, so every customer file is
 * rewritten whatever its size: both take large files, fewer to list and open.
 */
const FILE_ROWS: Record<string, number> = { orders: 16_384, activities: 16_384, customer_points_daily: 16_384 };
const LARGE_FILE_ROWS = 131_072;

export function fileRowsFor(table: string): number {
  return FILE_ROWS[table] ?? LARGE_FILE_ROWS;
}

/** The files a commit adds, and the values they hold as NULL because their column's type cannot hold them. */
export interface WrittenSlices {
  adds: AddFile[];
  invalid: Record<string, InvalidValues>;
}

interface WrittenFile {
  add: AddFile;
  invalid: Record<string, InvalidValues>;
}

/** Writes every live row of the slices into new files of at most fileRowsFor(table) rows, in rowid order. */
export async function writeSlices(context: TableWriteContext, columns: ParquetColumn[], slices: readonly RowidSlice[], where: string): Promise<WrittenSlices> {
  const files: Array<Promise<WrittenFile>> = [];
  const batchRows = Math.min(BATCH_ROWS, context.rowGroupSize);
  // Two encoding threads, taking files in turn: one finishes a file while the other starts the next.
  const encoders: EncoderThread[] = [];
  const encoderOf = async (index: number): Promise<EncoderThread> => (encoders[index % 2] ??= await encoderFor(columns, { rowGroupSize: context.rowGroupSize, createdBy: parquetCreatedBy() }));
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
    const written = await Promise.all(files);
    const invalid: Record<string, InvalidValues> = {};
    for (const file of written) addInvalidValues(invalid, file.invalid);
    return { adds: written.map((file) => file.add), invalid };
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
  done: Promise<WrittenFile>;
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
  const done = (async (): Promise<WrittenFile> => {
    const sink = await teeDataFile(context.stores, path, context.signal);
    try {
      const { invalid } = await writeParquet({ [Symbol.iterator]: batches }, columns, sink, { rowGroupSize: context.rowGroupSize, createdBy: parquetCreatedBy(), encoder }, context.signal);
      const { bytes } = await sink.finish();
      if (first === null || last === null) throw new Error(`the batches of ${path} carry no rowids`);
      const add: AddFile = {
        path,
        partitionValues: {},
        size: bytes,
        modificationTime: Date.now(),
        dataChange: true,
        stats: JSON.stringify(collector.stats()),
        tags: { [ROWID_MIN_TAG]: String(first), [ROWID_MAX_TAG]: String(last) },
      };
      return { add, invalid };
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
