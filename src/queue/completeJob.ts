import type { Db } from '../db/open.js';

export interface Completion {
  id: number;
  /** The worker holding the job; null when settling an `unknown` job that no worker holds. */
  workerId: string | null;
  /** HTTP status of the answer, or null when proved by a lookup rather than an answer. */
  status: number | null;
  /** What the API answered, or the proof found, as JSON text. */
  response: string;
  now: Date;
}

/** running (held by this worker) or unknown → succeeded. False when the job was not in that state. */
export function completeJob(db: Db, completion: Completion): boolean {
  const at = completion.now.toISOString();
  const result = db
    .prepare(
      `UPDATE write_jobs
       SET state = 'succeeded', last_status = @status, response = @response, in_doubt = 0,
           locked_by = NULL, locked_at = NULL, updated_at = @at
       WHERE id = @id AND ((state = 'running' AND locked_by = @workerId) OR (state = 'unknown' AND @workerId IS NULL))`,
    )
    .run({ id: completion.id, workerId: completion.workerId, status: completion.status, response: completion.response, at });
  return result.changes === 1;
}
