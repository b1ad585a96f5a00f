import type { StreamName } from '../config.js';

/**
 * How a mirror column is typed. SQLite stores integer/boolean as INTEGER (booleans 0/1),
 * the rest as TEXT; exports use this to type Parquet columns.
 * - decimal: money as the API's exact decimal string, never a float.
 * - timestamp: ISO 8601 text exactly as the API sent it.
 * - json: a nested object or array, as JSON text.
 */
export type ColumnType = 'integer' | 'text' | 'boolean' | 'timestamp' | 'decimal' | 'json';

export interface ColumnSpec {
  /** Column name in the mirror table and in exports. */
  name: string;
  type: ColumnType;
  /** Where the value sits in the API record, e.g. ['customer', 'id']. */
  path: readonly string[];
  /** The spec lists the field in one description only: its absence is expected, not worth a warning. */
  optional?: boolean;
}

/**
 * How new and changed records are found:
 * - since-id: ids above the stored maximum, minus an overlap of ids created shortly before it
 *   (late-visible ids); `refresh` adds a periodic re-read of a lookback window for records that change.
 *   `created-at-window` re-reads by created_at_min; `from-oldest-id-in-window` by since_id from the
 *   oldest stored row created inside the window (for lists without a created_at filter).
 * - updated-at: records updated since the stored watermark minus an overlap, sorted by updated_at;
 *   `refresh: 'updated-at-window'` widens the periodic read to the lookback window, which catches
 *   rows that became visible later than the overlap allows for.
 * - full-walk: the whole list every run (no cursor, no filters); what is gone gets a tombstone.
 */
export type SyncStrategy =
  | { kind: 'since-id'; refresh?: 'created-at-window' | 'from-oldest-id-in-window' }
  | { kind: 'updated-at'; refresh?: 'updated-at-window' }
  | { kind: 'full-walk' };

/** A stream declared as data: one engine runs every declaration. */
export interface StreamDefinition {
  name: StreamName;
  /** API path under the base URL. */
  endpoint: string;
  /** Key of the array in the list response; null when the response is a bare array. */
  listKey: string | null;
  keyType: 'integer' | 'text';
  strategy: SyncStrategy;
  /** Typed columns beside `id`, `raw` and the bookkeeping columns. */
  columns: readonly ColumnSpec[];
  /**
   * Field paths the spec lists that have no typed column (`customer.points_spent`). With `id` and the
   * columns' paths they declare the record's shape that schema drift is measured against; the members
   * of a listed field are left unchecked unless a listed path reaches below it (`properties` is open).
   */
  uncolumnedFields?: readonly string[];
  /** Fields whose values the spec lists in full: any other value is schema drift. */
  enums?: Readonly<Record<string, readonly string[]>>;
}

/** Every field path the spec lists for the stream's records, dotted: `id`, then the columns', then the rest. */
export function listedPaths(stream: StreamDefinition): string[] {
  return ['id', ...stream.columns.map((column) => column.path.join('.')), ...(stream.uncolumnedFields ?? [])];
}

export const col = (name: string, type: ColumnType, ...path: string[]): ColumnSpec => ({
  name,
  type,
  path: path.length > 0 ? path : [name],
});

/** Marks a column whose field the spec says may be absent. */
export const optional = (column: ColumnSpec): ColumnSpec => ({ ...column, optional: true });

/** The customer summary that orders, activities and transactions embed, flattened. */
export const CUSTOMER_SUMMARY_COLUMNS: readonly ColumnSpec[] = [
  col('customer_id', 'integer', 'customer', 'id'),
  col('customer_merchant_id', 'text', 'customer', 'merchant_id'),
  col('customer_email', 'text', 'customer', 'email'),
];

/** The fields of the embedded customer summary that have no column of their own. */
export const CUSTOMER_SUMMARY_UNCOLUMNED: readonly string[] = ['customer.points_pending', 'customer.points_approved', 'customer.points_spent'];
