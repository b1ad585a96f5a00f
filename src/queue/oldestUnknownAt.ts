import type { Db } from '../db/open.js';

/** When the longest-unknown job became unknown (its last update, as `status --check` ages it); null when none is. */
export function oldestUnknownAt(db: Db): string | null {
  return (db.prepare("SELECT min(updated_at) FROM write_jobs WHERE state = 'unknown'").pluck().get() as string | null) ?? null;
}
