import { parseHttpDate } from './httpDate.js';

/**
 * The API's clock as its answers' Date headers show it: the latest readable header, carried forward by
 * the time since it arrived, on a monotonic clock (a step of this machine's clock does not move it).
 * The header has whole seconds, cut down, so a reading runs up to a second behind, plus the answer's
 * travel time. Whether to trust it is for the reader to judge: a gateway may send any date.
 */
export class ApiClock {
  #reading: { date: number; receivedAt: number } | undefined;

  /** Notes an answer's Date header. An absent or unreadable one, or two of them, changes nothing. */
  observe(header: string | string[] | undefined): void {
    if (typeof header !== 'string') return;
    const date = parseHttpDate(header.trim());
    if (date !== undefined) this.#reading = { date, receivedAt: performance.now() };
  }

  /** What the API's clock reads now, in ms since 1970; undefined before any answer with a readable Date. */
  now(): number | undefined {
    return this.#reading === undefined ? undefined : this.#reading.date + (performance.now() - this.#reading.receivedAt);
  }
}
