import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { DeltaStore } from '../../src/export/delta/store.js';
import { tempDir } from './tempDir.js';

/**
 * A Delta table read by a real engine: chdb (ClickHouse in-process), built with delta-kernel-rs, Delta's own
 * Rust kernel, which DuckDB's delta extension and other engines embed. It reads the log as they do (protocol,
 * metadata, checkpoints, `_last_checkpoint`, removes), so a log or file the kernel rejects fails here, where
 * this project's own log reader might take it. scripts/install-chdb.sh installs it; globalSetup provides its folder.
 */

/** A value as the engine typed it. */
export type EngineValue =
  /** Integers (Int*, UInt*) exactly; timestamps (DateTime64) as microseconds since the epoch, UTC. */
  | bigint
  /** Strings as they are; decimals as their exact text; dates as `YYYY-MM-DD`; other types as ClickHouse's text of them. */
  | string
  | boolean
  /** Floats. */
  | number
  | null;

export interface EngineColumn {
  name: string;
  /** ClickHouse's type of it: `Nullable(Int64)`, `Nullable(DateTime64(6))`, `Nullable(Bool)`, `Nullable(Date32)`… */
  type: string;
}

export interface EngineTable {
  columns: EngineColumn[];
  /** Ordered by `id` when the table has one, else by every column in order (nulls first). */
  rows: Array<Record<string, EngineValue>>;
}

export interface EngineVersion {
  version: number;
  /** Its row count; null for a version opened without reading its rows. */
  rows: number | null;
}

/** An error the engine gave (its message names the kind, e.g. `DELTA_KERNEL_ERROR`). */
export class DeltaEngineError extends Error {}

const CHILD = fileURLToPath(new URL('./deltaEngineChild.cjs', import.meta.url));

