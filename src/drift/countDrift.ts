import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import { DRIFT_KINDS, type DriftKind } from './types.js';

/**
 * The findings `schema_drift` holds for a stream, per kind: distinct field paths, enum values outside a
 * listed enum, and paths whose values did not parse as their type. Every kind is present, 0 when none.
 */
export function countDrift(db: Db, stream: StreamName): Record<DriftKind, number> {
  const rows = db.prepare('SELECT kind, count(*) AS findings FROM schema_drift WHERE stream = ? GROUP BY kind').all(stream) as Array<{ kind: DriftKind; findings: number }>;
  const counts = Object.fromEntries(DRIFT_KINDS.map((kind) => [kind, 0])) as Record<DriftKind, number>;
  for (const row of rows) counts[row.kind] = row.findings;
  return counts;
}
