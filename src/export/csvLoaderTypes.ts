import { MONEY_PRECISION } from './decimal.js';
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
  /** The scale S of DECIMAL(18,S) that holds every value of this money column (decimal.ts), as for Parquet; null for none. */
  moneyScale: (column: string) => number | null;
  /** The timestamp columns whose every value both loaders read as written (see ReadableTimestamps). */
  readableTimestamps: ReadonlySet<string>;
}

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
    case 'decimal': {
      const scale = checks.moneyScale(column.name);
      return scale !== null ? { duckdb: `DECIMAL(${MONEY_PRECISION},${scale})`, bigquery: 'NUMERIC' } : { duckdb: 'VARCHAR', bigquery: 'STRING' };
    }
    case 'timestamp':
      return checks.readableTimestamps.has(column.name) ? { duckdb: 'TIMESTAMPTZ', bigquery: 'TIMESTAMP' } : { duckdb: 'VARCHAR', bigquery: 'STRING' };
    case 'json':
      return { duckdb: 'JSON', bigquery: 'STRING' };
    case 'text':
      return { duckdb: 'VARCHAR', bigquery: 'STRING' };
  }
}

/**
 * Which of a file's timestamp columns hold only values that read the same in DuckDB and BigQuery:
 * `YYYY-MM-DD`, `T` or a space, `HH:MM:SS`, at most six fraction digits, and `Z` or `±HH:MM`. The mirror
 * takes other ISO 8601 forms too (lower-case `t` or `z`, a comma, no seconds, no offset, which DuckDB would
 * read in the session's time zone); such a column stays text. The check is an SQL aggregate per column
 * (`aggregates`), computed over each batch in the read that writes the file, and told here batch by batch
 * (`note`): a second pass over the table cost a CSV export of 1M rows a quarter of its time.
 */
export class ReadableTimestamps {
  readonly #columns: readonly string[];
  readonly #unreadable = new Set<string>();

  constructor(columns: readonly string[]) {
    this.#columns = columns;
  }

  /** Per column, in order: 1 when every value of the batch is NULL or readable, else 0. */
  aggregates(): string[] {
    // The form the API and the sync write settles a value with one GLOB; the whole check, a dozen function
    // calls, cost 1.5 s of CPU on 2M values and now runs only for the other forms.
    return this.#columns.map((column) => `min(CASE WHEN "${column}" IS NULL OR "${column}" GLOB ${USUAL_FORM} THEN 1 ELSE ${readableSql(`"${column}"`)} END)`);
  }

  /** A batch's values of `aggregates()`, in their order. */
  note(checks: readonly unknown[]): void {
    this.#columns.forEach((column, i) => {
      if (checks[i] !== 1) this.#unreadable.add(column);
    });
  }

  /** The columns no batch so far held an unreadable value in (all of them before any batch: an empty file). */
  columns(): Set<string> {
    return new Set(this.#columns.filter((column) => !this.#unreadable.has(column)));
  }
}

/** `2026-03-01T12:00:00.000Z`, as JavaScript's toISOString writes it: readable by both loaders. */
const USUAL_FORM = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z'";

function readableSql(value: string): string {
  const dateAndTime = `${value} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'`;
  const afterSeconds = `substr(${value}, 20)`;
  const afterFraction = `ltrim(substr(${value}, 21), '0123456789')`;
  const fractionDigits = `length(${value}) - 20 - length(${afterFraction})`;
  const offset = (text: string): string => `(${text} = 'Z' OR ${text} GLOB '[+-][0-9][0-9]:[0-9][0-9]')`;
  return `(${dateAndTime} AND CASE WHEN substr(${value}, 20, 1) = '.' THEN ${fractionDigits} BETWEEN 1 AND 6 AND ${offset(afterFraction)} ELSE ${offset(afterSeconds)} END)`;
}
