import { setImmediate as turn } from 'node:timers/promises';
import { Field, RecordBatch, Schema, Struct, Table, makeData, tableToIPC } from 'apache-arrow';
import { buildColumn, pieceKind, type ParquetColumn } from './arrowColumns.js';
import { cellText, type BatchColumn, type ColumnBatch } from './columnBatches.js';
import type { ByteSink } from '../bucket/byteSink.js';
import { addInvalidValues, type InvalidValues } from './invalidValues.js';
import { startEncoderThread, type EncoderThread } from './parquetThread.js';
import { compileParquetWasm } from './wasm.js';

export interface ParquetOptions {
  rowGroupSize: number;
  /** Written into the file footer's created_by. */
  createdBy: string;
  /**
   * An encoding thread to write on (encoderFor), which outlives the file: a table of many files pays a
   * thread's start (some 80 ms of CPU) once, not per file. Without one, the file gets a thread of its own.
   */
  encoder?: EncoderThread;
}

export interface ParquetResult {
  rows: number;
  /** Column → values present in the mirror but not representable in the column's type, written as null. */
  invalid: Record<string, InvalidValues>;
}

/**
 * Rows per batch read out of SQLite: the writer fills a row group from several, so this thread holds
 * only this many. Each batch is copied several times on its way (SQLite's aggregate, the Arrow
 * columns, the IPC message, the encoder's memory): 4,096 transactions (about 3 MB of JSON) instead
 * of 8,192 cut a one-shot export of the `medium` mirror's five tables from 332 to 278 MB of peak
 * memory, and encoded 1,000,000 rows as fast (2.45-2.54 s against 2.44-2.46); 2,048 was 7-14% slower.
 */
export const BATCH_ROWS = 4096;

/** What the batch reader must fetch for each column of the plan. */
export function batchColumns(columns: readonly ParquetColumn[]): BatchColumn[] {
  return columns.map(({ name, storage }) => ({ name, read: pieceKind(storage) }));
}

/**
 * Streams column batches into one Parquet file (zstd), one row group per `rowGroupSize` rows. This
 * thread turns each batch into an Arrow record batch and moves it to an encoding thread, whose
 * output is written to the sink as it comes: reading SQLite here overlaps encoding and compressing
 * there. A couple of batches wait between the two, and the writer holds one row group, so memory
 * stays flat whatever the table size.
 */
export async function writeParquet(batches: Iterable<ColumnBatch>, columns: readonly ParquetColumn[], sink: ByteSink, options: ParquetOptions, signal?: AbortSignal): Promise<ParquetResult> {
  const fields = columns.map(({ name, arrow }) => new Field(name, arrow, true));
  const schema = new Schema(fields);
  const structType = new Struct(fields);
  const encoder = options.encoder ?? (await encoderFor(columns, options, sink));
  if (options.encoder) encoder.beginFile(sink);
  const invalid: Record<string, InvalidValues> = {};
  const idColumn = columns.findIndex((column) => column.name === 'id');
  let rows = 0;
  let sent = 0;
  const iterator = batches[Symbol.iterator]();
  const onAbort = (): void => encoder.abort(signal?.reason instanceof Error ? signal.reason : new Error('the export was stopped'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      // Reading a batch is synchronous: give the event loop a turn each time, so timers (lock
      // heartbeats, schedules) and stop signals run.
      await turn();
      signal?.throwIfAborted();
      const next = iterator.next();
      // An empty table still gets one (empty) batch, since the writer takes the file's schema from the first.
      if (next.done && sent > 0) break;
      const batch = next.done ? emptyBatch(columns) : next.value;
      const children = batch.columns.map((piece, i) => {
        const built = buildColumn(columns[i], piece);
        if (built.firstInvalid !== null) {
          const first = { id: idColumn < 0 ? null : cellText(batch.columns[idColumn], built.firstInvalid), value: cellText(piece, built.firstInvalid) ?? '' };
          addInvalidValues(invalid, { [columns[i].name]: { count: built.invalid, first } });
        }
        return built.data;
      });
      rows += batch.length;
      sent += 1;
      // Arrow IPC is the hand-over format parquet-wasm reads; it also makes the batch one buffer to move.
      await encoder.send(tableToIPC(new Table([new RecordBatch(schema, makeData({ type: structType, length: batch.length, nullCount: 0, children }))]), 'stream'));
    }
    await encoder.finish();
    signal?.throwIfAborted();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Ends the SQLite statement even when writing stopped early, so the snapshot's connection is free again.
    iterator.return?.();
    if (!options.encoder) await encoder.stop();
  }
  return { rows, invalid };
}

/** A thread that encodes files of these columns, one after another, each into the sink it begins with (the first into `sink`). */
export async function encoderFor(columns: readonly ParquetColumn[], options: Pick<ParquetOptions, 'rowGroupSize' | 'createdBy'>, sink: ByteSink | null = null): Promise<EncoderThread> {
  // Min and max of JSON text prune nothing, and comparing long strings costs some 5% of the encoding.
  const withoutStatistics = columns.filter((column) => column.type === 'json').map((column) => column.name);
  const wasmModule = await compileParquetWasm();
  const encoder = startEncoderThread({ rowGroupSize: options.rowGroupSize, createdBy: options.createdBy, withoutStatistics, wasmModule }, sink);
  return encoder;
}

function emptyBatch(columns: readonly ParquetColumn[]): ColumnBatch {
  return {
    length: 0,
    columns: columns.map(({ storage }) => (pieceKind(storage) === 'text' ? { kind: 'text', bytes: new Uint8Array(0), lengths: [] } : { kind: 'values', values: [] })),
  };
}
