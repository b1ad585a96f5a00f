import type { StreamName } from '../config.js';

/**
 * - field: a field path the spec does not list for the stream;
 * - enum_value: a value of a field whose values the spec lists in full, outside that list;
 * - type: a value that does not parse as its field's type (money, timestamp, integer, boolean), stored as
 *   NULL in its typed column and kept in `raw`.
 */
export const DRIFT_KINDS = ['field', 'enum_value', 'type'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** What one batch of records showed: one finding per field path, or per unlisted enum value. */
export interface DriftFinding {
  stream: StreamName;
  kind: DriftKind;
  /** Dotted, from the record's top: `tags`, `loyalty_tier_membership.loyalty_tier.color`. */
  path: string;
  /** The first value met, as short text with emails masked; for enum_value, the value itself. */
  example: string;
  /** Records of the batch it appeared in. */
  count: number;
}

/** A row of `schema_drift`, as `status` and the export manifest show it. */
export interface DriftEntry {
  stream: StreamName;
  kind: DriftKind;
  path: string;
  example: string;
  first_seen_at: string;
  last_seen_at: string;
  count: number;
}
