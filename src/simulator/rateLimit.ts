import { SECOND } from './time.js';
import type { RateLimit } from './types.js';

/** Token bucket on the wall clock: `burst` requests at once, refilled at `requestsPerSecond`. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limit: RateLimit,
    now: number,
  ) {
    this.tokens = limit.burst;
    this.last = now;
  }

  /** 0 when the request may pass; otherwise the whole seconds to wait (at least 1), for Retry-After. */
  take(now: number): number {
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.last) / SECOND) * this.limit.requestsPerSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.limit.requestsPerSecond));
  }
}

/** Checks a limit that may come from JSON over the control route. */
export function validateRateLimit(limit: { requestsPerSecond?: unknown; burst?: unknown }): RateLimit {
  const { requestsPerSecond, burst } = limit;
  if (typeof requestsPerSecond !== 'number' || !Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) {
    throw new RangeError(`rateLimit.requestsPerSecond must be a positive number, got ${JSON.stringify(requestsPerSecond)}`);
  }
  if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1) throw new RangeError(`rateLimit.burst must be an integer >= 1, got ${JSON.stringify(burst)}`);
  return { requestsPerSecond, burst };
}
