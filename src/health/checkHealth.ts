import type { Config } from '../config.js';
import { refusedInboxFiles } from '../state/inbox/inboxCounts.js';
import type { Db } from '../db/open.js';
import { anyExportStarted, configuredPlace, describePlace, failedExports, lastFullExport } from '../export/lastFullExport.js';
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
  kind: 'stale_sync' | 'dead_jobs' | 'unknown_jobs' | 'stale_export' | 'overdue_deep_refresh' | 'refused_inbox_files';
  /** One line for a person, e.g. `dead: 1 job (add_points, job 12: 404 Customer not found)`. */
  message: string;
  /** The stream, for stale_sync and overdue_deep_refresh. */
  stream?: string;
  /** Jobs concerned, for dead_jobs and unknown_jobs; refused files, for refused_inbox_files. */
  count?: number;
  /** Seconds since the last success, for stale_sync, stale_export and overdue_deep_refresh; null when there never was one. */
  ageSeconds?: number | null;
}

/** What `status --check` found: the findings (none when healthy), and what its healthy line says of exports. */
export interface HealthCheck {
  findings: HealthFinding[];
  /** What the healthy line says of exports (`exports current`, `no export yet`), or the export finding. */
  exports: string;
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
 * dead job, a job unknown for longer than health.maxUnknownAgeHours, an export that is due (see
 * checkExports), and a deep refresh overdue (as LoyaltyDeepRefreshOverdue judges it). No finding means healthy.
 */
export function checkHealth(db: Db, config: Readonly<Config>, now: Date = new Date()): HealthCheck {
  const findings: HealthFinding[] = [];
  const { maxSyncAgeMinutes, maxUnknownAgeHours } = config.health;

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

  // A refused inbox file queued nothing: the writes it holds wait for a person to fix it.
  const refused = config.state.url === '' ? [] : refusedInboxFiles(db);
  if (refused.length > 0) {
    findings.push({ kind: 'refused_inbox_files', count: refused.length, message: `refused inbox: ${plural(refused.length, 'file')} queued nothing (${refused.join(', ')}); their problems are in the .errors.txt file beside each` });
  }

  const exports = checkExports(db, config, now);
  if ('due' in exports) findings.push(exports.due);
  for (const deep of readDeepRefreshStatus(db, config.sync, now).filter((status) => status.overdue)) findings.push(overdueDeepRefresh(deep, config.sync.deepRefreshIntervalHours, now));
  return { findings, exports: 'due' in exports ? exports.due.message : exports.healthy };
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


/**
 * The export the config asks for (a full export of every stream table in each of export.formats, at
 * export.url's bucket when set, else in the export folder: what `once --export-daily` makes due) is due
 * when the last one there is older than health.maxExportAgeHours; when there is none yet, once runs
 * there all failed, or, where exports are configured (export.url is set, or this mirror has exported
 * before), once the mirror's first successful sync is that old. A mirror that never exported and has no
 * target is a sync-only deployment: no export is due there.
 */
function checkExports(db: Db, config: Readonly<Config>, now: Date): { due: HealthFinding } | { healthy: string } {
  const { maxExportAgeHours } = config.health;
  const place = configuredPlace(config);
  // The folder is named only when it is not the one place a plain export goes to.
  const to = place.where === 'bucket' ? ` to ${describePlace(place)}` : '';
  const ageOf = (iso: string): number => Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  const overdue = (seconds: number): boolean => seconds * 1000 > maxExportAgeHours * HOUR_MS;

  const last = lastFullExport(db, config.export.formats, place);
  if (last !== null) {
    const ageSeconds = ageOf(last.finishedAt);
    if (!overdue(ageSeconds)) return { healthy: 'exports current' };
    return { due: { kind: 'stale_export', ageSeconds, message: `stale export: the last export${to} (${last.runId}) finished ${formatAge(ageSeconds)} ago (limit ${maxExportAgeHours}h)` } };
  }
  const failed = failedExports(db, place);
  if (failed.count > 0) {
    const message = `stale export: no export${to} has ever succeeded (${plural(failed.count, 'run')} failed${failed.error ? `; last error: ${failed.error}` : ''})`;
    return { due: { kind: 'stale_export', ageSeconds: null, message } };
  }
  const firstSync = firstSuccessfulSync(db);
  const configured = place.where === 'bucket' || anyExportStarted(db);
  if (configured && firstSync !== null && overdue(ageOf(firstSync))) {
    const message = `stale export: no full export of ${config.export.formats.join(', ')}${to} yet, and the mirror first synced ${formatAge(ageOf(firstSync))} ago (limit ${maxExportAgeHours}h)`;
    return { due: { kind: 'stale_export', ageSeconds: null, message } };
  }
  return { healthy: `no export${to} yet` };
}

function firstSuccessfulSync(db: Db): string | null {
  return db.prepare(`SELECT min(finished_at) FROM sync_runs WHERE status = 'succeeded'`).pluck().get() as string | null;
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
