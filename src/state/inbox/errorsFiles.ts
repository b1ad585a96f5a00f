import type { StateStore } from '../store/stateStore.js';
import type { Db } from '../../db/open.js';
import { errorsPath } from './layout.js';
import { sha256Hex } from './sha256.js';

interface NameWithErrors {
  kind: string;
  name: string;
  errors: string | null;
  errorsSha256: string | null;
}

/**
 * Puts each refused file's errors beside every name that holds it, unless that text is already there,
 * and removes the errors file of a name whose bytes were replaced by ones that imported. What was written
 * is recorded only once the store accepted it, so a failed write is tried again by the next run.
 */
export async function writeErrorsFiles(db: Db, objects: StateStore): Promise<void> {
  const names = db
    .prepare(
      `SELECT n.kind, n.name, f.errors, n.errors_sha256 AS errorsSha256
       FROM inbox_names n JOIN inbox_files f ON f.id = n.file_id
       WHERE f.outcome = 'refused' OR n.errors_sha256 IS NOT NULL
       ORDER BY n.kind, n.name`,
    )
    .all() as NameWithErrors[];
  const record = db.prepare('UPDATE inbox_names SET errors_sha256 = ? WHERE kind = ? AND name = ?');
  for (const place of names) {
    if (place.errors === null) {
      await objects.delete([errorsPath(place)]);
      record.run(null, place.kind, place.name);
      continue;
    }
    const body = Buffer.from(place.errors, 'utf8');
    const digest = sha256Hex(body);
    if (digest === place.errorsSha256) continue;
    await objects.putBytes(errorsPath(place), body, digest, 'text/plain; charset=utf-8');
    record.run(digest, place.kind, place.name);
  }
}
