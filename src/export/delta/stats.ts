import type { ColumnBatch, JsonCell } from '../columnBatches.js';
import { integerValue, INVALID, pieceKind, timestampReader, type ParquetColumn } from '../arrowColumns.js';
import { microsToMillis } from '../../isoTimestamp.js';
import type { FileStats } from './actions.js';

/** Engines compare string statistics by their first 32 characters at most; longer ids get no min/max. */
const STRING_STATS_LIMIT = 32;

/** A long (number) or a timestamp (bigint microseconds), null for NULL, INVALID for what the encoder writes as null. */
type StatsReader = (value: JsonCell) => number | bigint | null | typeof INVALID;

interface Tracker {
  name: string;
  index: number;
  kind: 'integer' | 'timestamp' | 'string' | 'nulls';
  read: StatsReader | null;
  min: number | bigint | null;
  max: number | bigint | null;
  minText: Buffer | null;
  maxText: Buffer | null;
  nulls: number;
}

const readLong: StatsReader = (value) => {
  const number = integerValue(value);
  return number === null ? null : Number.isSafeInteger(number) ? number : INVALID;
};

/**
 * The `stats` of one data file, gathered from the batches on their way to the encoder: null counts for
 * every column, min and max for every long and timestamp column and for `id`. A value the encoder writes
 * as null (one that does not parse as its type) counts as null here too, so the stats describe the file.
 */
export class FileStatsCollector {
  private readonly trackers: Tracker[];
  private rows = 0;

  constructor(columns: readonly ParquetColumn[]) {
    this.trackers = columns.map((column, index) => {
      const kind: Tracker['kind'] =
        column.storage === 'int64' ? 'integer' : column.storage === 'timestamp' ? 'timestamp' : column.name === 'id' && pieceKind(column.storage) === 'text' ? 'string' : 'nulls';
      const read = kind === 'integer' ? readLong : kind === 'timestamp' ? timestampReader() : null;
      return { name: column.name, index, kind, read, min: null, max: null, minText: null, maxText: null, nulls: 0 };
    });
  }

  observe(batch: ColumnBatch): void {
    this.rows += batch.length;
    for (const tracker of this.trackers) {
      const piece = batch.columns[tracker.index];
      if (piece.kind === 'values') {
        for (const value of piece.values) {
          if (tracker.read === null) {
            if (value === null) tracker.nulls += 1;
            continue;
          }
          const number = tracker.read(value);
          if (number === null || number === INVALID) {
            tracker.nulls += 1;
            continue;
          }
          if (tracker.min === null || number < tracker.min) tracker.min = number;
          if (tracker.max === null || number > tracker.max) tracker.max = number;
        }
        continue;
      }
      let offset = 0;
      for (const length of piece.lengths) {
        if (length === null) {
          tracker.nulls += 1;
          continue;
        }
        if (tracker.kind === 'string') {
          // Compared as UTF-8 bytes, as Spark and Parquet order strings.
          const text = Buffer.from(piece.bytes.buffer, piece.bytes.byteOffset + offset, length);
          if (tracker.minText === null || Buffer.compare(text, tracker.minText) < 0) tracker.minText = Buffer.from(text);
          if (tracker.maxText === null || Buffer.compare(text, tracker.maxText) > 0) tracker.maxText = Buffer.from(text);
        }
        offset += length;
      }
    }
  }

  get numRecords(): number {
    return this.rows;
  }

  stats(): FileStats {
    const stats: FileStats = { numRecords: this.rows, minValues: {}, maxValues: {}, nullCount: {} };
    for (const tracker of this.trackers) {
      stats.nullCount[tracker.name] = tracker.nulls;
      if (tracker.kind === 'integer' && typeof tracker.min === 'number' && typeof tracker.max === 'number') {
        stats.minValues[tracker.name] = tracker.min;
        stats.maxValues[tracker.name] = tracker.max;
      } else if (tracker.kind === 'timestamp' && typeof tracker.min === 'bigint' && typeof tracker.max === 'bigint') {
        // Stats hold milliseconds, both truncated down as the protocol says: a reader adds the millisecond
        // a maximum may have lost before it compares (Spark, delta-kernel-rs).
        stats.minValues[tracker.name] = new Date(microsToMillis(tracker.min)).toISOString();
        stats.maxValues[tracker.name] = new Date(microsToMillis(tracker.max)).toISOString();
      } else if (tracker.kind === 'string' && tracker.minText !== null && tracker.maxText !== null) {
        const min = tracker.minText.toString('utf8');
        const max = tracker.maxText.toString('utf8');
        if ([...min].length <= STRING_STATS_LIMIT && [...max].length <= STRING_STATS_LIMIT) {
          stats.minValues[tracker.name] = min;
          stats.maxValues[tracker.name] = max;
        }
      }
    }
    return stats;
  }
}
