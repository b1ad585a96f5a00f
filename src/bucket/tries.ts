import { setTimeout as sleep } from 'node:timers/promises';

/** The first wait between tries; it doubles each time (250 ms, 500 ms, 1 s, …). */
const FIRST_WAIT_MS = 250;

/**
 * Tries `request` up to `tries` times while `again` says the failure may pass. For what the SDK's own
 * retries do not cover: a body cut off after the headers came, per-key errors inside a 200 answer, or a
 * store whose reads lag behind its writes.
 */
export async function withTries<T>(tries: number, again: (error: unknown) => boolean, request: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request();
    } catch (error) {
      if (attempt >= tries || !again(error)) throw error;
      await sleep(FIRST_WAIT_MS * 2 ** (attempt - 1));
    }
  }
}

/** Polls `read` until `done(value)` holds or the tries are spent, and returns the last value read. */
export async function readUntil<T>(tries: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const value = await read();
    if (done(value) || attempt >= tries) return value;
    await sleep(FIRST_WAIT_MS * 2 ** (attempt - 1));
  }
}
