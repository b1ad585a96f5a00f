import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../../src/db/open.js';
import { nextChangeSeq, type ApiRecord } from '../../../src/db/upsertRecords.js';
import { commitPath, parseCommit } from '../../../src/export/delta/actions.js';
import type { DeltaStore } from '../../../src/export/delta/store.js';
import { tableSchema, type ExportColumn, type ExportColumnType, type ExportTable } from '../../../src/export/schema.js';
import type { EngineTable, EngineValue } from '../../helpers/deltaEngine.js';
import type { DeltaTableContents } from '../../helpers/deltaTable.js';
import { upsert } from '../helpers.js';

/**
 * A row as both sides can show it, as one line (see rowTexts): every column the table holds, `id` first and
 * the rest by name, each value as its type compares. Timestamps are instants (`2026-03-01T12:00:00.000000Z`,
 * whatever offset or form the text had), integers their digits, booleans true/false, money its exact decimal
 * text, text and JSON as they are. Dropping a column from the table, or changing any value, changes the line.
 */
export type ComparableRow = string;

type Value = string | boolean | null;

/** The columns a Delta table of `table` holds: the mirror's export columns, less unsubscribes' last_seen_at (README). */
function tableColumns(db: Db, table: string): ExportColumn[] {
  return tableSchema(db, table as ExportTable).columns.filter((column) => column.name !== 'last_seen_at');
}

/** The columns a Delta table of `table` holds, by name, with the mirror's type of each. */
export function mirrorColumnTypes(db: Db, table: string): Map<string, ExportColumnType> {
  return new Map(tableColumns(db, table).map((column) => [column.name, column.type]));
}

/**
 * The mirror's rows that a Delta table of `table` must hold, ordered by id: those the API still has (not
 * marked by verify) and, for unsubscribes, those still on the list; every column, typed by the mirror's schema.
 */
export function liveMirrorRows(db: Db, table: string): ComparableRow[] {
  const columns = tableColumns(db, table).sort((a, b) => rowOrder(a.name, b.name));
  const names = new Set(columns.map((column) => column.name));
  // A model has no removal marks: every row is live.
  const live = table === 'unsubscribes' ? 't._removed_at IS NULL AND t.removed_at IS NULL' : names.has('_removed_at') ? 't._removed_at IS NULL' : 'TRUE';
  // Integers as SQLite's own text of them, so no 64-bit id or counter is rounded on the way.
  const list = columns.map(({ name, type }) => (type === 'integer' ? `CAST(t."${name}" AS TEXT)` : `t."${name}"`)).join(', ');
  const rows = db.prepare(`SELECT ${list} FROM "${table}" AS t WHERE ${live} ORDER BY ${names.has('id') ? 't.id' : 't.rowid'}`).raw(true).all() as unknown[][];
  const convert = columns.map((column) => MIRROR_VALUE[column.type]);
  return rowTexts(
    columns.map((column) => column.name),
    rows.length,
    (row, column) => convert[column](rows[row][column]),
  );
}

/**
 * The rows of a table read back by readDeltaTable, in the same shape and order: every column the files
 * hold, typed by the table's own schema. A column the table lacks is missing from each row, so they differ.
 */
export function deltaRows(contents: DeltaTableContents): ComparableRow[] {
  const fields = (JSON.parse(contents.state.metadata.schemaString) as { fields: Array<{ name: string; type: unknown }> }).fields;
  const types = new Map(fields.map((field) => [field.name, field.type]));
  // readDeltaTable reads the files by name (union_by_name): every row has every column of any file.
  const names = Object.keys(contents.rows[0] ?? {}).sort(rowOrder);
  const convert = names.map((name) => deltaValue(types.get(name)));
  return rowTexts(names, contents.rows.length, (row, column) => convert[column](contents.rows[row][names[column]]));
}

