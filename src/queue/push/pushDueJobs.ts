import { describeError } from '../../api/errors.js';
import type { ApiClient } from '../../api/client.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import type { OpsFacts } from '../../metrics/facts.js';
import { claimDueJobs } from '../claimDueJobs.js';
import { getJob } from '../getJob.js';
import { listUnknownJobs } from '../listUnknownJobs.js';
import { attemptLimitMs, recoverStaleJobs } from '../recoverStaleJobs.js';
import { releaseJob } from '../releaseJob.js';
import type { JobKind, WriteJob } from '../types.js';
import { startWorker, stopWorker } from '../worker.js';
import { processJob, reconcileUnknown, type JobOutcome, type PushDeps } from './processJob.js';

/** An `unknown` job is looked at again, for a transaction that became visible late, after this long. */
const RECHECK_UNKNOWN_AFTER_MS = 10 * 60 * 1000;
/** Bounds the reads one push spends on reconciliation. */
const MAX_RECONCILED_PER_RUN = 100;
/** Dead jobs named in the summary line; the rest are counted. */
const DEAD_JOBS_NAMED = 5;

export interface PushOptions {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  logger: Logger;
  /** Abort: claim nothing more; jobs in flight finish and their outcomes commit. */
  signal?: AbortSignal;
  /** The clock for due times and stored timestamps (tests pass a fake one). */
  now?: () => Date;
  /** Told how each job ended; none by default. */
  facts?: Pick<OpsFacts, 'pushJobEnded'>;
  /**
   * Called with the jobs just marked `running`, before any of them is sent: a state kept in a bucket
   * saves that mark there first, so a run killed mid-send leaves them `running` (then `unknown`),
   * never `queued` to be sent again. Throwing stops the push before those jobs are sent.
   */
  beforeSend?: (jobs: readonly WriteJob[]) => Promise<void>;
  /** No worker outside this process can be at work on these jobs (the state's lease is held): jobs left `running` are recovered at once. */
  othersGone?: boolean;
}

export interface PushReport {
  /** Attempts made (jobs claimed and sent, or looked up). */
  sent: number;
  /** Jobs that ended succeeded, including those proved by reconciliation. */
  succeeded: number;
  /** Of those, proved by a lookup rather than by an answer. */
  reconciled: number;
  /** Back to the queue with backoff. */
  retried: number;
  dead: number;
  /** Left unknown for a person (`queue list --state unknown`, `queue retry ID`). */
  unknown: number;
  /** Jobs a gone worker had left running, handled as unclear failures. */
  recovered: number;
  /** Why the push stopped early: the API could not be reached at all; null when it could. */
  unreachable: string | null;
  /** The jobs this push left dead, in the order they ended, with the API's answer. */
  deadJobs: DeadJob[];
}

/** A job that went dead in a push: the API refused it for good, or its attempts ran out. */
export interface DeadJob {
  id: number;
  kind: JobKind;
  /** The last attempt's error as recorded on the job: the API's status and message. */
  error: string;
}

/**
 * Sends every job of the write queue that is due when the push starts, `config.push.concurrency`
 * at a time, one at a time per ordering key and in queue order. First recovers jobs a crashed
 * worker left running and looks again at `unknown` jobs. A job that fails waits for a later push,
 * so a push ends even while the API refuses everything. Returns when nothing is due and nothing is
 * in flight, or after an abort once in-flight jobs are done. Throws `CredentialError` on a 401 (after in-flight jobs finish).
 */
export async function pushDueJobs(options: PushOptions): Promise<PushReport> {
  const workerId = startWorker();
  try {
    return await runPush(options, workerId);
  } finally {
    stopWorker(workerId);
  }
}

