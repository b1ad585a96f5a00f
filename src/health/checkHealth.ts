import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { lastExport } from '../export/index.js';
import { formatAge } from '../formatAge.js';
import { readSyncStatus } from '../sync/index.js';
import { OVERDUE_INTERVALS } from '../sync/deepRefreshOverdue.js';
import { readDeepRefreshStatus, type DeepRefreshStatus } from '../sync/deepRefreshStatus.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Jobs named in one finding's line; the rest are counted. */
const JOBS_NAMED = 3;

/** One reason the mirror is unhealthy: what an operator would be paged for. */
export interface HealthFinding {
  kind: 'stale_sync' | 'dead_jobs' | 'unknown_jobs' | 'stale_export' | 'overdue_deep_refresh';
  /** One line for a person, e.g. `dead: 1 job (add_points, job 12: 404 Customer not found)`. */
  message: string;
  /** The stream, for stale_sync and overdue_deep_refresh. */
  stream?: string;
  /** Jobs concerned, for dead_jobs and unknown_jobs. */
  count?: number;
  /** Seconds since the last success, for stale_sync, stale_export and overdue_deep_refresh; null when there never was one. */
  ageSeconds?: number | null;
}

interface JobLine {
  id: number;
  kind: string;
  status: number | null;
  error: string | null;
  since: string;
}

/**
 * What `status --check` alerts on: a configured stream not synced within health.maxSyncAgeMinutes, a
 * dead job, a job unknown for longer than health.maxUnknownAgeHours, (once exports have run) an
 * export older than health.maxExportAgeHours, or none that ever succeeded, and a deep refresh overdue
 * (as LoyaltyDeepRefreshOverdue judges it). No finding means healthy.
 */
export function checkHealth(db: Db, config: Readonly<Config>, now: Date = new Date()): HealthFinding[] {
  const findings: HealthFinding[] = [];
  const { maxSyncAgeMinutes, maxUnknownAgeHours, maxExportAgeHours } = config.health;

  for (const stream of readSyncStatus(db, now).filter((status) => config.sync.streams.includes(status.stream))) {
    if (stream.ageSeconds === null) {
      findings.push({ kind: 'stale_sync', stream: stream.stream, ageSeconds: null, message: `stale sync: ${stream.stream} has never synced successfully` });
    } else if (stream.ageSeconds * 1000 > maxSyncAgeMinutes * MINUTE_MS) {
      findings.push({
        kind: 'stale_sync',
        stream: stream.stream,
        ageSeconds: stream.ageSeconds,
        message: `stale sync: ${stream.stream} last synced ${formatAge(stream.ageSeconds)} ago (limit ${maxSyncAgeMinutes}m)${stream.lastError ? `; last error: ${stream.lastError.message}` : ''}`,
      });
    }
  }

  const dead = jobs(db, `state = 'dead'`, []);
  if (dead.count > 0) findings.push({ kind: 'dead_jobs', count: dead.count, message: `dead: ${plural(dead.count, 'job')} (${describeJobs(dead)})` });

  const unknownBefore = new Date(now.getTime() - maxUnknownAgeHours * HOUR_MS).toISOString();
  const unknown = jobs(db, `state = 'unknown' AND updated_at < ?`, [unknownBefore]);
  if (unknown.count > 0) {
    findings.push({ kind: 'unknown_jobs', count: unknown.count, message: `unknown for over ${maxUnknownAgeHours}h: ${plural(unknown.count, 'job')} (${describeJobs(unknown)})` });
  }

  const exported = lastExport(db);
  if (exported === null) {
    // A mirror that never exported is not unhealthy (a sync-only deployment), but one whose exports all failed is.
    const failed = failedExports(db);
    if (failed.count > 0) {
      findings.push({ kind: 'stale_export', ageSeconds: null, message: `stale export: no export has ever succeeded (${plural(failed.count, 'run')} failed${failed.error ? `; last error: ${failed.error}` : ''})` });
    }
  } else {
    const ageSeconds = Math.max(0, Math.round((now.getTime() - Date.parse(exported.finishedAt)) / 1000));
    if (ageSeconds * 1000 > maxExportAgeHours * HOUR_MS) {
      findings.push({ kind: 'stale_export', ageSeconds, message: `stale export: the last export (${exported.runId}) finished ${formatAge(ageSeconds)} ago (limit ${maxExportAgeHours}h)` });
    }
  }
  for (const deep of readDeepRefreshStatus(db, config.sync, now).filter((status) => status.overdue)) findings.push(overdueDeepRefresh(deep, config.sync.deepRefreshIntervalHours, now));
  return findings;
}

function overdueDeepRefresh(deep: DeepRefreshStatus, intervalHours: number, now: Date): HealthFinding {
  const limit = `limit ${OVERDUE_INTERVALS * intervalHours}h, twice sync.deepRefreshIntervalHours`;
  const ageOf = (at: string): number => Math.max(0, Math.round((now.getTime() - Date.parse(at)) / 1000));
  const error = deep.lastError === null ? '' : `; last error: ${deep.lastError.message}`;
  if (deep.last?.completedAt) {
    const ageSeconds = ageOf(deep.last.completedAt);
    return { kind: 'overdue_deep_refresh', stream: deep.stream, ageSeconds, message: `overdue deep refresh: ${deep.stream} last completed one ${formatAge(ageSeconds)} ago (${limit})${error}` };
  }
  const since = deep.underWay?.startedAt ?? null;
  const running = since === null ? '' : `, and the one under way began ${formatAge(ageOf(since))} ago`;
  return { kind: 'overdue_deep_refresh', stream: deep.stream, ageSeconds: null, message: `overdue deep refresh: ${deep.stream} has never completed one${running} (${limit})${error}` };
}

/** Export runs that failed or were interrupted, and the newest one's error; none in a mirror without exports. */
function failedExports(db: Db): { count: number; error: string | null } {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'export_runs'`).get();
  if (!hasTable) return { count: 0, error: null };
  return db
    .prepare(
      `SELECT count(*) AS count,
              (SELECT error FROM export_runs WHERE status IN ('failed', 'interrupted') ORDER BY started_at DESC, run_id DESC LIMIT 1) AS error
       FROM export_runs WHERE status IN ('failed', 'interrupted')`,
    )
    .get() as { count: number; error: string | null };
}

function jobs(db: Db, where: string, params: unknown[]): { count: number; named: JobLine[] } {
  const count = db.prepare(`SELECT count(*) FROM write_jobs WHERE ${where}`).pluck().get(...params) as number;
  const named = db
    .prepare(`SELECT id, kind, last_status AS status, last_error AS error, updated_at AS since FROM write_jobs WHERE ${where} ORDER BY id LIMIT ${JOBS_NAMED}`)
    .all(...params) as JobLine[];
  return { count, named };
}

function describeJobs({ count, named }: { count: number; named: JobLine[] }): string {
  const lines = named.map((job) => `${job.kind}, job ${job.id}${job.error ? `: ${withStatus(job)}` : ''}`);
  return count > named.length ? `${lines.join('; ')}; and ${count - named.length} more` : lines.join('; ');
}

/** The job's last error, led by its status unless the error already names it ("POST … failed: 404 …"). */
function withStatus(job: JobLine): string {
  if (job.status === null || job.error === null || new RegExp(`\\b${job.status}\\b`).test(job.error)) return job.error ?? '';
  return `${job.status} ${job.error}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
