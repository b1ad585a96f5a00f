import { MAX_TIMER_MS } from './maxTimer.js';

const SECOND = 1000;
/**
 * Share of the rate kept during the slowdown after a 429. A gentle cut: one stray 429 (a burst
 * that met the server's bucket a few milliseconds early) should not cost a tenth of a minute's
 * throughput, while a sustained limit still gets one Retry-After pause per 429 on top of it.
 */
const SLOWDOWN_FACTOR = 0.75;

export interface RateLimiterOptions {
  requestsPerSecond: number;
  /** Tokens that may be spent at once after an idle spell. */
  burst: number;
  /** How long the rate stays reduced after a 429. */
  slowdownAfter429Ms: number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * A token bucket shared by every request of the process, pull and push alike. Waiters are
 * served first come, first served. After a 429 it sends nothing until Retry-After has
 * elapsed, then runs at three quarters of its rate for `slowdownAfter429Ms` before recovering, so a throttled
 * run backs off instead of hammering the API.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #slowdownMs: number;
  #tokens: number;
  #refilledAt = performance.now();
  #slowUntil = 0;
  #blockedUntil = 0;
  #queue: Waiter[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RateLimiterOptions) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be > 0');
    if (!(options.burst >= 1)) throw new RangeError('burst must be >= 1');
    this.#rate = options.requestsPerSecond;
    this.#burst = options.burst;
    this.#slowdownMs = Math.max(0, options.slowdownAfter429Ms);
    this.#tokens = options.burst;
  }

  /** Resolves when one request may be sent; rejects with the signal's reason if aborted first. */
  acquire(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.#queue = this.#queue.filter((w) => w !== waiter);
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  /**
   * Records a 429: no request leaves before `retryAfterMs`, and the rate is reduced for a while. The
   * caller caps the pause (`limiterPauseMs`): this one is honoured whatever its length, without polling.
   */
  note429(retryAfterMs?: number): void {
    const pauseMs = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
    const now = performance.now();
    this.#refill(now);
    this.#tokens = 0;
    this.#slowUntil = now + pauseMs + this.#slowdownMs;
    if (pauseMs > 0) this.#blockedUntil = Math.max(this.#blockedUntil, now + pauseMs);
    this.#pump();
  }

  #currentRate(now: number): number {
    return now < this.#slowUntil ? this.#rate * SLOWDOWN_FACTOR : this.#rate;
  }

  #refill(now: number): void {
    const from = Math.max(this.#refilledAt, this.#blockedUntil);
    if (now > from) this.#tokens = Math.min(this.#burst, this.#tokens + ((now - from) * this.#currentRate(now)) / SECOND);
    this.#refilledAt = Math.max(this.#refilledAt, now);
  }

  #pump(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const now = performance.now();
    this.#refill(now);
    while (this.#queue.length > 0 && now >= this.#blockedUntil && this.#tokens >= 1) {
      this.#tokens -= 1;
      const waiter = this.#queue.shift() as Waiter;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
    }
    if (this.#queue.length === 0) return;
    const untilUnblocked = this.#blockedUntil - now;
    const untilToken = ((1 - this.#tokens) * SECOND) / this.#currentRate(now);
    // The timer keeps the process alive on purpose: a waiting request is work in progress. A wait
    // longer than a timer can hold takes several timers, each as long as one can be.
    const waitMs = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(Math.max(untilUnblocked, untilToken))));
    this.#timer = setTimeout(() => this.#pump(), waitMs);
  }
}
