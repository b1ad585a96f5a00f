import { isIsoTimestamp } from '../isoTimestamp.js';
import type { ColumnSpec, StreamDefinition } from '../streams/index.js';
import { toJsonText } from '../jsonText.js';

export type SqlValue = string | number | bigint | null;

/** A field present in a record with a value its column's type does not allow. */
export interface MistypedValue {
  column: ColumnSpec;
  value: unknown;
}

export interface RowValues {
  /** In the order of `stream.columns`, ready to bind. */
  values: SqlValue[];
  /** Columns whose field was absent in the record. */
  missing: string[];
  /** Fields whose value does not parse as their column's type; null when there is none (the common case allocates nothing). */
  mistyped: MistypedValue[] | null;
}

/** Marks a value that is present but not of its column's type. */
const MISTYPED = Symbol('mistyped');

/**
 * Maps an API record onto the stream's typed columns. Never throws: a field that is absent becomes NULL
 * and is reported in `missing`; a value that does not parse as its column's type (money that is not a
 * decimal string, a timestamp that is not ISO 8601, an integer or boolean that is not one) becomes NULL
 * too and is reported in `mistyped`, so a typed column only ever holds its type (and no formula reaches
 * an export through it), while `raw` keeps the record whole.
 */
export function recordToRow(stream: StreamDefinition, record: Record<string, unknown>): RowValues {
  const values: SqlValue[] = [];
  const missing: string[] = [];
  let mistyped: MistypedValue[] | null = null;
  for (const column of stream.columns) {
    const raw = valueAt(record, column.path);
    const value = convert(column, raw);
    if (value === undefined) {
      missing.push(column.name);
      values.push(null);
    } else if (value === MISTYPED) {
      (mistyped ??= []).push({ column, value: raw });
      values.push(null);
    } else {
      values.push(value);
    }
  }
  return { values, missing, mistyped };
}

/** A null object on the way (`flow: null`, `referred_by: null`) is a value: the fields under it are NULL, not missing. */
function valueAt(record: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = record;
  for (const key of path) {
    if (node === null) return null;
    if (typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Money as the API writes it: plain decimal notation, an optional minus, no exponent (api-spec.md, "decimal string"). */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const INTEGER = /^-?\d+$/;

/**
 * undefined means missing; null means the API sent null, which is a value; MISTYPED a value of the wrong type.
 * This runs for every field of every stored row, so each check is a type test or one anchored regex.
 */
function convert(column: ColumnSpec, value: unknown): SqlValue | undefined | typeof MISTYPED {
  if (value === undefined) return undefined;
  if (value === null) return null;
  switch (column.type) {
    case 'integer':
      if (typeof value === 'number') return Number.isSafeInteger(value) ? value : MISTYPED;
      if (typeof value === 'string' && INTEGER.test(value)) {
        const number = Number(value);
        return Number.isSafeInteger(number) ? number : MISTYPED;
      }
      return MISTYPED;
    case 'boolean':
      return typeof value === 'boolean' ? (value ? 1 : 0) : MISTYPED;
    case 'decimal':
      // Kept as text so money stays exact; a number from a non-conforming server is stored as its shortest text.
      if (typeof value === 'string') return DECIMAL.test(value) ? value : MISTYPED;
      if (typeof value === 'number' && Number.isFinite(value)) {
        const text = String(value);
        return DECIMAL.test(text) ? text : MISTYPED;
      }
      return MISTYPED;
    case 'timestamp':
      return typeof value === 'string' && isIsoTimestamp(value) ? value : MISTYPED;
    case 'text':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return MISTYPED;
    case 'json':
      return toJsonText(value);
  }
}
