import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { Logger } from '../log.js';
import { ApiError, describeError, isRetryable, isUnreachable } from './errors.js';
import { parseHttpDate } from './httpDate.js';
import { MAX_TIMER_MS } from './maxTimer.js';

export interface RetryPolicy {
  /** Retries after the first attempt (0: try once). */
  attempts: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt, nor would end after it. */
  maxElapsedMs: number;
}

/**
 * An API that cannot be reached at all gets this long to come back (a restart), not the full
 * maxElapsedMs: retrying a closed port for minutes per request only delays the failure.
 */
export const UNREACHABLE_RETRY_BUDGET_MS = 8_000;

export interface RetryOptions {
  policy: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal;
  onRetry?: (error: ApiError) => void;
}

/**
 * Runs `attempt` until it succeeds or fails with an error `isRetryable` refuses. Between
 * attempts it waits for Retry-After when the API sent one (at most maxDelayMs), else exponential
 * backoff with full jitter. p-retry's own delay cannot honour Retry-After, so its delay is zero and
 * the wait happens in `shouldRetry`, which also refuses a wait that would overrun `maxElapsedMs`.
 * An API whose Retry-After asks for more than the budget has left is not waited for at all: the
 * call fails at once with an error naming that Retry-After.
 */
export function withRetry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy, logger, signal } = options;
  const started = performance.now();
  let askedTooMuch: { error: ApiError; leftMs: number } | undefined;
  const retried = pRetry(attempt, {
    retries: policy.attempts,
    minTimeout: 0,
    maxTimeout: 0,
    maxRetryTime: policy.maxElapsedMs,
    async shouldRetry({ error, attemptNumber }) {
      if (!isRetryable(error) || signal?.aborted) return false;
      const apiError = error as ApiError;
      const budgetMs = isUnreachable(apiError) ? Math.min(policy.maxElapsedMs, UNREACHABLE_RETRY_BUDGET_MS) : policy.maxElapsedMs;
      const leftMs = budgetMs - (performance.now() - started);
      if (apiError.retryAfterMs !== undefined && apiError.retryAfterMs > leftMs) {
        askedTooMuch = { error: apiError, leftMs };
        return false;
      }
      const delayMs = retryDelayMs(apiError, attemptNumber, policy);
      if (delayMs > leftMs) return false;
      logger.warn(
        { method: apiError.method, path: apiError.path, status: apiError.status, code: apiError.code, attempt: attemptNumber, delayMs },
        `retrying after: ${describeError(apiError)}`,
      );
      options.onRetry?.(apiError);
      try {
        await sleep(delayMs, undefined, { signal });
        return true;
      } catch {
        return false;
      }
    },
  });
  return retried.catch((error: unknown) => {
    if (askedTooMuch === undefined || error !== askedTooMuch.error) throw error;
    throw retryAfterBeyondBudget(askedTooMuch.error, askedTooMuch.leftMs);
  });
}

/**
 * The failure of a call whose API asked, through Retry-After, for a longer wait than its retry budget
 * has left. It stays retryable: a later run may find the API willing again.
 */
function retryAfterBeyondBudget(error: ApiError, leftMs: number): ApiError {
  const asked = seconds(error.retryAfterMs ?? 0);
  const left = seconds(Math.max(0, leftMs));
  return new ApiError({
    kind: 'retryable',
    method: error.method,
    path: error.path,
    status: error.status,
    code: error.code,
    apiMessage: error.apiMessage,
    retryAfterMs: error.retryAfterMs,
    reason: `the API's Retry-After asks for a wait of ${asked} s, longer than the ${left} s left of the retry budget (api.retry.maxElapsedMs)`,
    cause: error,
  });
}

function seconds(ms: number): string {
  return String(Math.ceil(ms / 1000));
}

/** Retry-After when given, at most maxDelayMs; otherwise a random delay in [min, min·2^attempt], capped at maxDelayMs. */
export function retryDelayMs(error: ApiError, attemptNumber: number, policy: RetryPolicy): number {
  if (error.retryAfterMs !== undefined) return honouredRetryAfterMs(error.retryAfterMs, policy);
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** attemptNumber);
  return Math.round(policy.minDelayMs + Math.random() * Math.max(0, ceiling - policy.minDelayMs));
}

/**
 * The wait given to a Retry-After: at most maxDelayMs (and never past what a timer can hold). A
 * gateway's `Retry-After: 315360000` must not park a worker for ten years.
 */
export function honouredRetryAfterMs(retryAfterMs: number, policy: Pick<RetryPolicy, 'maxDelayMs'>): number {
  return Math.max(0, Math.min(retryAfterMs, policy.maxDelayMs, MAX_TIMER_MS));
}

/**
 * How long the process-wide limiter pauses every request after a 429: the honoured Retry-After,
 * but nothing when the API asks for more than a whole retry budget. Every caller that hears such an
 * answer gives up rather than waits, and pausing the rest of the process for it would only hold up
 * calls to endpoints that may well answer.
 */
export function limiterPauseMs(retryAfterMs: number | undefined, policy: Pick<RetryPolicy, 'maxDelayMs' | 'maxElapsedMs'>): number | undefined {
  if (retryAfterMs === undefined) return undefined;
  return retryAfterMs > policy.maxElapsedMs ? 0 : honouredRetryAfterMs(retryAfterMs, policy);
}

const DELAY_SECONDS = /^\s*\d+(\.\d+)?\s*$/;

/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110, 10.2.3), as milliseconds from `now`
 * (the answer's own Date, by the caller). Anything else (a negative number, garbage) is no Retry-After at all. A number too large to mean
 * anything still comes back finite, so that the waits derived from it stay numbers.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (DELAY_SECONDS.test(text)) return Math.min(Math.round(Number(text) * 1000), Number.MAX_SAFE_INTEGER);
  const date = parseHttpDate(text);
  // A date already past says nothing of how long to wait (clocks disagree): the usual backoff does.
  return date === undefined || date <= now ? undefined : Math.min(date - now, Number.MAX_SAFE_INTEGER);
}
