import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { DriftEntry } from './types.js';

/** The schema drift recorded so far, of one stream or all, by stream, kind and path. */
export function listDrift(db: Db, stream?: StreamName): DriftEntry[] {
  const where = stream === undefined ? '' : 'WHERE stream = ?';
  return db
    .prepare(`SELECT stream, kind, path, example, first_seen_at, last_seen_at, count FROM schema_drift ${where} ORDER BY stream, kind, path, example`)
    .all(...(stream === undefined ? [] : [stream])) as DriftEntry[];
}
