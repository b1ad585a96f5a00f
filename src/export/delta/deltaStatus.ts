import type { Db } from '../../db/open.js';

export interface DeltaTableStatus {
  table: string;
  /** The table's folder or its s3:// URL. */
  location: string;
  version: number;
  files: number;
  bytes: number;
  rows: number;
  lastCommitAt: string | null;
  /** When an export last brought the table up to date (whether or not it committed). */
  checkedAt: string;
}

/** What the newest Delta exports recorded of each table; none on a mirror older than migration 009 (status reads without migrating). */
export function deltaTables(db: Db): DeltaTableStatus[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'delta_tables'").get();
  if (exists === undefined) return [];
  return db
    // A row whose first commit is still under way (or failed) has no version yet.
    .prepare('SELECT table_name AS "table", location, version, files, bytes, rows, committed_at AS lastCommitAt, checked_at AS checkedAt FROM delta_tables WHERE version >= 0 ORDER BY table_name, location')
    .all() as DeltaTableStatus[];
}
