import type { BucketClient } from './client.js';

/**
 * The store's own clock, read from the `Date` header of its answers. A lease's expiry is judged by
 * it, not by the local clock: two machines with drifting clocks still agree on when a lease ended.
 */
export class StoreClock {
  private storeMs: number | null = null;
  private localAt = 0;

  /** The store's time now: its last `Date` plus the time passed here since; the local clock when the store never sent one. */
  now(): number {
    return this.storeMs === null ? Date.now() : this.storeMs + (performance.now() - this.localAt);
  }

  /** Whether the store has said what time it is (some gateways leave `Date` off). */
  get known(): boolean {
    return this.storeMs !== null;
  }

  heard(dateHeader: string): void {
    const parsed = Date.parse(dateHeader);
    // A gateway's absurd Date (year 1970 or 3000) is no clock to judge a lease by.
    if (!Number.isFinite(parsed) || Math.abs(parsed - Date.now()) > MAX_CREDIBLE_SKEW_MS) return;
    this.storeMs = parsed;
    this.localAt = performance.now();
  }
}

/** A store clock further than this from the local one is not believed (one day). */
const MAX_CREDIBLE_SKEW_MS = 24 * 60 * 60 * 1000;

/** Listens to every answer of `client`'s store, error answers included, for its `Date` header. */
export function trackStoreClock(client: BucketClient): StoreClock {
  const clock = new StoreClock();
  client.s3.middlewareStack.add(
    (next) => async (args) => {
      try {
        const result = await next(args);
        const date = (result.response as { headers?: Record<string, string> }).headers?.date;
        if (date) clock.heard(date);
        return result;
      } catch (error) {
        const date = (error as { $response?: { headers?: Record<string, string> } }).$response?.headers?.date;
        if (date) clock.heard(date);
        throw error;
      }
    },
    { step: 'deserialize', name: 'loyaltyStoreClock', priority: 'low' },
  );
  return clock;
}