/**
 * The rows a real engine read (readWithEngine), in the same shape: every column the engine sees, each
 * value by the engine's own type of it. Its DateTime64 columns come as microseconds, written here as the
 * same instant text the mirror's timestamps become; a timestamp the table stored as text would differ.
 */
export function engineRows(table: EngineTable): ComparableRow[] {
  const names = table.columns.map((column) => column.name).sort(rowOrder);
  const convert = names.map((name) => engineValue(table.columns.find((column) => column.name === name)!.type));
  return rowTexts(names, table.rows.length, (row, column) => convert[column](table.rows[row][names[column]]));
}

function engineValue(type: string): (value: EngineValue) => Value {
  const timestamp = /DateTime64/.test(type);
  const double = /Float64/.test(type);
  return (value) => {
    if (value === null || typeof value === 'boolean') return value;
    if (timestamp && typeof value === 'bigint') return microsInstant(value);
    if (double) return String(Number(value));
    return String(value);
  };
}

/** `id` first, the rest by name: the order both sides write a row's columns in. */
function rowOrder(a: string, b: string): number {
  if (a === b) return 0;
  if (a === 'id' || b === 'id') return a === 'id' ? -1 : 1;
  return a < b ? -1 : 1;
}

/** Between columns: a character no value in these tests holds (a row that holds one is refused), so rows compare without escaping. */
const SEPARATOR = '\u241f';

/**
 * Rows as `id=s:1␟_change_seq=s:7␟_removed_at=null␟…`: each column's name, then `s:` and the text, or null,
 * true or false. Each row is one join of its parts, with no escaping of the long `raw` text and one array
 * for every row: comparing tables of 300,000 rows is then dominated by reading them, not by this.
 */
function rowTexts(names: readonly string[], rows: number, valueAt: (row: number, column: number) => Value): ComparableRow[] {
  const heads = names.map((name, index) => (index === 0 ? name : `${SEPARATOR}${name}`));
  const parts = new Array<string>(names.length * 3);
  const texts = new Array<string>(rows);
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < names.length; column += 1) {
      const value = valueAt(row, column);
      parts[3 * column] = heads[column];
      if (typeof value === 'string') {
        if (value.includes(SEPARATOR)) throw new Error(`column ${names[column]} holds ${SEPARATOR}, which these rows use between columns`);
        parts[3 * column + 1] = '=s:';
        parts[3 * column + 2] = value;
      } else {
        parts[3 * column + 1] = value === null ? '=null' : value ? '=true' : '=false';
        parts[3 * column + 2] = '';
      }
    }
    texts[row] = parts.join('');
  }
  return texts;
}

type Convert = (value: unknown) => Value;

const text: Convert = (value) => (value === null || value === undefined ? null : String(value));
const timestamp: Convert = (value) => (value === null || value === undefined ? null : instant(String(value)));

/** The mirror's values by type (as liveMirrorRows selects them): integers as text, booleans 0/1, timestamps ISO text. */
const MIRROR_VALUE: Record<ExportColumnType, Convert> = {
  integer: text,
  date: text,
  // A double as JavaScript's shortest text of it, on both sides: the engine's text of a Float64 may differ in form only.
  real: (value) => (value === null || value === undefined ? null : String(Number(value))),
  boolean: (value) => (value === null ? null : value === 1),
  timestamp,
  decimal: text,
  text,
  json: text,
};

/** DuckDB's JSON-safe values by Delta type: longs and timestamps as text, booleans as booleans. */
function deltaValue(type: unknown): Convert {
  if (type === 'boolean') return (value) => (value === null || value === undefined ? null : typeof value === 'boolean' ? value : String(value));
  return type === 'timestamp' ? timestamp : text;
}

/** UTC already, as the API and DuckDB (`2026-03-01 12:00:00.123456+00`) write most instants: only the form changes. */
const UTC_INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00)$/;

