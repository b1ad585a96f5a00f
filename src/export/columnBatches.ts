import { isUtf8 } from 'node:buffer';
import type { Db } from '../db/open.js';

/** A value as SQLite's JSON functions render it, read back with JSON.parse. */
export type JsonCell = string | number | null;

/**
 * One column of a batch. `values` holds each value as a JS value; `text` holds the values' UTF-8
 * bytes end to end, with each value's byte length (null for NULL), which is Arrow's own layout for
 * strings, so no value ever becomes a JS string.
 */
export type ColumnPiece = { kind: 'values'; values: JsonCell[] } | { kind: 'text'; bytes: Uint8Array; lengths: Array<number | null> };

export interface ColumnBatch {
  length: number;
  columns: ColumnPiece[];
  /** The rowids of the batch's first and last rows (rows come in rowid order). */
  firstRowid?: bigint;
  lastRowid?: bigint;
}

/** One cell of a piece as text (a value as SQLite's JSON rendered it), null for NULL: for messages, not for the hot path. */
export function cellText(piece: ColumnPiece, row: number): string | null {
  if (piece.kind === 'values') {
    const value = piece.values[row];
    return value === null ? null : String(value);
  }
  const length = piece.lengths[row];
  if (length === null) return null;
  let offset = 0;
  for (let i = 0; i < row; i += 1) offset += piece.lengths[i] ?? 0;
  return Buffer.from(piece.bytes.buffer, piece.bytes.byteOffset + offset, length).toString('utf8');
}

/** A slice of a table by rowid, inclusive, with an SQL condition every row must meet (a Delta table's live rows). */
export interface RowidRange {
  from: bigint;
  to: bigint;
  where: string;
}

export interface BatchColumn {
  name: string;
  read: ColumnPiece['kind'];
}

/**
 * Reads a table in rowid order, `batchRows` rows at a time, one aggregate per column: SQLite hands
 * over a whole column of a batch as one JSON array or one byte string. Crossing into JavaScript once
 * per column instead of once per value is what makes this several times faster than row iteration.
 * All aggregates of a query consume the same rows in the same order, so the columns stay aligned.
 */
export function* readColumnBatches(db: Db, table: string, columns: readonly BatchColumn[], afterChangeSeq: number | null, batchRows: number, range?: RowidRange): Generator<ColumnBatch> {
  const aggregates = columns.map(({ name, read }) => (read === 'text' ? `CAST(group_concat("${name}", '') AS BLOB), json_group_array(octet_length("${name}"))` : `json_group_array("${name}")`));
  for (const { length, cells, first, last } of readRowidBatches(db, table, aggregates.join(', '), afterChangeSeq, batchRows, range)) {
    yield { length, columns: pieces(table, columns, cells, length), firstRowid: first, lastRowid: last };
  }
}

/**
 * The rows of a table in rowid order, `batchRows` at a time, each batch reduced by the aggregate
 * `selectList` to one row of cells. Each batch is two queries: the first finds the batch's last
 * rowid, the second aggregates the rows up to it. Both run on the caller's connection, so inside its
 * read transaction. NOT INDEXED keeps the aggregates' order the rowid order even when `_change_seq`
 * has an index.
 */
export function* readRowidBatches(
  db: Db,
  table: string,
  selectList: string,
  afterChangeSeq: number | null,
  batchRows: number,
  range?: RowidRange,
): Generator<{ length: number; cells: unknown[]; first: bigint; last: bigint }> {
  const changed = (afterChangeSeq === null ? '' : ' AND _change_seq > @since') + (range ? ' AND rowid <= @to' : '');
  // Rowids are 64-bit: read as BigInt, so a batch ends exactly where the next one starts. The boundary
  // reads rowids only; a range's condition needs the rows' columns, so the batch query applies it and counts.
  const boundary = db
    .prepare(`SELECT min(r) AS first, max(r) AS last, count(*) AS n FROM (SELECT rowid AS r FROM "${table}" WHERE rowid >= @from${changed} ORDER BY rowid LIMIT @limit)`)
    .safeIntegers(true);
  const batch = db
    .prepare(`SELECT ${range ? 'count(*), ' : ''}${selectList} FROM "${table}" NOT INDEXED WHERE rowid >= @from AND rowid <= @last${changed}${range ? ` AND (${range.where})` : ''}`)
    .raw(true);
  const since = { ...(afterChangeSeq === null ? {} : { since: afterChangeSeq }), ...(range ? { to: range.to } : {}) };

  let from = range?.from ?? MIN_ROWID;
  let limit = batchRows;
  for (;;) {
    const bound = boundary.get({ from, limit, ...since }) as { first: bigint | null; last: bigint | null; n: bigint };
    if (bound.last === null || bound.first === null) return;
    let cells: unknown[];
    try {
      cells = batch.get({ from, last: bound.last, ...since }) as unknown[];
    } catch (error) {
      // One aggregate may exceed SQLite's 1 GB value limit when the rows are huge: fewer rows per batch.
      if (isTooBig(error) && limit > 1) {
        limit = Math.max(1, Math.floor(limit / 2));
        continue;
      }
      throw error;
    }
    const length = range ? Number(cells[0]) : Number(bound.n);
    if (length > 0) yield { length, cells: range ? cells.slice(1) : cells, first: bound.first, last: bound.last };
    if (bound.last === MAX_ROWID) return;
    from = bound.last + 1n;
    limit = batchRows;
  }
}

export const MIN_ROWID = -(2n ** 63n);
export const MAX_ROWID = 2n ** 63n - 1n;

function pieces(table: string, columns: readonly BatchColumn[], cells: unknown[], length: number): ColumnPiece[] {
  let cell = 0;
  return columns.map(({ name, read }) => {
    if (read === 'values') {
      const values = JSON.parse(cells[cell++] as string) as JsonCell[];
      if (values.length !== length) throw new Error(`reading ${table}.${name}: ${values.length} values in a batch of ${length} rows; the batch is inconsistent.`);
      return { kind: 'values', values };
    }
    const blob = cells[cell++] as Uint8Array | null;
    const bytes = blob ?? new Uint8Array(0);
    const lengths = JSON.parse(cells[cell++] as string) as Array<number | null>;
    let total = 0;
    for (const byteLength of lengths) total += byteLength ?? 0;
    // Both aggregates render values the same way; a mismatch would shift every later value of the batch.
    if (lengths.length !== length || total !== bytes.length) throw new Error(`reading ${table}.${name}: ${bytes.length} bytes for values of ${total} bytes in all; the batch is inconsistent.`);
    return isUtf8(bytes) ? { kind: 'text', bytes, lengths } : { kind: 'text', ...asUtf8(bytes, lengths) };
  });
}

/**
 * SQLite does not check that TEXT is UTF-8, and a JS string holding half of a surrogate pair (which
 * JSON can carry) is stored as bytes that are not. Arrow strings must be valid UTF-8: each value is
 * decoded with U+FFFD for what is broken, as reading it as a JS string would, and encoded again.
 */
function asUtf8(bytes: Uint8Array, lengths: ReadonlyArray<number | null>): { bytes: Uint8Array; lengths: Array<number | null> } {
  const decoder = new TextDecoder();
  const parts: Buffer[] = [];
  let offset = 0;
  const fixed = lengths.map((length) => {
    if (length === null) return null;
    const part = Buffer.from(decoder.decode(bytes.subarray(offset, offset + length)), 'utf8');
    offset += length;
    parts.push(part);
    return part.length;
  });
  return { bytes: Buffer.concat(parts), lengths: fixed };
}

function isTooBig(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_TOOBIG';
}
