import { ApiError, describeError, isUnreachable, leftUntouched } from '../../api/errors.js';
import { UnsentWriteError, type ApiClient } from '../../api/client.js';
import { honouredRetryAfterMs } from '../../api/retry.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { completeJob } from '../completeJob.js';
import { failJob } from '../failJob.js';
import { markChecked } from '../markChecked.js';
import { markUnknown } from '../markUnknown.js';
import { releaseJob } from '../releaseJob.js';
import type { WriteJob } from '../types.js';
import { backoffMs } from './backoff.js';
import { reconcileCredit } from './reconcile.js';
import { sendJob } from './sendJob.js';

export interface PushDeps {
  db: Db;
  client: ApiClient;
  config: Readonly<Config>;
  logger: Logger;
  workerId: string;
  now: () => Date;
  /** Set by the first job that found the API unreachable at all: the push then claims nothing more. */
  unreachable: { error: ApiError | null };
  /**
   * Set by the first look-up of an unknown job that the API kept rate limiting past the client's retries: the
   * push looks up no more unknown jobs this time (each would wait out the same storm), and still sends.
   */
  rateLimited: { error: ApiError | null };
  /** The push's stop: look-ups of unknown jobs are reads, safe to abandon at once. */
  signal?: AbortSignal;
}

/** What became of one claimed job; `reconciled`: proved succeeded by a lookup after an unclear failure. */
export type JobOutcome = 'succeeded' | 'reconciled' | 'retried' | 'dead' | 'unknown';

type Failure = { id: number; workerId: string; status: number | null; message: string; code: string | null };

/** The API refused the credential: no job can succeed, so the push stops (exit 1) without touching the job. */
export class CredentialError extends Error {
  override readonly name = 'CredentialError';
}

/** What the API's answer proved about a job: it was applied (a 2xx, or the order found), or it was not (a 429, a 4xx, never sent). */
type KnownOutcome = { applied: true; status: number | null; response: string } | { applied: false };

/**
 * Sends one job claimed by this worker and records its outcome. A local failure once the answer is
 * known (the database, a bug) must not leave the job `running`: the next push would take it for a
 * write whose fate is unknown. The answer is then recorded in its simplest form before the failure goes on.
 */
export async function processJob(deps: PushDeps, job: WriteJob): Promise<JobOutcome> {
  const logger = deps.logger.child({ jobId: job.id, kind: job.kind });
  const answer: { known?: KnownOutcome } = {};
  try {
    return await sendAndRecord(deps, job, logger, answer);
  } catch (error) {
    // A refused credential is no local failure: handleFailure has already put the job back.
    if (answer.known !== undefined && !(error instanceof CredentialError)) recordKnownOutcome(deps, job, answer.known, error, logger);
    throw error;
  }
}

async function sendAndRecord(deps: PushDeps, job: WriteJob, logger: Logger, answer: { known?: KnownOutcome }): Promise<JobOutcome> {
  try {
    if (job.kind === 'create_order' && job.inDoubt) {
      // An earlier attempt may have created it: look before sending again.
      const order = await deps.client.getOrder(String(job.payload.merchant_id), { retry: false });
      if (order !== null) {
        answer.known = { applied: true, status: null, response: JSON.stringify({ found_by_lookup: order }) };
        completeJob(deps.db, { id: job.id, workerId: deps.workerId, ...answer.known, now: deps.now() });
        logger.info('order found by merchant_id after an unclear attempt; not sent again');
        return 'reconciled';
      }
    }
    const result = await sendJob(deps.client, job);
    answer.known = { applied: true, ...result };
    completeJob(deps.db, { id: job.id, workerId: deps.workerId, ...result, now: deps.now() });
    return 'succeeded';
  } catch (error) {
    if (error instanceof UnsentWriteError) {
      // Never sent: back to the queue as it was, and the reason (a lost lease) stops the push.
      releaseJob(deps.db, { id: job.id, workerId: deps.workerId, now: deps.now() });
      throw error.cause;
    }
    if (!(error instanceof ApiError)) throw error;
    // A 4xx refused the write as surely as a 429 deferred it; a 5xx or a lost answer to a POST proves nothing.
    if (leftUntouched(error) || error.kind === 'permanent') answer.known = { applied: false };
    return handleFailure(deps, job, error, logger);
  }
}

/**
 * After a local failure: succeeded for a write the API applied, back to the queue (no attempt counted)
 * for one it did not. A no-op when the outcome was already recorded; if this fails too, the job stays
 * `running` and the next push handles it as an unclear failure.
 */
function recordKnownOutcome(deps: PushDeps, job: WriteJob, known: KnownOutcome, failure: unknown, logger: Logger): void {
  logger.error({ err: failure }, 'recording the outcome of the job failed; recording it again without its details');
  try {
    const now = deps.now();
    if (known.applied) completeJob(deps.db, { id: job.id, workerId: deps.workerId, status: known.status, response: known.response, now });
    else releaseJob(deps.db, { id: job.id, workerId: deps.workerId, now });
  } catch (error) {
    logger.error({ err: error }, 'the job could not be recorded; the next push handles it as an unclear failure');
  }
}

