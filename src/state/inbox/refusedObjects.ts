import type { StoredObject } from '../../bucket/objects.js';
import type { Db } from '../../db/open.js';
import { JOB_KINDS } from '../../queue/types.js';
import type { StateStore } from '../store/stateStore.js';
import { sha256Hex } from './sha256.js';

interface RefusedObjectRecord {
  path: string;
  listedSize: number;
  listedModifiedMs: number;
  errorsSha256: string | null;
}

function recordsOf(db: Db): RefusedObjectRecord[] {
  return db
    .prepare('SELECT path, listed_size AS listedSize, listed_modified_ms AS listedModifiedMs, errors_sha256 AS errorsSha256 FROM inbox_refused_objects ORDER BY path')
    .all() as RefusedObjectRecord[];
}

/** Where the sentence about a refused object goes: beside it, as a refused CSV file's errors do. */
export function refusedObjectErrorsPath(path: string): string {
  return `${path}.errors.txt`;
}

function errorsText(path: string): string {
  return `${path}: not an inbox file; expected inbox/KIND/NAME.csv with KIND one of ${JOB_KINDS.join(', ')}. Nothing is queued from it; remove it, or put its writes in a CSV file\n`;
}

/**
 * Remembers the objects under inbox/ that are no inbox file (inbox_refused_objects), as this listing shows
 * them, and writes one sentence beside each. Returns the paths seen for the first time, or replaced (another
 * size or modification time): only those are warned about, so an object left there is told once, not on
 * every run. Objects the listing no longer shows are forgotten, with the sentence written beside them.
 */
export async function noteRefusedObjects(db: Db, objects: StateStore, listed: readonly StoredObject[], now: Date): Promise<string[]> {
  const known = new Map(recordsOf(db).map((record) => [record.path, record]));
  const fresh = listed.filter((object) => {
    const record = known.get(object.path);
    return record === undefined || record.listedSize !== object.size || record.listedModifiedMs !== object.modifiedMs;
  });
  const remember = db.prepare(
    `INSERT INTO inbox_refused_objects (path, listed_size, listed_modified_ms, seen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET listed_size = excluded.listed_size, listed_modified_ms = excluded.listed_modified_ms, seen_at = excluded.seen_at`,
  );
  db.transaction(() => {
    for (const object of fresh) remember.run(object.path, object.size, object.modifiedMs, now.toISOString());
  })();

  const present = new Set(listed.map((object) => object.path));
  const forget = db.prepare('DELETE FROM inbox_refused_objects WHERE path = ?');
  const recordErrors = db.prepare('UPDATE inbox_refused_objects SET errors_sha256 = ? WHERE path = ?');
  for (const record of recordsOf(db)) {
    if (!present.has(record.path)) {
      if (record.errorsSha256 !== null) await objects.delete([refusedObjectErrorsPath(record.path)]);
      forget.run(record.path);
      continue;
    }
    const body = Buffer.from(errorsText(record.path), 'utf8');
    const digest = sha256Hex(body);
    if (digest === record.errorsSha256) continue;
    await objects.putBytes(refusedObjectErrorsPath(record.path), body, digest, 'text/plain; charset=utf-8');
    recordErrors.run(digest, record.path);
  }
  return fresh.map((object) => object.path);
}

/** The paths of the refused objects still in the inbox as of the last listing. */
export function refusedObjectPaths(db: Db): string[] {
  return (db.prepare('SELECT path FROM inbox_refused_objects ORDER BY path').all() as Array<{ path: string }>).map((row) => row.path);
}
