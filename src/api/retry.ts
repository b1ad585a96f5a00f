import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { Logger } from '../log.js';
import { ApiError, describeError, isRetryable, isUnreachable } from './errors.js';

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
 * attempts it waits for Retry-After when the API sent one, else exponential backoff with full
 * jitter. p-retry's own delay cannot honour Retry-After, so its delay is zero and the wait
 * happens in `shouldRetry`, which also refuses a wait that would overrun `maxElapsedMs`.
 */
export function withRetry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy, logger, signal } = options;
  const started = performance.now();
  return pRetry(attempt, {
    retries: policy.attempts,
    minTimeout: 0,
    maxTimeout: 0,
    maxRetryTime: policy.maxElapsedMs,
    async shouldRetry({ error, attemptNumber }) {
      if (!isRetryable(error) || signal?.aborted) return false;
      const apiError = error as ApiError;
      const delayMs = retryDelayMs(apiError, attemptNumber, policy);
      const budgetMs = isUnreachable(apiError) ? Math.min(policy.maxElapsedMs, UNREACHABLE_RETRY_BUDGET_MS) : policy.maxElapsedMs;
      if (performance.now() - started + delayMs > budgetMs) return false;
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
}

/** Retry-After when given; otherwise a random delay in [min, min·2^attempt], capped at maxDelayMs. */
export function retryDelayMs(error: ApiError, attemptNumber: number, policy: RetryPolicy): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** attemptNumber);
  return Math.round(policy.minDelayMs + Math.random() * Math.max(0, ceiling - policy.minDelayMs));
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110, 10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
