import type { ApiStats } from '../api/client.js';
import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { StreamReport } from './types.js';

export interface RunLog {
  /** Opens the stream's row of this run; returns its id. */
  start(runId: string, stream: StreamName, at: string): number;
  finish(id: number, report: StreamReport, api: ApiStats, at: string): void;
}

/**
 * `sync_runs`: one row per stream per run. A row left `running` belongs to a process that was
 * killed; the next run of the stream marks it interrupted (a single sync runs at a time, which
 * the runtime's instance lock guarantees).
 */
export function createRunLog(db: Db): RunLog {
  const abandon = db.prepare("UPDATE sync_runs SET status = 'interrupted', finished_at = ? WHERE stream = ? AND status = 'running'");
  const insert = db.prepare("INSERT INTO sync_runs (run_id, stream, started_at, status) VALUES (?, ?, ?, 'running')");
  const update = db.prepare(
    `UPDATE sync_runs SET finished_at = ?, status = ?, refresh = ?, rows_read = ?, rows_inserted = ?, rows_updated = ?, pages = ?,
       requests = ?, retries = ?, rate_limited = ?, error = ? WHERE id = ?`,
  );
  return {
    start(runId, stream, at) {
      return db.transaction(() => {
        abandon.run(at, stream);
        return Number(insert.run(runId, stream, at).lastInsertRowid);
      })();
    },
    finish(id, report, api, at) {
      update.run(
        at,
        report.status,
        report.refreshed ? 1 : 0,
        report.rowsRead,
        report.inserted,
        report.updated,
        report.pages,
        api.requests,
        api.retries,
        api.rateLimited,
        report.error ?? null,
        id,
      );
    },
  };
}

/** What the client did between two snapshots of its counters. */
export function statsDelta(after: ApiStats, before: ApiStats): ApiStats {
  return {
    requests: after.requests - before.requests,
    retries: after.retries - before.retries,
    rateLimited: after.rateLimited - before.rateLimited,
    failures: after.failures - before.failures,
  };
}
