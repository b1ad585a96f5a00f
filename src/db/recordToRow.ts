import type { ColumnSpec, StreamDefinition } from '../streams/index.js';
import { toJsonText } from '../jsonText.js';

export type SqlValue = string | number | bigint | null;

export interface RowValues {
  /** In the order of `stream.columns`, ready to bind. */
  values: SqlValue[];
  /** Columns whose field was absent (or of a type the spec does not allow) in the record. */
  missing: string[];
}

/**
 * Maps an API record onto the stream's typed columns. Never throws: a field that is absent or
 * has an unexpected type becomes NULL and is reported in `missing`, while `raw` keeps the record whole.
 */
export function recordToRow(stream: StreamDefinition, record: Record<string, unknown>): RowValues {
  const values: SqlValue[] = [];
  const missing: string[] = [];
  for (const column of stream.columns) {
    const value = convert(column, valueAt(record, column.path));
    if (value === undefined) {
      missing.push(column.name);
      values.push(null);
    } else {
      values.push(value);
    }
  }
  return { values, missing };
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

/** undefined means "missing or unusable"; null means the API sent null, which is a value. */
function convert(column: ColumnSpec, value: unknown): SqlValue | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  switch (column.type) {
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
      return undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value ? 1 : 0;
      return undefined;
    case 'decimal':
      // Kept as text so money stays exact; a number from a non-conforming server is stored as its shortest text.
      if (typeof value === 'string') return value;
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      return undefined;
    case 'text':
    case 'timestamp':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return undefined;
    case 'json':
      return toJsonText(value);
  }
}
