import { ApiError, describeError } from '../api/errors.js';
import type { ApiClient, ListName } from '../api/client.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import { RowsSeen } from './rowsSeen.js';
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
 * Empty pages in a row after which a pass ends even though the API still hands out a next cursor. The
 * spec promises only that a null cursor ends a list; a server whose tail cursor changes on every call
 * (one that carries a time, say) would otherwise keep a sync running for ever. One empty page in the
 * middle of a list is followed; three in a row are taken as its end.
 */
const EMPTY_PAGES_THAT_END_A_PASS = 3;

/**
 * Pages in a row, each with a new cursor, holding only rows this pass has already read, after which the
 * pass fails: a server that hands out fresh cursors over the same rows would otherwise never let it end.
 * A record updated while the pass runs may legitimately come again, but then with a new `updated_at`,
 * which makes it a new row here.
 */
const REPEATED_PAGES_THAT_FAIL_A_PASS = 5;

/**
 * Follows cursors from `cursor`. A cursor the API refuses (a 4xx: expired, or issued by an older
 * deployment) restarts the pass from its stored filters: rows re-read are upserted as unchanged.
 */
async function* listPages(list: ListName, pass: Extract<Pass, { kind: 'list' }>, cursor: string | null, options: SourceOptions): AsyncGenerator<SourcePage> {
  const { client, signal, logger } = options;
  let current = cursor;
  let restarted = false;
  const seen = new Set<string>();
  let rows = new RowsSeen();
  let emptyInARow = 0;
  let repeatedInARow = 0;
  for (;;) {
    let page;
    try {
      page = await client.fetchPage<ApiRecord>(list, pass.params, current, { signal });
    } catch (error) {
      if (current === null || restarted || !isCursorRejected(error)) throw error;
      logger.warn({ error: describeError(error), params: pass.params }, 'the API refused the stored cursor; restarting the pass from its filters');
      restarted = true;
      current = null;
      // The restarted pass reads its rows again, rightly.
      rows = new RowsSeen();
      continue;
    }
    let next = page.nextCursor;
    repeatedInARow = rows.addPage(page.items) && next !== null ? repeatedInARow + 1 : 0;
    if (repeatedInARow >= REPEATED_PAGES_THAT_FAIL_A_PASS) {
      throw new Error(`GET ${list}: ${repeatedInARow} pages in a row came with new cursors but held only rows this pass had already read, so the list would never end`);
    }
    if (next !== null && seen.has(next)) {
      // An empty last page that hands back a cursor already followed is an end, however odd;
      // rows with a repeated cursor would loop forever.
      if (page.items.length > 0) throw new Error(`GET ${list}: the API returned a cursor it had returned before, so the list would never end`);
      next = null;
    }
    emptyInARow = page.items.length === 0 ? emptyInARow + 1 : 0;
    if (next !== null && emptyInARow >= EMPTY_PAGES_THAT_END_A_PASS) {
      logger.warn({ params: pass.params, emptyPages: emptyInARow }, `GET ${list}: ${emptyInARow} empty pages in a row, each with a new cursor; taking the list as ended`);
      next = null;
    }
    if (next !== null) seen.add(next);
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