async function handleFailure(deps: PushDeps, job: WriteJob, error: ApiError, logger: Logger): Promise<JobOutcome> {
  const failure: Failure = { id: job.id, workerId: deps.workerId, status: error.status ?? null, message: describeError(error), code: error.code ?? null };
  if (error.status === 401) {
    releaseJob(deps.db, { ...failure, now: deps.now() });
    throw new CredentialError(describeError(error), { cause: error });
  }
  if (error.kind === 'permanent') {
    if (job.kind === 'create_order' && job.inDoubt) return settleRefusedOrder(deps, job, failure, logger);
    failJob(deps.db, { ...failure, retryAt: null, inDoubt: false, now: deps.now() });
    logger.warn({ status: error.status, code: error.code }, `dead: ${failure.message}`);
    return 'dead';
  }
  const ambiguous = error.kind === 'ambiguous';
  if (ambiguous && (job.kind === 'add_points' || job.kind === 'claim_reward')) return settleUnknownCredit(deps, job, failure, logger);
  const now = deps.now();
  // Rate limits and an unreachable API only delay a job, and are not counted as attempts: nothing was
  // done with it, and giving up would leave every queued write dead after a few minutes' outage, for
  // someone to requeue by hand.
  const untouched = leftUntouched(error);
  if (isUnreachable(error)) deps.unreachable.error ??= error;
  if (job.attempts >= deps.config.push.maxAttempts && !untouched) {
    // An order whose last attempt may have landed is not dead: only a lookup can tell.
    if (job.kind === 'create_order' && (ambiguous || job.inDoubt)) {
      markUnknown(deps.db, { ...failure, now });
      return 'unknown';
    }
    failJob(deps.db, { ...failure, retryAt: null, inDoubt: ambiguous, now });
    logger.warn({ attempts: job.attempts }, `dead after ${job.attempts} attempts: ${failure.message}`);
    return 'dead';
  }
  // A Retry-After is honoured up to api.retry.maxDelayMs, like the client's own retries: a gateway asking
  // for ten years must not park the job (nor overflow the date). At least a millisecond on: a job retried
  // is due after the push that failed it began, so it waits for the next push.
  const retryAfterMs = error.retryAfterMs === undefined ? undefined : honouredRetryAfterMs(error.retryAfterMs, deps.config.api.retry);
  const retryAt = new Date(now.getTime() + Math.max(1, backoffMs(job.attempts, deps.config.push, retryAfterMs)));
  failJob(deps.db, { ...failure, retryAt, inDoubt: ambiguous, untouched, now });
  logger.debug({ attempts: job.attempts, retryAt: retryAt.toISOString() }, `will retry: ${failure.message}`);
  return 'retried';
}

/**
 * An order that may already exist was refused on resend (a duplicate, if it became visible only
 * after the lookup before sending): one more lookup settles it when it finds the order. Otherwise a
 * refusal a duplicate could give (409, 422: the spec shows no error that tells a duplicate apart)
 * leaves it unknown, looked up again by later pushes, as an order the API lists late; any other (a
 * missing scope, a malformed request) is the resend's own, and the job is dead.
 */
async function settleRefusedOrder(deps: PushDeps, job: WriteJob, failure: Failure, logger: Logger): Promise<JobOutcome> {
  let order;
  try {
    order = await deps.client.getOrder(String(job.payload.merchant_id));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    markUnknown(deps.db, { ...failure, now: deps.now() });
    return 'unknown';
  }
  if (order !== null) {
    completeJob(deps.db, { id: job.id, workerId: deps.workerId, status: null, response: JSON.stringify({ found_by_lookup: order }), now: deps.now() });
    logger.info('order refused as a resend but found by merchant_id: the earlier attempt created it');
    return 'reconciled';
  }
  if (failure.status !== 409 && failure.status !== 422) {
    failJob(deps.db, { ...failure, retryAt: null, inDoubt: false, now: deps.now() });
    logger.warn(`dead: ${failure.message}`);
    return 'dead';
  }
  markUnknown(deps.db, { ...failure, message: `${failure.message} (an earlier attempt may have created it; not found by merchant_id yet)`, now: deps.now() });
  logger.warn(`outcome unknown: refused on resend, and an earlier attempt may have created it: ${failure.message}`);
  return 'unknown';
}

/** Points and claims are never resent blindly: `unknown` is committed first, then proof is sought. */
async function settleUnknownCredit(deps: PushDeps, job: WriteJob, failure: Failure, logger: Logger): Promise<JobOutcome> {
  const now = deps.now();
  markUnknown(deps.db, { ...failure, now });
  logger.warn(`outcome unknown, not resent: ${failure.message}`);
  return (await reconcileUnknown(deps, { ...job, state: 'unknown', updatedAt: now.toISOString() }, logger)) ? 'reconciled' : 'unknown';
}

/**
 * Tries to prove an `unknown` job's outcome: orders by looking them up, points and claims from
 * the customer's transactions. True when the job is now `succeeded`. A failed lookup leaves it
 * as it was; the next push looks again.
 */
export async function reconcileUnknown(deps: PushDeps, job: WriteJob, logger: Logger): Promise<boolean> {
  try {
    if (job.kind === 'create_order') {
      const order = await deps.client.getOrder(String(job.payload.merchant_id), { signal: deps.signal });
      if (order !== null) return completeJob(deps.db, { id: job.id, workerId: null, status: null, response: JSON.stringify({ found_by_lookup: order }), now: deps.now() });
    } else if (job.kind === 'add_points' || job.kind === 'claim_reward') {
      const proof = await reconcileCredit(deps, job);
      if (proof.proved) {
        logger.info({ transactionId: proof.transaction.id }, 'outcome proved by the customer\'s transactions');
        return completeJob(deps.db, { id: job.id, workerId: null, status: null, response: JSON.stringify({ proved_by_transaction: proof.transaction }), now: deps.now() });
      }
      logger.info(`outcome still unknown: ${proof.reason}`);
    }
    markChecked(deps.db, job.id, deps.now());
  } catch (error) {
    if (deps.signal?.aborted) return false;
    if (!(error instanceof ApiError)) throw error;
    if (isUnreachable(error)) deps.unreachable.error ??= error;
    if (error.status === 429) deps.rateLimited.error ??= error;
    logger.warn(`could not reconcile: ${describeError(error)}`);
  }
  return false;
}
