import type { ApiClient } from '../api/client.js';
import { describeError } from '../api/errors.js';
import type { Config } from '../config.js';
import { isDamagedDatabase, mirrorError, type Db } from '../db/open.js';
import { runExport, type ExportTable } from '../export/index.js';
import type { ManifestDeltaTable } from '../export/manifest.js';
import type { Logger } from '../log.js';
import type { StateSession } from '../state/session.js';
import type { OpsFacts } from '../metrics/facts.js';
import { pushDueJobs, summarizePush, type PushReport } from '../queue/index.js';
import { countInboxFiles, importInbox, writeOutbox } from '../state/inbox/index.js';
import { deepRefreshFacts } from './deepRefreshFacts.js';
import { queueFacts } from './queueFacts.js';
import { lastLedgerDefects, lastVerifyFact } from './verifyFacts.js';
import { CREDENTIAL_REFUSED, describeStoppedSync, runSync, UNREACHABLE } from '../sync/index.js';
import { runVerify } from '../verify/index.js';

export type JobName = 'sync' | 'refresh' | 'deepRefresh' | 'push' | 'export' | 'verify';
export const JOB_NAMES: readonly JobName[] = ['sync', 'refresh', 'deepRefresh', 'push', 'export', 'verify'];

/** What a job needs; built once per process and shared by every run of every job. */
export interface WorkerDeps {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  logger: Logger;
  /** Where the jobs tell what they did (metrics); none by default. */
  facts?: OpsFacts;
  /** With `state.url`: the state in the bucket, saved before each send of a write. */
  state?: StateSession;
}

export interface JobOutcome {
  job: JobName;
  ok: boolean;
  /** One line for a person: what the run did, or why it failed. */
  summary: string;
  /**
   * Why the API cannot be used at all (it is unreachable, or it refused the credential): later jobs of
   * the same run that need it are skipped for this reason.
   */
  stopsRun?: string;
}

/** What one run of a job may do beyond its defaults. */
export interface JobOptions {
  /**
   * A sync's walk may mark a mass removal from the unsubscribe list (`once --accept-removals`). `run` never
   * sets it: a standing confirmation would let every future bad answer through.
   */
  acceptRemovals?: boolean;
  /**
   * What stops an export instead of the run's signal: a half-written export is worth nothing, so on
   * SIGTERM the one in flight finishes, and only the shutdown deadline (withWorker's `deadline`) aborts it.
   */
  exportSignal?: AbortSignal;
}

/**
 * One push of the due jobs. With a state in the bucket: the inbox's new files are queued first; each
 * job's `running` mark reaches the bucket before it is sent, and only while the lease is this run's;
 * jobs a previous run left running are recovered at once (no other worker can be at work); and the
 * outcomes of finished inbox files land in the outbox.
 */
export async function pushQueue(deps: WorkerDeps, signal?: AbortSignal, logger: Logger = deps.logger): Promise<PushReport> {
  const state = deps.state;
  if (state === undefined) return pushDueJobs({ ...deps, logger, signal });
  // Right before each write leaves, after any wait: the lease must still cover the request's whole timeout.
  deps.client.writeGuard = () => state.ensureLease(deps.config.api.requestTimeoutMs);
  const now = new Date();
  const inbox = await importInbox(deps.db, state.objects, logger, now);
  deps.facts?.inboxCounted(countInboxFiles(deps.db));
  if (inbox.imported.length + inbox.refused.length > 0) logger.info({ ...inbox }, `inbox: ${inbox.imported.length} file(s) queued (${inbox.queued} job(s)), ${inbox.refused.length} refused`);
  const report = await pushDueJobs({
    ...deps,
    logger,
    signal,
    beforeSend: async () => {
      await state.save();
      await state.ensureLease();
    },
    othersGone: true,
  });
  const outbox = await writeOutbox(deps.db, state.objects, logger);
  if (outbox.written.length > 0) logger.info({ ...outbox }, `outbox: ${outbox.written.length} results file(s) written`);
  return report;
}

/**
 * Runs the job, then, with a state in the bucket, saves what it changed, so a run stopped later
 * (killed, or past its deadline) loses none of it. A save that fails fails the job's outcome.
 */
export async function runJobThenSave(job: JobName, deps: WorkerDeps, signal?: AbortSignal, options: JobOptions = {}): Promise<JobOutcome> {
  const outcome = await runJob(job, deps, signal, options);
  if (deps.state === undefined) return outcome;
  try {
    await deps.state.save();
    return outcome;
  } catch (error) {
    deps.logger.error({ err: error, job }, 'could not save the state to the bucket');
    return { ...outcome, ok: false, summary: `${outcome.summary}; the state could not be saved: ${describeError(error)}` };
  }
}

