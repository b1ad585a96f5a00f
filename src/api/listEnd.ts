import { RowsSeen } from './rowsSeen.js';

/**
 * Empty pages in a row after which a list ends even though the API still hands out a next cursor. The
 * spec promises only that a null cursor ends a list; a server whose tail cursor changes on every call
 * (one that carries a time, say) would otherwise keep a reader going for ever. One empty page in the
 * middle of a list is followed; three in a row are taken as its end.
 */
export const EMPTY_PAGES_THAT_END_A_LIST = 3;

/**
 * Pages in a row, each with a new cursor, holding only rows this read has already seen, after which it
 * fails: a server that hands out fresh cursors over the same rows would otherwise never let it end. A
 * record updated meanwhile may legitimately come again, but then with a new `updated_at`, which makes it
 * a new row here.
 */
export const REPEATED_PAGES_THAT_FAIL_A_LIST = 5;

/** Where a list goes after a page: the cursor to follow, or null at its end, and why it ended early. */
export interface NextStep {
  next: string | null;
  /** Set when the list was taken as ended although the API handed out a cursor (EMPTY_PAGES_THAT_END_A_LIST). */
  endedOnEmptyPages?: number;
}

/**
 * Decides, page by page, whether a list read by cursors goes on: the rules every reader of a list (the
 * sync's passes, the push's look-ups) follows, so none of them can loop for ever on a server that never
 * hands out a null cursor.
 */
export class ListEnd {
  readonly #followed = new Set<string>();
  #rows = new RowsSeen();
  #emptyInARow = 0;
  #repeatedInARow = 0;

  /** `fail` makes the error for a list that would never end, from the reason; `start` is a cursor already followed. */
  constructor(private readonly fail: (reason: string) => Error, start: string | null = null) {
    if (start !== null) this.#followed.add(start);
  }

  /** The list reads again from its start (a refused cursor): the rows it reads again are rightly read twice. */
  restart(): void {
    this.#rows = new RowsSeen();
    this.#emptyInARow = 0;
    this.#repeatedInARow = 0;
  }

  /** Notes a page and says where the list goes; throws when following its cursor would never end. */
  after(items: readonly unknown[], cursor: string | null): NextStep {
    let next = cursor;
    this.#repeatedInARow = this.#rows.addPage(items) && next !== null ? this.#repeatedInARow + 1 : 0;
    if (this.#repeatedInARow >= REPEATED_PAGES_THAT_FAIL_A_LIST) {
      throw this.fail(`${this.#repeatedInARow} pages in a row came with new cursors but held only rows already read, so the list would never end`);
    }
    if (next !== null && this.#followed.has(next)) {
      // An empty last page that hands back a cursor already followed is an end, however odd;
      // rows with a repeated cursor would loop for ever.
      if (items.length > 0) throw this.fail(`the API returned a cursor it had returned before, so the list would never end`);
      next = null;
    }
    this.#emptyInARow = items.length === 0 ? this.#emptyInARow + 1 : 0;
    if (next !== null && this.#emptyInARow >= EMPTY_PAGES_THAT_END_A_LIST) return { next: null, endedOnEmptyPages: this.#emptyInARow };
    if (next !== null) this.#followed.add(next);
    return { next };
  }
}
