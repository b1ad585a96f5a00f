import type { Db } from '../db/open.js';
import { isRunLive } from './runLock.js';

/** The export_publications bookkeeping (migration 005), one statement per function. */

export function startPublication(db: Db, runId: string, target: string, startedAt: string): void {
  db.prepare(`INSERT INTO export_publications (run_id, target, status, started_at) VALUES (?, ?, 'running', ?)`).run(runId, target, startedAt);
}

export function completePublication(db: Db, runId: string, finishedAt: string, files: number, bytes: number, manifestUrl: string): void {
  db.prepare(`UPDATE export_publications SET status = 'completed', finished_at = ?, files = ?, bytes = ?, manifest_url = ? WHERE run_id = ?`).run(finishedAt, files, bytes, manifestUrl, runId);
}

export function failPublication(db: Db, runId: string, finishedAt: string, files: number, bytes: number, error: string): void {
  db.prepare(`UPDATE export_publications SET status = 'failed', finished_at = ?, files = ?, bytes = ?, error = ? WHERE run_id = ?`).run(finishedAt, files, bytes, error, runId);
}

export interface LastPublication {
  runId: string;
  target: string;
  /** completed, failed, running, or interrupted (the exporting process died mid-way). */
  status: string;
  files: number;
  bytes: number;
  manifestUrl: string | null;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

/**
 * The newest publication attempt, for `status`; null when none was made (or the mirror predates them).
 * A run still marked running whose lock no live process holds (SIGKILL, a lost pod) shows as interrupted
 * at once, not only once the next export settles it.
 */
export function lastPublication(db: Db): LastPublication | null {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'export_publications'`).get();
  if (!hasTable) return null;
  const row = db
    .prepare(
      `SELECT p.run_id AS runId, p.target, p.files, p.bytes, p.manifest_url AS manifestUrl, p.started_at AS startedAt,
              coalesce(p.finished_at, r.finished_at) AS finishedAt, coalesce(p.error, r.error) AS error,
              CASE WHEN p.status = 'running' AND r.status = 'interrupted' THEN 'interrupted'
                   WHEN p.status = 'running' AND r.status = 'failed' THEN 'failed'
                   ELSE p.status END AS status
       FROM export_publications p JOIN export_runs r ON r.run_id = p.run_id
       ORDER BY p.started_at DESC, p.run_id DESC LIMIT 1`,
    )
    .get() as LastPublication | undefined;
  if (row === undefined) return null;
  return row.status === 'running' && !isRunLive(db, row.runId) ? { ...row, status: 'interrupted' } : row;
}

/** Whether the run's publication completed (its manifest and pointer are in the bucket). */
export function publicationCompleted(db: Db, runId: string): boolean {
  return db.prepare(`SELECT 1 FROM export_publications WHERE run_id = ? AND status = 'completed'`).get(runId) !== undefined;
}

/** When the newest publication to `target` failed (or its run failed or was interrupted under it); null when none did. */
export function lastFailedPublication(db: Db, target: string): string | null {
  return db
    .prepare(
      `SELECT max(coalesce(p.finished_at, r.finished_at)) FROM export_publications p JOIN export_runs r ON r.run_id = p.run_id
       WHERE p.target = ? AND (p.status = 'failed' OR (p.status = 'running' AND r.status IN ('failed', 'interrupted')))`,
    )
    .pluck()
    .get(target) as string | null;
}
