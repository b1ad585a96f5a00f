import { MONEY_PRECISION, MONEY_SCALE } from './decimal.js';
import type { ExportColumn, ExportColumnType } from './schema.js';
import type { Snapshot } from './snapshot.js';

/** A column of a BigQuery schema, as `bq load` takes it in a schema file. */
export interface BigQueryField {
  name: string;
  type: 'INT64' | 'STRING' | 'BOOL' | 'NUMERIC' | 'TIMESTAMP' | 'DATE' | 'FLOAT64';
  mode: 'NULLABLE';
}

/** How a loader should type a CSV file's columns, in the forms two loaders take as they are. */
export interface CsvLoaderTypes {
  /** Column → type, in file order: the `types` DuckDB's read_csv takes. */
  duckdbTypes: Record<string, string>;
  /** The schema `bq load --schema FILE` takes (JSON), in file order. */
  bigquerySchema: BigQueryField[];
}

/** What the values of the file allow, found by reading them (see loaderTypesOf). */
export interface CsvValueChecks {
  /** Whether every value of this money column fits DECIMAL(18,2) (decimal.ts), as for Parquet. */
  moneyFits: (column: string) => boolean;
  /** The timestamp columns whose every value both loaders read as written (see readableTimestampColumns). */
  readableTimestamps: ReadonlySet<string>;
}

const DECIMAL = `DECIMAL(${MONEY_PRECISION},${MONEY_SCALE})`;

/**
 * The types of a CSV file's columns for a loader, so that nothing is guessed: a quoted merchant id of
 * digits stays text (DuckDB would guess BIGINT), money stays exact (never DOUBLE). Money is DECIMAL(18,2)
 * (BigQuery NUMERIC) where every value of the file fits, else text, as in the Parquet file beside it; a
 * timestamp column is TIMESTAMPTZ (TIMESTAMP) where every value carries its offset in a form both loaders
 * read, else text: the CSV holds the API's text as sent, and a type that cannot parse some of it would
 * load those cells as NULL or fail the load. JSON is DuckDB's JSON (text kept as is) and a BigQuery STRING,
 * since BigQuery's JSON type rounds large numbers.
 */
export function loaderTypesOf(columns: readonly ExportColumn[], checks: CsvValueChecks): CsvLoaderTypes {
  const typed = columns.map((column) => ({ name: column.name, ...typesOf(column, checks) }));
  return {
    duckdbTypes: Object.fromEntries(typed.map((column) => [column.name, column.duckdb])),
    bigquerySchema: typed.map((column) => ({ name: column.name, type: column.bigquery, mode: 'NULLABLE' })),
  };
}

function typesOf(column: ExportColumn, checks: CsvValueChecks): { duckdb: string; bigquery: BigQueryField['type'] } {
  const type: ExportColumnType = column.type;
  switch (type) {
    case 'date':
      return { duckdb: 'DATE', bigquery: 'DATE' };
    case 'real':
      return { duckdb: 'DOUBLE', bigquery: 'FLOAT64' };
    case 'integer':
      return { duckdb: 'BIGINT', bigquery: 'INT64' };
    case 'boolean':
      return { duckdb: 'BOOLEAN', bigquery: 'BOOL' };
    case 'decimal':
      return checks.moneyFits(column.name) ? { duckdb: DECIMAL, bigquery: 'NUMERIC' } : { duckdb: 'VARCHAR', bigquery: 'STRING' };
    case 'timestamp':
      return checks.readableTimestamps.has(column.name) ? { duckdb: 'TIMESTAMPTZ', bigquery: 'TIMESTAMP' } : { duckdb: 'VARCHAR', bigquery: 'STRING' };
    case 'json':
      return { duckdb: 'JSON', bigquery: 'STRING' };
    case 'text':
      return { duckdb: 'VARCHAR', bigquery: 'STRING' };
  }
}

/**
 * Of `columns` (timestamps), those whose every value among the rows to export reads the same in DuckDB
 * and BigQuery: `YYYY-MM-DD`, `T` or a space, `HH:MM:SS`, at most six fraction digits, and `Z` or `±HH:MM`.
 * The mirror takes other ISO 8601 forms too (lower-case `t` or `z`, a comma, no seconds, no offset, which
 * DuckDB would read in the session's time zone); such a column stays text. One pass in SQLite, beside the
 * file's own read.
 */
export function readableTimestampColumns(snapshot: Snapshot, table: string, columns: readonly string[], afterChangeSeq: number | null): Set<string> {
  if (columns.length === 0) return new Set();
  const checks = columns.map((column, i) => `coalesce(min("${column}" IS NULL OR ${readableSql(`"${column}"`)}), 1) AS c${i}`);
  const since = afterChangeSeq === null ? '' : ' WHERE _change_seq > ?';
  const statement = snapshot.db.prepare(`SELECT ${checks.join(', ')} FROM "${table}"${since}`);
  const row = (afterChangeSeq === null ? statement.get() : statement.get(afterChangeSeq)) as Record<string, number>;
  return new Set(columns.filter((_, i) => row[`c${i}`] === 1));
}

function readableSql(value: string): string {
  const dateAndTime = `${value} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'`;
  const afterSeconds = `substr(${value}, 20)`;
  const afterFraction = `ltrim(substr(${value}, 21), '0123456789')`;
  const fractionDigits = `length(${value}) - 20 - length(${afterFraction})`;
  const offset = (text: string): string => `(${text} = 'Z' OR ${text} GLOB '[+-][0-9][0-9]:[0-9][0-9]')`;
  return `(${dateAndTime} AND CASE WHEN substr(${value}, 20, 1) = '.' THEN ${fractionDigits} BETWEEN 1 AND 6 AND ${offset(afterFraction)} ELSE ${offset(afterSeconds)} END)`;
}