/** Runs one job once and turns its report, or its failure, into one line. Never throws. */
export async function runJob(job: JobName, deps: WorkerDeps, signal?: AbortSignal, options: JobOptions = {}): Promise<JobOutcome> {
  const logger = deps.logger.child({ job });
  try {
    switch (job) {
      case 'sync':
      case 'refresh':
      case 'deepRefresh': {
        // The deep refresh's progress as the mirror records it, also after a sync that failed part-way.
        const report = await runSync({ ...deps, logger, refresh: job === 'refresh', deep: job === 'deepRefresh', acceptRemovals: options.acceptRemovals, signal }).finally(() =>
          deps.facts?.deepRefreshRead(deepRefreshFacts(deps.db, deps.config.sync.streams)),
        );
        const stopped = describeStoppedSync(report, deps.config.api.baseUrl);
        if (stopped !== null) return { job, ok: false, stopsRun: report.streams.some((s) => s.unreachable) ? UNREACHABLE : CREDENTIAL_REFUSED, summary: `${job}: ${stopped}` };
        const parts = report.streams.map((s) =>
          s.status === 'succeeded' ? `${s.stream} +${s.inserted} ~${s.updated}${s.removed ? ` -${s.removed}` : ''}` : `${s.stream} ${s.status}${s.error ? ` (${s.error})` : ''}`,
        );
        // Every stream may have succeeded: the ledger's failure is what failed the sync, and the line says so.
        const ledger = report.ledgerError === undefined ? '' : `; the points ledger could not be updated: ${report.ledgerError}`;
        return { job, ok: report.ok, summary: `${job}: ${parts.join(', ')}${ledger}` };
      }
      case 'push': {
        const report = await pushQueue(deps, signal, logger);
        deps.facts?.queueCounted(...queueFacts(deps.db));
        const unreachable = report.unreachable === null ? '' : `; stopped: the API at ${deps.config.api.baseUrl} could not be reached (${report.unreachable})`;
        // A job that went dead is a write that will not happen without a person: the run failed.
        const ok = report.unreachable === null && report.deadJobs.length === 0;
        return { job, ok, ...(report.unreachable === null ? {} : { stopsRun: UNREACHABLE }), summary: `${summarizePush(report)}${unreachable}` };
      }
      case 'verify': {
        // Sampled and read-only: a scheduled verify reports, an operator decides on --repair.
        const report = await runVerify({ ...deps, logger, mode: 'sample', requests: deps.config.verify.requests, repair: false, signal }).finally(() => {
          // As the mirror records it, also when the verify failed before its report.
          const verified = deps.facts && lastVerifyFact(deps.db);
          if (verified) deps.facts?.verifyFinished(verified);
          const ledgerDefects = deps.facts ? lastLedgerDefects(deps.db) : null;
          if (ledgerDefects !== null) deps.facts?.ledgerChecked(ledgerDefects);
        });
        const parts = report.streams.map((s) =>
          s.error !== undefined
            ? `${s.stream} failed (${s.error})`
            : `${s.stream} ${s.missing_count}/${s.extra_count}/${s.stale_count} of ${s.compared}${s.pending.count > 0 ? ` (${s.pending.count} pending)` : ''}`,
        );
        // The reconciliation's defects fail a verify too: named here, or a run failed by them alone shows only 0/0/0.
        const { ledger } = report;
        parts.push(`ledger ${ledger.defects.length} defect(s) of ${ledger.customers} customers${ledger.pending.length > 0 ? ` (${ledger.pending.length} pending)` : ''}`);
        const streamsFailed = report.streams.some((s) => s.error !== undefined || s.defects > 0);
        // Pending rows (changed upstream after the pass that re-reads them) come with the sync's next passes: only defects fail.
        const verdict = report.ok ? 'no defects' : streamsFailed ? 'DEFECTS (missing/extra/stale of compared)' : 'LEDGER DEFECTS (balances unequal to the sum of their transactions)';
        return { job, ok: report.ok, summary: `verify: ${verdict}, ${report.requests} requests; ${parts.join(', ')}` };
      }
      case 'export': {
        const report = await runExport({ ...deps, logger, signal: options.exportSignal ?? signal });
        deps.facts?.exportSucceeded({ finishedAt: new Date(), files: [...report.files, ...deltaFacts(report.delta)] });
        const rows = report.files.reduce((sum, file) => sum + file.rows, 0);
        const published = report.publication === null ? '' : `, published to ${report.publication.manifestUrl}`;
        const delta = report.delta.length === 0 ? '' : `, Delta: ${report.delta.filter((table) => table.committed).length} new version(s)`;
        return { job, ok: true, summary: `export: ${report.files.length} files, ${rows} rows, manifest ${report.manifestPath}${delta}${published}` };
      }
    }
  } catch (error) {
    logger.error({ err: error }, `${job} failed`);
    const named = isDamagedDatabase(error) ? mirrorError(deps.config.db.path, error) : error;
    return { job, ok: false, summary: `${job} failed: ${describeError(named)}` };
  }
}

/** Rows and bytes a run's Delta commits wrote, counted once per table (the first place holds what the others do). */
function deltaFacts(tables: readonly ManifestDeltaTable[]): Array<{ table: ExportTable; format: 'delta'; rows: number; bytes: number }> {
  const seen = new Set<string>();
  return tables.flatMap((table) => {
    if (seen.has(table.table)) return [];
    seen.add(table.table);
    return [{ table: table.table, format: 'delta' as const, rows: table.rowsAdded, bytes: table.bytesAdded }];
  });
}
