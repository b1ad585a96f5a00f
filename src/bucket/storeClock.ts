import type { BucketClient } from './client.js';

/**
 * The store's own clock, read from the `Date` header of its answers. A lease's expiry is judged by
 * it, not by the local clock: two machines with drifting clocks still agree on when a lease ended.
 * Without a usable `Date` (none sent, or one far from the local clock) no clock is trusted to say a
 * lease ran out: `usable` is false and `unusableBecause` says why.
 */
export class StoreClock {
  private storeMs: number | null = null;
  private localAt = 0;
  private roundTripMs = 0;
  private refusedDate: string | null = null;
  private answers = 0;

  /** The store's time now: its last `Date` plus the time passed here since; the local clock while it has given none. */
  now(): number {
    return this.storeMs === null ? Date.now() : this.storeMs + (performance.now() - this.localAt);
  }

  /** Whether the store has said credibly what time it is (some gateways leave `Date` off). */
  get usable(): boolean {
    return this.storeMs !== null;
  }

  /** Why no store time is known, as a clause ("the store at … sends no Date header"); null when it is. */
  get unusableBecause(): string | null {
    if (this.storeMs !== null) return null;
    if (this.refusedDate !== null) return `the store's Date header (${this.refusedDate}) is more than a day from this machine's clock (one of the two is wrong)`;
    return this.answers === 0 ? 'the store has not answered yet' : 'the store sends no Date header';
  }

  /**
   * How far the store's time may be ahead of `now()`: its Date counts whole seconds, and was stamped at
   * some moment between sending the request and receiving the answer that carried it.
   */
  get uncertaintyMs(): number {
    return DATE_RESOLUTION_MS + this.roundTripMs;
  }

  /** An answer arrived now to a request sent at `sentAt` (performance.now()), with this `Date` header, if any. */
  heard(dateHeader: string | undefined, sentAt: number): void {
    this.answers += 1;
    if (dateHeader === undefined || dateHeader === '') return;
    const parsed = Date.parse(dateHeader);
    if (!Number.isFinite(parsed)) return;
    // A gateway's absurd Date (year 1970 or 3000), or a machine whose clock is a day off: neither is a clock to judge a lease by.
    if (Math.abs(parsed - Date.now()) > MAX_CREDIBLE_SKEW_MS) {
      this.refusedDate = dateHeader;
      return;
    }
    const arrived = performance.now();
    this.storeMs = parsed;
    this.localAt = arrived;
    this.roundTripMs = Math.max(0, arrived - sentAt);
  }
}

/** The Date header's resolution: whole seconds. */
const DATE_RESOLUTION_MS = 1000;

/** A store clock further than this from the local one is not believed (one day). */
const MAX_CREDIBLE_SKEW_MS = 24 * 60 * 60 * 1000;

/** Listens to every answer of `client`'s store, error answers included, for its `Date` header. */
export function trackStoreClock(client: BucketClient): StoreClock {
  const clock = new StoreClock();
  client.s3.middlewareStack.add(
    (next) => async (args) => {
      const sentAt = performance.now();
      try {
        const result = await next(args);
        clock.heard((result.response as { headers?: Record<string, string> }).headers?.date, sentAt);
        return result;
      } catch (error) {
        const response = (error as { $response?: { headers?: Record<string, string> } }).$response;
        if (response !== undefined) clock.heard(response.headers?.date, sentAt);
        throw error;
      }
    },
    { step: 'deserialize', name: 'loyaltyStoreClock', priority: 'low' },
  );
  return clock;
}