/** An ISO 8601 date or date-time (or DuckDB's form of one) as one canonical UTC text to the microsecond. */
function instant(text: string): string {
  const utc = UTC_INSTANT.exec(text);
  if (utc !== null) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(6, '0')}Z`;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (match === null) return `not an instant: ${text}`;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC takes years 0 to 99 for 1900 to 1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  return microsInstant(BigInt(date.getTime() - offsetMinutes(zone) * 60_000) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6)));
}

/** Microseconds since the epoch as the canonical UTC text, `2026-03-01T12:00:00.123456Z`. */
function microsInstant(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const iso = new Date(Number(millis)).toISOString();
  return `${iso.slice(0, -1)}${String(micros - millis * 1000n).padStart(3, '0')}Z`;
}

/** `Z`, `+05`, `-0130` or `+05:30` as minutes east of UTC. */
function offsetMinutes(zone: string): number {
  if (/^[Zz]$/.test(zone)) return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

/**
 * bigTransactionsMirror stamps its rows with change 1 without counting it: counted here, so that the
 * first export's `txn` says the table reflects them and later changes are told apart from them.
 */
export function countInitialChange(db: Db): void {
  nextChangeSeq(db);
}

/** A transaction shaped as the API sends it (and as bigTransactionsMirror stores it); `edit` varies it. */
function transactionRecord(id: number, edit: number): ApiRecord {
  const customerId = 1 + ((id * 7919) % 5000);
  const points = ((id * 37) % 400) - 100;
  return {
    id,
    customer: { id: customerId, merchant_id: `cust-${customerId}`, email: `customer.${customerId}@example.com`, points_approved: 1000 + points + edit },
    points_approved: points,
    points_pending: edit,
    created_at: new Date(Date.UTC(2026, 0, 1) + id * 7000).toISOString(),
    resource: 'order',
    activity: { id: id + 5_000_000, state: 'approved', value: points, rule: { id: 3, name: 'Order placed', title: `Points for order #${id}, thanks "friend"` } },
  };
}

/**
 * A little change through the mirror's own upserter, in one change: the rows `changed` get a new
 * version (their files are rewritten), and `added` new transactions follow the highest id.
 */
export function changeTransactions(db: Db, edit: number, changed: readonly number[], added: number): void {
  const top = db.prepare('SELECT MAX(id) FROM transactions').pluck().get() as number;
  const records = [...changed.map((id) => transactionRecord(id, edit)), ...Array.from({ length: added }, (_, index) => transactionRecord(top + 1 + index, 0))];
  upsert(db, 'transactions', records);
}

/** The versions of the JSON commits in a `_delta_log` folder listing (names or keys), ascending. */
export function commitVersions(names: readonly string[]): number[] {
  return names
    .map((name) => /(?:^|\/)(\d{20})\.json$/.exec(name)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The JSON commits on disk of the table at `root`. */
export function commitVersionsOnDisk(root: string): number[] {
  try {
    return commitVersions(readdirSync(join(root, '_delta_log')));
  } catch {
    return [];
  }
}

/** 0, 1, … n-1: what a log of n versions, none missing and none twice, lists. */
export function contiguous(count: number): number[] {
  return Array.from({ length: count }, (_, version) => version);
}

/**
 * The mirror change each version says the table reflects (its `txn`), version by version. A commit
 * written twice (a retry of an applied one) would show as the same change at two versions.
 */
export async function reflectedChanges(store: DeltaStore, versions: readonly number[]): Promise<number[]> {
  const changes: number[] = [];
  for (const version of versions) {
    const bytes = await store.read(commitPath(version));
    if (bytes === null) throw new Error(`version ${version} of ${store.location} is missing`);
    const { actions } = parseCommit(version, bytes.toString('utf8'), store.location);
    for (const action of actions) if ('txn' in action) changes.push(action.txn.version);
  }
  return changes;
}

/** Whether each number is larger than the one before it. */
export function strictlyIncreasing(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value > (values[index - 1] as number));
}
