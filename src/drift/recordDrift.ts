import type { Db } from '../db/open.js';
import type { DriftFinding } from './types.js';

/**
 * Adds findings to `schema_drift`: a known one gets its count raised and `last_seen_at` moved, a new one
 * a row of its own. Returns the findings never seen before (each deserves one warning). Run it in the
 * transaction that stores the records the findings came from, so both commit or neither.
 */
export function recordDrift(db: Db, findings: readonly DriftFinding[], at: string): DriftFinding[] {
  if (findings.length === 0) return [];
  // A field, or a field's values of the wrong type, is one row per path; an unlisted enum value one row per value, which is its example.
  const seenAgain = db.prepare(
    `UPDATE schema_drift SET count = count + @count, last_seen_at = @at
     WHERE stream = @stream AND kind = @kind AND path = @path AND (kind <> 'enum_value' OR example = @example)`,
  );
  const firstSeen = db.prepare(
    `INSERT INTO schema_drift (stream, kind, path, example, first_seen_at, last_seen_at, count) VALUES (@stream, @kind, @path, @example, @at, @at, @count)`,
  );
  // Immediate, so that a verify (which holds no writer lock) and the sync's storage thread cannot both
  // find a finding unseen and both insert it; inside the sync's page transaction it is a savepoint.
  return db
    .transaction(() => {
      const news: DriftFinding[] = [];
      for (const finding of findings) {
        const row = { ...finding, at };
        if (seenAgain.run(row).changes > 0) continue;
        firstSeen.run(row);
        news.push(finding);
      }
      return news;
    })
    .immediate();
}
