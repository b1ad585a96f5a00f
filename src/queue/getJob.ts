import type { Db } from '../db/open.js';
import { rowToJob, type WriteJob, type WriteJobRow } from './types.js';

export function getJob(db: Db, id: number): WriteJob | undefined {
  const row = db.prepare('SELECT * FROM write_jobs WHERE id = ?').get(id) as WriteJobRow | undefined;
  return row && rowToJob(row);
}
