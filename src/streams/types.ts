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
  /**
   * The list has no filter by update time, yet its records change at any age (a refund a year on, points
   * approved after a 60-day pending period): only a read of the whole list, the deep refresh, sees every change.
   */
  noUpdateFilter?: true;
  /** A record of this stream that another stream's new records say has changed: the next sync re-reads it. */
  changeSignal?: ChangeSignal;
}

/**
 * How a change to a record shows in another stream: an approval, a void or a decline of an activity creates a
 * transaction that embeds the activity with its new state. The embedded copy is not trusted (its `resource`
 * is null); the record is read again from its own list, found by its `created_at`.
 */
export interface ChangeSignal {
  /** The stream whose new records carry the signal. */
  from: StreamName;
  /** Its columns holding the embedded record's id and state. */
  idColumn: string;
  stateColumn: string;
  /** The state a record is created in: a signal showing it is the creation, not a change. */
  initialState: string;
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
