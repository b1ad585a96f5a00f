import type { Db } from '../db/open.js';

/** The export_runs bookkeeping (migration 003), one statement per function. */

export interface StartedRun {
  runId: string;
  kind: 'full' | 'since_last';
  previousRunId: string | null;
  startedAt: string;
  formats: readonly string[];
}

/** Whether a run of this id is recorded already (two runs in one second may draw the same suffix). */
export function isRunIdTaken(db: Db, runId: string): boolean {
  return db.prepare('SELECT 1 FROM export_runs WHERE run_id = ?').get(runId) !== undefined;
}

export function insertRun(db: Db, run: StartedRun): void {
  db.prepare(
    `INSERT INTO export_runs (run_id, kind, previous_run_id, status, pid, started_at, formats)
     VALUES (?, ?, ?, 'running', ?, ?, ?)`,
  ).run(run.runId, run.kind, run.previousRunId, process.pid, run.startedAt, run.formats.join(','));
}

export interface TableOutcome {
  table: string;
  maxChangeSeq: number;
  sinceChangeSeq: number | null;
  rows: number;
}

/** Marks the run succeeded and records each table's high-water mark, in one transaction. */
export function completeRun(db: Db, runId: string, finishedAt: string, snapshotChangeSeq: number, manifestPath: string, files: number, tables: readonly TableOutcome[]): void {
  const addTable = db.prepare('INSERT INTO export_run_tables (run_id, table_name, max_change_seq, since_change_seq, rows) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const table of tables) addTable.run(runId, table.table, table.maxChangeSeq, table.sinceChangeSeq, table.rows);
    db.prepare(
      `UPDATE export_runs SET status = 'succeeded', finished_at = ?, snapshot_change_seq = ?, manifest_path = ?, files = ?, rows = ?
       WHERE run_id = ?`,
    ).run(finishedAt, snapshotChangeSeq, manifestPath, files, tables.reduce((sum, table) => sum + table.rows, 0), runId);
  })();
}

export function failRun(db: Db, runId: string, finishedAt: string, error: string): void {
  db.prepare(`UPDATE export_runs SET status = 'failed', finished_at = ?, error = ? WHERE run_id = ?`).run(finishedAt, error, runId);
}

/**
 * Runs still marked running whose lock no live process holds (runLock.ts) were killed: marks them
 * interrupted. Returns the ids of every failed or interrupted run, whose files must not stay under a
 * final name. Call it before this process starts a run of its own.
 */
export function settleAbandonedRuns(db: Db, now: string, isLive: (runId: string) => boolean): Set<string> {
  const running = db.prepare(`SELECT run_id FROM export_runs WHERE status = 'running'`).pluck().all() as string[];
  const mark = db.prepare(`UPDATE export_runs SET status = 'interrupted', finished_at = ?, error = 'the exporting process ended before the run finished' WHERE run_id = ?`);
  for (const runId of running) {
    if (!isLive(runId)) mark.run(now, runId);
  }
  return new Set(db.prepare(`SELECT run_id FROM export_runs WHERE status IN ('failed', 'interrupted')`).pluck().all() as string[]);
}

export interface Baseline {
  runId: string;
  maxChangeSeq: number;
}

/** Per table: the newest succeeded run that exported it, and the highest _change_seq that run's snapshot held. */
export function baselines(db: Db, tables: readonly string[], target: string | null = null): Map<string, Baseline> {
  // Against a bucket, the base is the newest run that bucket and prefix hold whole: a delta on top of
  // runs that only ever went to disk, or to another target, would leave the loader without the base.
  const published = target === null ? '' : `AND EXISTS (SELECT 1 FROM export_publications p WHERE p.run_id = r.run_id AND p.target = @target AND p.status = 'completed')`;
  const statement = db.prepare(
    `SELECT t.run_id AS runId, t.max_change_seq AS maxChangeSeq
     FROM export_run_tables t JOIN export_runs r ON r.run_id = t.run_id
     WHERE r.status = 'succeeded' AND t.table_name = @table ${published}
       -- A run of Delta tables alone wrote no snapshot file: a loader following the changes never saw it.
       AND (instr(',' || r.formats || ',', ',csv,') > 0 OR instr(',' || r.formats || ',', ',parquet,') > 0)
     ORDER BY r.finished_at DESC, r.run_id DESC LIMIT 1`,
  );
  const found = new Map<string, Baseline>();
  for (const table of tables) {
    const row = statement.get(target === null ? { table } : { table, target }) as Baseline | undefined;
    if (row) found.set(table, row);
  }
  return found;
}

export interface LastExport {
  runId: string;
  finishedAt: string;
  manifestPath: string;
  kind: string;
}

/** The newest succeeded export, for `status`; null when there is none (or the mirror predates exports). */
export function lastExport(db: Db): LastExport | null {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'export_runs'`).get();
  if (!hasTable) return null;
  const row = db
    .prepare(
      `SELECT run_id AS runId, finished_at AS finishedAt, manifest_path AS manifestPath, kind
       FROM export_runs WHERE status = 'succeeded' ORDER BY finished_at DESC, run_id DESC LIMIT 1`,
    )
    .get() as LastExport | undefined;
  return row ?? null;
}
