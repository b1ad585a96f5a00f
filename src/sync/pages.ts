import { ApiError, describeError } from '../api/errors.js';
import type { ApiClient, ListName } from '../api/client.js';
import { ListEnd } from '../api/listEnd.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import type { Pass } from './types.js';

/** One page of a pass, with the token to checkpoint beside it: where the pass continues, or null when it is over. */
export interface SourcePage {
  items: ApiRecord[];
  /** The page's bytes as the API sent them, for the storage thread. */
  body: Uint8Array;
  next: string | null;
}

export interface SourceOptions {
  client: ApiClient;
  list: ListName | null;
  logger: Logger;
  signal: AbortSignal;
}

/** The pages of `pass` from the checkpointed `cursor` (null: from its start). */
export function passPages(pass: Pass, cursor: string | null, options: SourceOptions): AsyncGenerator<SourcePage> {
  if (pass.kind === 'walk') return walkPages(cursor === null ? 1 : Number(cursor), options);
  if (options.list === null) throw new Error('a list pass needs a list endpoint');
  return listPages(options.list, pass, cursor, options);
}

/**
 * Follows cursors from `cursor`. A cursor the API refuses (a 4xx: expired, or issued by an older
 * deployment) restarts the pass from its stored filters: rows re-read are upserted as unchanged.
 */
async function* listPages(list: ListName, pass: Extract<Pass, { kind: 'list' }>, cursor: string | null, options: SourceOptions): AsyncGenerator<SourcePage> {
  const { client, signal, logger } = options;
  let current = cursor;
  let restarted = false;
  const end = new ListEnd((reason) => new Error(`GET ${list}: ${reason}`));
  for (;;) {
    let page;
    try {
      page = await client.fetchPage<ApiRecord>(list, pass.params, current, { signal });
    } catch (error) {
      if (current === null || restarted || !isCursorRejected(error)) throw error;
      logger.warn({ error: describeError(error), params: pass.params }, 'the API refused the stored cursor; restarting the pass from its filters');
      restarted = true;
      current = null;
      end.restart();
      continue;
    }
    const { next, endedOnEmptyPages } = end.after(page.items, page.nextCursor);
    if (endedOnEmptyPages !== undefined) {
      logger.warn({ params: pass.params, emptyPages: endedOnEmptyPages }, `GET ${list}: ${endedOnEmptyPages} empty pages in a row, each with a new cursor; taking the list as ended`);
    }
    yield { items: page.items, body: page.body, next };
    if (next === null) return;
    current = next;
  }
}

/** The spec does not say how a stale cursor is refused: any 4xx but the credential's own (401, 403) and 429. */
function isCursorRejected(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status === undefined) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403 && error.status !== 429;
}

/**
 * The unsubscribe list by page number; the token is the next page's number. The walk ends on an
 * empty page (the client's rule), and the pass closes when the source runs out.
 */
async function* walkPages(startPage: number, options: SourceOptions): AsyncGenerator<SourcePage> {
  const { client, signal } = options;
  for await (const { items, page, body } of client.unsubscribePages({ startPage, signal })) {
    yield { items, body, next: String(page + 1) };
  }
}

/** Pages fetched ahead of the writer, handed over in groups. */
export interface ReadAhead<T> {
  /** Waits for at least one page and returns every page buffered so far; [] once the source is done. A source failure is thrown after the pages before it. */
  take(): Promise<T[]>;
  /** Stops fetching ahead; the caller's abort signal cancels a request in flight. */
  close(): void;
}

/**
 * Pulls from `source` into a buffer of up to `capacity` pages while the caller stores, so the
 * network does not wait for storage. The caller takes whatever has arrived as one group: several
 * pages when storage fell behind (a commit), single pages while it keeps up.
 */
export function readAhead<T>(source: AsyncIterator<T>, capacity: number): ReadAhead<T> {
  const queue: T[] = [];
  let done = false;
  let closed = false;
  let failure: { error: unknown } | null = null;
  let wakeReader: (() => void) | null = null;
  let wakeFetcher: (() => void) | null = null;
  const notifyReader = (): void => {
    wakeReader?.();
    wakeReader = null;
  };

  void (async () => {
    try {
      while (!closed) {
        if (queue.length >= capacity) {
          await new Promise<void>((resolve) => (wakeFetcher = resolve));
          continue;
        }
        const next = await source.next();
        if (next.done) break;
        queue.push(next.value);
        notifyReader();
      }
    } catch (error) {
      failure = { error };
    }
    done = true;
    notifyReader();
  })();

  return {
    async take() {
      while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wakeReader = resolve));
      if (queue.length === 0) {
        if (failure !== null) throw failure.error;
        return [];
      }
      const taken = queue.splice(0);
      wakeFetcher?.();
      wakeFetcher = null;
      return taken;
    },
    close() {
      closed = true;
      wakeFetcher?.();
      wakeFetcher = null;
    },
  };
}
