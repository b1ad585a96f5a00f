import { createHash } from 'node:crypto';
import { parquetColumns, type ParquetColumn } from '../arrowColumns.js';
import type { ExportColumn } from '../schema.js';

/**
 * A Delta table's columns: the Parquet export's, except money. A Delta column keeps one type for the
 * table's life, and the spec bounds neither the digits nor the scale of a decimal string ("for example
 * two decimals"), so no decimal(p, s) holds every value the API may send: money is its exact text.
 */
export function deltaColumns(columns: readonly ExportColumn[]): ParquetColumn[] {
  return parquetColumns(
    columns.filter((column) => !WALK_BOOKKEEPING.has(column.name)),
    () => null,
  );
}

/**
 * Columns a Delta table leaves out: every walk of the unsubscribe list moves `last_seen_at` without the
 * row changing (it is not news to exports), so a table holding it would either go stale or be rewritten
 * whole on every sync. `first_seen_at` and `removed_at` stay: they change only with the row.
 */
const WALK_BOOKKEEPING = new Set(['last_seen_at']);

const DELTA_TYPES: Record<ParquetColumn['storage'], string> = {
  int64: 'long',
  bool: 'boolean',
  timestamp: 'timestamp',
  utf8: 'string',
  decimal: 'string',
  date: 'date',
  float64: 'double',
};

interface SchemaField {
  name: string;
  type: unknown;
  nullable: boolean;
  metadata: Record<string, unknown>;
}

/** The Spark JSON schema Delta keeps in metaData.schemaString; every column nullable. */
export function schemaString(columns: readonly ParquetColumn[]): string {
  const fields: SchemaField[] = columns.map((column) => ({ name: column.name, type: DELTA_TYPES[column.storage], nullable: true, metadata: {} }));
  return JSON.stringify({ type: 'struct', fields });
}

/**
 * How the table's schema relates to the one this export writes: the same, the same with new columns at
 * the end (a migration added them: a schema commit), or incompatible (a column changed type or went).
 */
export function compareSchemas(stored: string, wanted: string): { kind: 'same' } | { kind: 'added'; columns: string[] } | { kind: 'incompatible'; reason: string } {
  const parse = (text: string): SchemaField[] => {
    const value = JSON.parse(text) as { fields?: SchemaField[] };
    return Array.isArray(value.fields) ? value.fields : [];
  };
  let old: SchemaField[];
  try {
    old = parse(stored);
  } catch {
    return { kind: 'incompatible', reason: 'its schemaString is not JSON' };
  }
  const next = parse(wanted);
  for (const [index, field] of old.entries()) {
    const mine = next[index];
    if (mine === undefined) return { kind: 'incompatible', reason: `it has column ${field.name}, which this version does not write` };
    if (mine.name !== field.name || JSON.stringify(mine.type) !== JSON.stringify(field.type)) {
      return { kind: 'incompatible', reason: `its column ${index + 1} is ${field.name} ${JSON.stringify(field.type)}, where this version writes ${mine.name} ${JSON.stringify(mine.type)}` };
    }
  }
  if (next.length === old.length) return { kind: 'same' };
  return { kind: 'added', columns: next.slice(old.length).map((field) => field.name) };
}

/**
 * The columns (dotted paths for nested fields) whose metadata carries `delta.invariants`: a SQL
 * expression every written row must satisfy (PROTOCOL.md, "Column Invariants"). A schemaString that is
 * not JSON has none to find; compareSchemas refuses it.
 */
export function columnsWithInvariants(schema: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(schema);
  } catch {
    return [];
  }
  const found: string[] = [];
  const visit = (type: unknown, path: string): void => {
    if (typeof type !== 'object' || type === null) return;
    const node = type as { fields?: unknown; elementType?: unknown; keyType?: unknown; valueType?: unknown };
    if (Array.isArray(node.fields)) {
      for (const field of node.fields as Array<{ name?: unknown; type?: unknown; metadata?: unknown }>) {
        const name = path === '' ? String(field.name) : `${path}.${String(field.name)}`;
        if (typeof field.metadata === 'object' && field.metadata !== null && 'delta.invariants' in field.metadata) found.push(name);
        visit(field.type, name);
      }
    }
    for (const inner of [node.elementType, node.keyType, node.valueType]) visit(inner, path);
  };
  visit(parsed, '');
  return found;
}

/**
 * The table id (metaData.id) this mirror's table of `table` has: a GUID derived from the mirror's own
 * identity, so that the same mirror recognises its table in every place, and a table written from
 * another mirror is refused rather than mixed with this one.
 */
export function tableIdFor(mirrorId: string, table: string): string {
  const hex = createHash('sha256').update(`loyalty-sync delta table\0${mirrorId}\0${table}`).digest('hex');
  // Shaped as a version-8 (custom) UUID, RFC 9562.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The appId of the `txn` action recording how far a table reflects this mirror. */
export function appIdFor(mirrorId: string): string {
  return `loyalty-sync:${mirrorId}`;
}