/** Runs the statements in one chdb process working from '/'; each answer is its output (in the format its FORMAT clause names), or an error. */
function runStatements(statements: readonly string[]): Array<{ text: string } | { error: string }> {
  const output = execFileSync(process.execPath, [CHILD, inject('chdb')], {
    cwd: '/',
    input: JSON.stringify(statements),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return JSON.parse(output) as Array<{ text: string } | { error: string }>;
}

function answerLines<Line>(answer: { text: string } | { error: string }, what: string): Line[] {
  if ('error' in answer) throw new DeltaEngineError(`the engine could not read ${what}: ${answer.error}`);
  return answer.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

const quoteText = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** The table function reading `root`: an absolute plain path (chdb refuses `file://` and relative paths). */
function source(root: string): string {
  if (!isAbsolute(root)) throw new Error(`the Delta table path ${root} is not absolute`);
  return `deltaLakeLocal(${quoteText(resolve(root))})`;
}

/**
 * Every value as exact text in JSON: 64-bit integers and decimals quoted, DateTime64 in ISO 8601 in UTC with
 * all its decimals, and a version, when one is asked for, by the kernel's time travel.
 */
function settings(version?: number): string {
  const exact = "date_time_output_format = 'iso', output_format_json_quote_64bit_integers = 1, output_format_json_quote_decimals = 1, session_timezone = 'UTC'";
  return `SETTINGS ${exact}${version === undefined ? '' : `, delta_lake_snapshot_version = ${version}`}`;
}

const rowsQuery = (root: string, version?: number): string => `SELECT * FROM ${source(root)} ${settings(version)} FORMAT JSONCompactEachRowWithNamesAndTypes`;

/** Counts the rows of a version, reading every column of each (a hash of the row), so every data file of it is read. */
const versionQuery = (root: string, version: number): string => `SELECT count() AS n, sum(cityHash64(*)) AS h FROM ${source(root)} ${settings(version)} FORMAT JSONEachRow`;

/** The type inside Nullable(…) and LowCardinality(…). */
export function baseType(type: string): string {
  const wrapped = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  return wrapped === null ? type : baseType(wrapped[1]);
}

/**
 * `1969-12-31T23:59:59.999999Z` (a DateTime64 as date_time_output_format = 'iso' writes it) as microseconds
 * since the epoch. Not 'unix_timestamp': chdb 3.4.0 writes an instant less than a second before the epoch
 * as `0.00000/`.
 */
function isoToMicros(text: string): bigint {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(text);
  if (match === null) throw new Error(`the engine wrote the timestamp ${text}, not an ISO 8601 UTC instant`);
  return BigInt(Date.parse(`${match[1]}Z`)) * 1000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

function convert(type: string): (value: unknown) => EngineValue {
  const kind = baseType(type);
  if (kind.startsWith('DateTime')) return (value) => (value === null ? null : isoToMicros(String(value)));
  if (/^U?Int\d+$/.test(kind)) return (value) => (value === null ? null : BigInt(String(value)));
  if (kind === 'Bool') return (value) => (value === null ? null : value === true);
  if (kind.startsWith('Float')) return (value) => (value === null ? null : Number(value));
  return (value) => (value === null ? null : typeof value === 'string' ? value : JSON.stringify(value));
}

function compareValues(a: EngineValue, b: EngineValue): number {
  if (a === b) return 0;
  if (a === null || b === null) return a === null ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The JSONCompactEachRowWithNamesAndTypes answer as typed rows, ordered by `id` when there is one, else by every column. */
function typedTable(lines: unknown[][]): EngineTable {
  const [names = [], types = [], ...values] = lines as [string[], string[], ...unknown[][]];
  const columns = names.map((name, index) => ({ name, type: types[index] }));
  const converters = columns.map((column) => convert(column.type));
  const rows = values.map((line) => Object.fromEntries(columns.map((column, index) => [column.name, converters[index](line[index])])));
  const keys = columns.some((column) => column.name === 'id') ? ['id'] : names;
  rows.sort((a, b) => {
    for (const key of keys) {
      const order = compareValues(a[key], b[key]);
      if (order !== 0) return order;
    }
    return 0;
  });
  return { columns, rows };
}

/**
 * The table at `root` (an absolute folder), its latest version or `version`, read by the engine: its columns
 * as the engine types them and every row, each value typed (see EngineValue). Throws DeltaEngineError when the
 * engine cannot open the table or read a file.
 */
export function readWithEngine(root: string, opts: { version?: number } = {}): EngineTable {
  const [answer] = runStatements([rowsQuery(root, opts.version)]);
  return typedTable(answerLines<unknown[]>(answer, `${root}${opts.version === undefined ? '' : ` at version ${opts.version}`}`));
}

/**
 * The versions the log at `root` keeps, as a reader can reconstruct them: from version 0 when its commit is
 * there, else from the oldest checkpoint (log cleanup removed the commits before it), to the newest commit.
 */
export function keptVersions(root: string): number[] {
  const names = readdirSync(join(root, '_delta_log'));
  const commits = names.map((name) => /^(\d{20})\.json$/.exec(name)?.[1]).filter((digits) => digits !== undefined).map(Number);
  const checkpoints = names.map((name) => /^(\d{20})\.checkpoint(?:\.\d+\.\d+)?\.parquet$/.exec(name)?.[1]).filter((digits) => digits !== undefined).map(Number);
  if (commits.length === 0) throw new Error(`${root}/_delta_log holds no commit`);
  const newest = Math.max(...commits);
  const oldest = commits.includes(0) ? 0 : Math.min(...checkpoints.filter((version) => version <= newest), newest);
  return Array.from({ length: newest - oldest + 1 }, (_, index) => oldest + index);
}

export interface EngineView {
  /** The newest version, read whole. */
  latest: EngineTable;
  /** Every version the log keeps (keptVersions), each opened and its rows read. */
  versions: EngineVersion[];
}

/**
 * The table at `root` as the engine sees it, in one engine process: its newest version read whole, and every
 * version the log keeps opened with every column of every row read. Versions before `dataFrom` are opened
 * without reading their rows (a vacuum removed their files, as Delta allows). Throws DeltaEngineError naming
 * what the engine could not read.
 */
export function openWithEngine(root: string, opts: { dataFrom?: number } = {}): EngineView {
  const versions = keptVersions(root);
  const dataFrom = opts.dataFrom ?? 0;
  const answers = runStatements([
    rowsQuery(root),
    ...versions.map((version) => (version >= dataFrom ? versionQuery(root, version) : `DESCRIBE ${source(root)} ${settings(version)} FORMAT JSONEachRow`)),
  ]);
  return {
    latest: typedTable(answerLines<unknown[]>(answers[0], root)),
    versions: versions.map((version, index) => {
      const lines = answerLines<{ n?: string }>(answers[index + 1], `${root} at version ${version}`);
      return { version, rows: version >= dataFrom ? Number(lines[0]?.n) : null };
    }),
  };
}

/**
 * A local copy of every object of a table in a bucket (log, checkpoints, data files, whatever is there), for
 * the engine to read from disk: what a warehouse that syncs the prefix down would open.
 */
export async function localCopy(store: DeltaStore): Promise<string> {
  const root = tempDir('delta-engine-copy-');
  for (const entry of await store.list()) {
    const bytes = await store.read(entry.path);
    if (bytes === null) continue;
    const target = join(root, entry.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return root;
}
