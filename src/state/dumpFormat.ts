/**
 * A dump is the state's unit of storage: zstd-compressed JSON lines. The first line is a header;
 * each further line is one row: `[table, rowid, ...values]` to put a row in place (rowid null for a
 * table shipped whole), `[table, rowid]` to delete one. A base holds every row and the schema; a
 * segment holds the rows changed in a range of epochs, and replays on top of the base in order.
 */
export const DUMP_FORMAT = 'loyalty-sync-state-dump';

export interface DumpHeader {
  format: typeof DUMP_FORMAT;
  version: 1;
  kind: 'base' | 'segment';
  /** The last epoch whose changes it holds. */
  epoch: number;
  /** A segment holds the changes of the epochs after this one. */
  fromEpoch: number | null;
  /** A base's CREATE statements (tables first, then indexes), to build the mirror from nothing. */
  schema: string[] | null;
  /** `whole`: the table has no rowids and travels whole; `replaced`: this dump carries it, and it replaces what the mirror had. */
  tables: Array<{ name: string; columns: string[]; whole: boolean; replaced: boolean }>;
}

/** A row's line: the table's index in the header, then the rowid (null for whole tables), then its values. */
export type DumpLine = [number, number | null, ...DumpValue[]];
export type DumpValue = string | number | null | { $int: string } | { $blob: string };
type SqliteValue = string | number | bigint | Buffer | null;

/** JSON keeps what SQLite holds: integers past 2^53 and blobs get a tagged form. */
export function encodeValue(value: SqliteValue): DumpValue {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : { $int: value.toString() };
  if (Buffer.isBuffer(value)) return { $blob: value.toString('base64') };
  return value;
}

export function decodeValue(value: DumpValue): SqliteValue {
  if (value !== null && typeof value === 'object') return '$int' in value ? BigInt(value.$int) : Buffer.from(value.$blob, 'base64');
  return value;
}

/** Where a dump is kept in the bucket, and what it holds: enough to fetch and check it. */
export interface StoredDump {
  /** Relative to the state's prefix. */
  path: string;
  bytes: number;
  sha256: string;
  rows: number;
  epoch: number;
}

export interface StoredSegment extends StoredDump {
  fromEpoch: number;
  /** 0 for one save's changes; a merge of FANOUT segments of level n is one of level n + 1. */
  level: number;
}
