import type { Db } from '../db/open.js';

/**
 * running → queued as if it had not been claimed: the API refused the credential (401), so the
 * write did not land and the attempt says nothing about the job itself.
 */
export function releaseJob(db: Db, job: { id: number; workerId: string; now: Date }): boolean {
  const result = db
    .prepare(
      `UPDATE write_jobs
       SET state = 'queued', attempts = MAX(attempts - 1, 0), locked_by = NULL, locked_at = NULL, updated_at = @at
       WHERE id = @id AND state = 'running' AND locked_by = @workerId`,
    )
    .run({ id: job.id, workerId: job.workerId, at: job.now.toISOString() });
  return result.changes === 1;
}
