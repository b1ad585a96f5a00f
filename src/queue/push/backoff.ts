import type { Config } from '../../config.js';

/**
 * How long a job waits after its `attempts`-th failed attempt: backoffBaseMs · 2^(attempts−1),
 * capped at backoffMaxMs, with equal jitter (half fixed, half random) so jobs that failed
 * together do not return together; never shorter than the API's Retry-After.
 */
export function backoffMs(attempts: number, policy: Config['push'], retryAfterMs?: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
