import type { Db } from '../db/open.js';
import type { StreamVerifyResult, VerifyMode, VerifyReport } from './types.js';

/** The last verify, as `status` shows it. */
export interface LastVerify {
  startedAt: string;
  finishedAt: string | null;
  mode: VerifyMode;
  repair: boolean;
  status: 'running' | 'succeeded' | 'failed';
  /** True when no difference remained; null while running or when it failed before the end. */
  ok: boolean | null;
  requests: number;
  compared: number;
  /** Missing, extra and stale rows found by the defect class (before any repair). */
  differences: number;
  /** Pending differences found: the sync's next passes bring them (`unsynced` of them at the next sync). */
  pending: number;
  unsynced: number;
  streams: StreamVerifyResult[];
  error: string | null;
}

interface RunRow {
  startedAt: string;
  finishedAt: string | null;
  mode: VerifyMode;
  repair: number;
  status: LastVerify['status'];
  ok: number | null;
  requests: number;
  compared: number;
  differences: number;
  unsynced: number;
  streams: string | null;
  error: string | null;
}

/** `verify_runs`: opens this run's row; returns its id. */
export function startVerifyRun(db: Db, mode: VerifyMode, repair: boolean, at: string): number {
  const sql = "INSERT INTO verify_runs (started_at, mode, repair, status) VALUES (?, ?, ?, 'running')";
  return Number(db.prepare(sql).run(at, mode, repair ? 1 : 0).lastInsertRowid);
}

export function finishVerifyRun(db: Db, id: number, report: VerifyReport, at: string): void {
  const sum = (pick: (stream: StreamVerifyResult) => number): number => report.streams.reduce((total, stream) => total + pick(stream), 0);
  const errors = report.streams.filter((stream) => stream.error !== undefined).map((stream) => `${stream.stream}: ${stream.error}`);
  db.prepare(
    `UPDATE verify_runs SET finished_at = ?, status = ?, requests = ?, ok = ?, compared = ?, differences = ?, unsynced = ?, streams = ?, error = ?
     WHERE id = ?`,
  ).run(
    at,
    errors.length === 0 ? 'succeeded' : 'failed',
    report.requests,
    report.ok ? 1 : 0,
    sum((stream) => stream.compared),
    sum((stream) => stream.defects),
    sum((stream) => stream.unsynced),
    JSON.stringify(report.streams),
    errors.length === 0 ? null : errors.join('; '),
    id,
  );
}

/** A run that ended without a report (an interrupt, a failure of the mirror itself). */
export function failVerifyRun(db: Db, id: number, error: string, at: string): void {
  db.prepare("UPDATE verify_runs SET finished_at = ?, status = 'failed', ok = 0, error = ? WHERE id = ?").run(at, error, id);
}

/** The newest verify run, finished or not; with `finished`, the newest that ended (null when none did). */
export function lastVerify(db: Db, which: 'any' | 'finished' = 'any'): LastVerify | null {
  const row = db
    .prepare(
      `SELECT started_at AS startedAt, finished_at AS finishedAt, mode, repair, status, ok, requests, compared, differences, unsynced, streams, error
       FROM verify_runs ${which === 'finished' ? 'WHERE finished_at IS NOT NULL' : ''} ORDER BY id DESC LIMIT 1`,
    )
    .get() as RunRow | undefined;
  if (row === undefined) return null;
  const streams = row.streams === null ? [] : (JSON.parse(row.streams) as StoredStreamResult[]).map(withClasses);
  return {
    ...row,
    repair: row.repair === 1,
    ok: row.ok === null ? null : row.ok === 1,
    pending: streams.reduce((total, stream) => total + stream.pending.count, 0),
    streams,
  };
}

/**
 * The newest verify run over every one of `streams` (each listed in its result, however many rows its budget let
 * it compare) that finished with none failing, defects found or not, or null: what `once --verify-daily` counts
 * as the day's verify. One of fewer streams, or one cut short, does not. With no stream configured, the once verify
 * compares nothing, and any verify counts.
 */
export function lastCompleteVerify(db: Db, streams: readonly string[]): { finishedAt: string; ok: boolean } | null {
  const runs = db
    .prepare("SELECT finished_at AS finishedAt, ok, streams FROM verify_runs WHERE status = 'succeeded' AND finished_at IS NOT NULL ORDER BY id DESC")
    .iterate() as IterableIterator<{ finishedAt: string; ok: number | null; streams: string | null }>;
  for (const run of runs) {
    const compared = new Set((JSON.parse(run.streams ?? '[]') as Array<{ stream: string }>).map((result) => result.stream));
    if (streams.every((stream) => compared.has(stream))) return { finishedAt: run.finishedAt, ok: run.ok === 1 };
  }
  return null;
}

/** A stream's result as a run recorded it: runs from before issue 25 have no `defects` and no `pending`. */
type StoredStreamResult = Omit<StreamVerifyResult, 'defects' | 'pending'> & Partial<Pick<StreamVerifyResult, 'defects' | 'pending'>>;

/** Before issue 25 every difference was a defect and the unsynced rows were the only pending ones (not listed). */
function withClasses(stream: StoredStreamResult): StreamVerifyResult {
  return {
    ...stream,
    defects: stream.defects ?? stream.missing_count + stream.extra_count + stream.stale_count,
    pending: stream.pending ?? { count: stream.unsynced, rows: [] },
  };
}
