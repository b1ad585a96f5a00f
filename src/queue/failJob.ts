import type { Db } from '../db/open.js';

export interface JobFailure {
  id: number;
  workerId: string;
  status: number | null;
  message: string;
  code: string | null;
  /** When to try again; null makes the job dead. */
  retryAt: Date | null;
  /** The attempt may have landed (an order to look up before resending). */
  inDoubt: boolean;
  /** The API did nothing with the request (a 429, or never sent): it does not count toward push.maxAttempts. */
  untouched?: boolean;
  now: Date;
}

/** running → queued with its next attempt time, or → dead; keeps the error of the last attempt. */
export function failJob(db: Db, failure: JobFailure): boolean {
  const result = db
    .prepare(
      `UPDATE write_jobs
       SET state = CASE WHEN @retryAt IS NULL THEN 'dead' ELSE 'queued' END,
           next_attempt_at = COALESCE(@retryAt, next_attempt_at),
           attempts = attempts - @untouched,
           in_doubt = MAX(in_doubt, @inDoubt),
           last_status = @status, last_error = @message, last_error_code = @code,
           locked_by = NULL, locked_at = NULL, updated_at = @at
       WHERE id = @id AND state = 'running' AND locked_by = @workerId`,
    )
    .run({
      id: failure.id,
      workerId: failure.workerId,
      status: failure.status,
      message: failure.message,
      code: failure.code,
      retryAt: failure.retryAt?.toISOString() ?? null,
      inDoubt: failure.inDoubt ? 1 : 0,
      untouched: failure.untouched ? 1 : 0,
      at: failure.now.toISOString(),
    });
  return result.changes === 1;
}
