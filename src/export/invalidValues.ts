import type { Logger } from '../log.js';

/** Values of one column that the mirror holds but the column's Parquet type cannot: written as NULL, counted, and the first named. */
export interface InvalidValues {
  count: number;
  /** The first of them in row order: its row's id, and the value as the mirror holds it. */
  first: InvalidValue;
}

export interface InvalidValue {
  id: string | null;
  value: string;
}

/** Adds one file's (or batch's) invalid values to a table's, keeping the earlier first value of each column. */
export function addInvalidValues(into: Record<string, InvalidValues>, from: Readonly<Record<string, InvalidValues>>): void {
  for (const [column, found] of Object.entries(from)) {
    const known = into[column];
    if (known) known.count += found.count;
    else into[column] = { count: found.count, first: { ...found.first } };
  }
}

/** The manifest's fields for them (see ManifestFile): nothing when every value was written. */
export function invalidValuesInManifest(invalid: Readonly<Record<string, InvalidValues>>): { invalidValues?: Record<string, number>; firstInvalidValues?: Record<string, InvalidValue> } {
  const columns = Object.entries(invalid);
  if (columns.length === 0) return {};
  return {
    invalidValues: Object.fromEntries(columns.map(([column, found]) => [column, found.count])),
    firstInvalidValues: Object.fromEntries(columns.map(([column, found]) => [column, found.first])),
  };
}

/** One warning per column: a value lost from a typed column is never dropped quietly. */
export function warnInvalidValues(logger: Logger, table: string, where: string, invalid: Readonly<Record<string, InvalidValues>>): void {
  for (const [column, { count, first }] of Object.entries(invalid)) {
    logger.warn(
      { table, column, count, firstId: first.id, firstValue: first.value, where },
      `${table}.${column}: ${count} value(s) its Parquet type cannot hold were written as NULL in ${where}, the first ${JSON.stringify(first.value)} (id ${first.id ?? 'unknown'}); the mirror keeps them, and raw holds each as the API sent it`,
    );
  }
}
