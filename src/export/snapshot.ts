import Database from 'better-sqlite3';
import { STREAM_NAMES } from '../config.js';
import type { Db } from '../db/open.js';
import { listDrift, type DriftEntry } from '../drift/index.js';
import { isUtf8 } from 'node:buffer';
import { readColumnBatches, readRowidBatches, type BatchColumn, type ColumnBatch, type RowidRange } from './columnBatches.js';
import type { CsvBatch } from './csvWriter.js';

/** One value of a mirror row as better-sqlite3 returns it. */
export type Cell = string | number | bigint | null;

/**
 * A read-only connection holding one read transaction open, so every table and every format of a
 * run sees the same instant of the mirror while syncs keep committing. In WAL mode a reader's
 * snapshot is fixed by its first read, not by BEGIN, hence the read in `open`.
 */
export class Snapshot {
  private constructor(
    readonly db: Db,
    /** The mirror's change counter at the snapshot. */
    readonly changeSeq: number,
  ) {}

  static open(path: string): Snapshot {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      db.exec('BEGIN');
      const changeSeq = db.prepare('SELECT value FROM change_counter WHERE id = 1').pluck().get() as number | undefined;
      return new Snapshot(db, changeSeq ?? 0);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The rows to export in storage order, column by column, `batchRows` rows at a time; only those changed after `afterChangeSeq`, or inside `range`, when given. */
  columnBatches(table: string, columns: readonly BatchColumn[], afterChangeSeq: number | null, batchRows: number, range?: RowidRange): Generator<ColumnBatch> {
    return readColumnBatches(this.db, table, columns, afterChangeSeq, batchRows, range);
  }

  /**
   * The rows to export in storage order, each turned into a line by the SQL `lineExpression`, `batchRows`
   * lines at a time as one UTF-8 byte string. Text SQLite holds that is not valid UTF-8 (half a surrogate
   * pair from JSON) is decoded with U+FFFD, as reading it as a JS string would, so files are always UTF-8.
   * `checks` are SQL aggregates computed over each batch's rows in the same read (`CsvBatch.checks`), so
   * what a file's values allow is learnt without a second pass over the table.
   */
  *csvBatches(table: string, afterChangeSeq: number | null, lineExpression: string, batchRows: number, checks: readonly string[] = []): Generator<CsvBatch> {
    const selectList = [`CAST(group_concat(${lineExpression}, '') AS BLOB)`, ...checks].join(', ');
    for (const { length, cells } of readRowidBatches(this.db, table, selectList, afterChangeSeq, batchRows)) {
      const bytes = cells[0] as Buffer;
      yield { rows: length, bytes: isUtf8(bytes) ? bytes : Buffer.from(new TextDecoder().decode(bytes)), checks: cells.slice(1) };
    }
  }

  /** Non-null values of one column among the rows to export, for choosing its Parquet type before writing. */
  values(table: string, column: string, afterChangeSeq: number | null): IterableIterator<Cell> {
    const since = afterChangeSeq === null ? '' : ' AND _change_seq > ?';
    const statement = this.db.prepare(`SELECT "${column}" FROM "${table}" WHERE "${column}" IS NOT NULL${since}`).pluck();
    return (afterChangeSeq === null ? statement.iterate() : statement.iterate(afterChangeSeq)) as IterableIterator<Cell>;
  }

  rowCount(table: string): number {
    return this.db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
  }

  maxChangeSeq(table: string): number {
    return this.db.prepare(`SELECT coalesce(max(_change_seq), 0) FROM "${table}"`).pluck().get() as number;
  }

  /** Stream → watermark, as sync_state holds them at the snapshot. */
  watermarks(): Record<string, string | null> {
    const rows = this.db.prepare('SELECT stream, watermark FROM sync_state ORDER BY stream').all() as Array<{ stream: string; watermark: string | null }>;
    return Object.fromEntries(rows.map((row) => [row.stream, row.watermark]));
  }

  /** Per stream table among `tables`, the schema drift recorded at the snapshot (an empty list when none). */
  schemaDrift(tables: readonly string[]): Record<string, DriftEntry[]> {
    const streams = STREAM_NAMES.filter((stream) => tables.includes(stream));
    return Object.fromEntries(streams.map((stream) => [stream, listDrift(this.db, stream)]));
  }

  close(): void {
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
