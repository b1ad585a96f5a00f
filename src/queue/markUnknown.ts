import type { Db } from '../db/open.js';

/**
 * running → unknown: the write may have reached the API and resending it could apply it twice.
 * Committed before any reconciliation starts, so a crash from here on leaves it for a person.
 */
export function markUnknown(db: Db, job: { id: number; workerId: string; status: number | null; message: string; code: string | null; now: Date }): boolean {
  const result = db
    .prepare(
      `UPDATE write_jobs
       SET state = 'unknown', in_doubt = 1, last_status = @status, last_error = @message, last_error_code = @code,
           locked_by = NULL, locked_at = NULL, updated_at = @at
       WHERE id = @id AND state = 'running' AND locked_by = @workerId`,
    )
    .run({ id: job.id, workerId: job.workerId, status: job.status, message: job.message, code: job.code, at: job.now.toISOString() });
  return result.changes === 1;
}