async function runPush(options: PushOptions, workerId: string): Promise<PushReport> {
  const now = options.now ?? (() => new Date());
  const logger = options.logger.child({ workerId });
  const deps: PushDeps = {
    db: options.db,
    client: options.client,
    config: options.config,
    logger,
    workerId,
    now,
    unreachable: { error: null },
    rateLimited: { error: null },
    signal: options.signal,
  };
  const report: PushReport = { sent: 0, succeeded: 0, reconciled: 0, retried: 0, dead: 0, unknown: 0, recovered: 0, unreachable: null, deadJobs: [] };

  const recovered = recoverStaleJobs(options.db, { workerId, now: now(), attemptLimitMs: attemptLimitMs(options.config.api), othersGone: options.othersGone });
  report.recovered = recovered.length;
  for (const job of recovered) logger.warn({ jobId: job.id, kind: job.kind }, 'job left running by a worker that is gone; handled as an unclear failure');

  const checkedBefore = new Date(now().getTime() - RECHECK_UNKNOWN_AFTER_MS);
  for (const job of listUnknownJobs(options.db, { checkedBefore, limit: MAX_RECONCILED_PER_RUN })) {
    if (options.signal?.aborted || deps.unreachable.error !== null || deps.rateLimited.error !== null) break;
    if (await reconcileUnknown(deps, job, logger.child({ jobId: job.id, kind: job.kind }))) {
      report.succeeded++;
      report.reconciled++;
      options.facts?.pushJobEnded(job.kind, 'succeeded');
    }
  }

  const startedAt = now();
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const record = (job: WriteJob, outcome: JobOutcome): void => {
    if (outcome === 'reconciled') {
      report.reconciled++;
      report.succeeded++;
    } else report[outcome]++;
    if (outcome === 'dead') report.deadJobs.push({ id: job.id, kind: job.kind, error: getJob(options.db, job.id)?.lastError ?? 'no error was recorded' });
    options.facts?.pushJobEnded(job.kind, outcome === 'reconciled' ? 'succeeded' : outcome);
  };

  for (;;) {
    // Once the API cannot be reached at all, each further job would only wait out its own retries.
    if (failure === undefined && !options.signal?.aborted && deps.unreachable.error === null) {
      const claimed = claimDueJobs(options.db, { workerId, limit: options.config.push.concurrency - inFlight.size, now: now(), dueBy: startedAt });
      if (claimed.length > 0 && options.beforeSend) {
        try {
          await options.beforeSend(claimed);
        } catch (error) {
          failure ??= { error };
          // Not sent: back to the queue here, so this mirror does not show them running for a later push to recover as unclear.
          for (const job of claimed) releaseJob(options.db, { id: job.id, workerId, now: now() });
          claimed.length = 0;
        }
      }
      for (const job of claimed) {
        report.sent++;
        const task: Promise<void> = processJob(deps, job)
          .then((outcome) => record(job, outcome), (error: unknown) => {
            failure ??= { error };
          })
          .finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
  }

  if (failure !== undefined) throw failure.error;
  if (deps.unreachable.error !== null) report.unreachable = describeError(deps.unreachable.error);
  const { deadJobs, ...counts } = report;
  logger[deadJobs.length > 0 ? 'warn' : 'info']({ ...counts, deadJobs: deadJobs.map((job) => job.id) }, summarizePush(report));
  return report;
}

/** One line for the `push` command and the logs, naming the jobs that went dead. */
export function summarizePush(report: PushReport): string {
  const reconciled = report.reconciled > 0 ? ` (${report.reconciled} by reconciliation)` : '';
  const recovered = report.recovered > 0 ? `, ${report.recovered} recovered from a stopped worker` : '';
  return `push: sent ${report.sent}, succeeded ${report.succeeded}${reconciled}, retried ${report.retried}, dead ${report.dead}, unknown ${report.unknown}${recovered}${describeDeadJobs(report.deadJobs)}`;
}

function describeDeadJobs(jobs: readonly DeadJob[]): string {
  if (jobs.length === 0) return '';
  const named = jobs.slice(0, DEAD_JOBS_NAMED).map((job) => `job ${job.id} (${job.kind}): ${job.error}`);
  const more = jobs.length > named.length ? `; and ${jobs.length - named.length} more (queue list --state dead)` : '';
  return `; went dead: ${named.join('; ')}${more}`;
}
