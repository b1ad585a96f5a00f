import type { CursorState, Direction, Filters, SortField } from './cursor.js';
import type { Row } from './model.js';

/** How one stream is paged: the rows in ascending key order, the key, the filter and the text of a row. */
export interface ListView<T extends Row> {
  rows: readonly T[];
  sort: SortField;
  key(row: T): number[];
  matches(row: T, filters: Filters): boolean;
}

export interface PageRequest {
  stream: string;
  dir: Direction;
  back: boolean;
  /** Null: start at the beginning of `dir`. */
  position: number[] | null;
  /** Rows to skip first: the deprecated `page` parameter. */
  offset: number;
  limit: number;
  filters: Filters;
}

export interface Page<T> {
  rows: T[];
  next: CursorState | null;
  prev: CursorState | null;
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/** Index of the first row whose key is greater than `position`. */
function firstAfter<T extends Row>(view: ListView<T>, position: number[]): number {
  let low = 0;
  let high = view.rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(view.key(view.rows[mid]), position) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Index of the last row whose key is less than `position` (-1 when none). */
function lastBefore<T extends Row>(view: ListView<T>, position: number[]): number {
  let low = 0;
  let high = view.rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(view.key(view.rows[mid]), position) < 0) low = mid + 1;
    else high = mid;
  }
  return low - 1;
}

/**
 * Walks rows from `start` in `step` direction, keeping visible rows that match, until `want`
 * are found. On an id-ordered view a since_id filter also bounds the walk, so paging by
 * since_id stays cheap however far into the stream it is.
 */
function scan<T extends Row>(view: ListView<T>, start: number, step: 1 | -1, want: number, skip: number, filters: Filters, tick: number): T[] {
  const found: T[] = [];
  const rows = view.rows;
  let index = start;
  const floorId = view.sort === 'id' && filters.sinceId !== undefined ? filters.sinceId : -1;
  if (step === 1 && floorId >= 0) index = Math.max(index, firstAfter(view, [floorId]));
  for (; index >= 0 && index < rows.length && found.length < want; index += step) {
    const row = rows[index];
    if (step === -1 && row.id <= floorId) break;
    if (row.visibleAt > tick || !view.matches(row, filters)) continue;
    if (skip > 0) skip--;
    else found.push(row);
  }
  return found;
}

function startIndex<T extends Row>(view: ListView<T>, step: 1 | -1, position: number[] | null): number {
  if (position === null) return step === 1 ? 0 : view.rows.length - 1;
  return step === 1 ? firstAfter(view, position) : lastBefore(view, position);
}

function stepOf(dir: Direction): 1 | -1 {
  return dir === 'asc' ? 1 : -1;
}

/** One page and the cursors around it; `next`/`prev` are null when nothing lies that way. */
export function listPage<T extends Row>(view: ListView<T>, request: PageRequest, tick: number): Page<T> {
  const forward = stepOf(request.dir);
  const step = request.back ? (-forward as 1 | -1) : forward;
  const found = scan(view, startIndex(view, step, request.position), step, request.limit + 1, request.offset, request.filters, tick);
  const moreThatWay = found.length > request.limit;
  const rows = found.slice(0, request.limit);
  if (request.back) rows.reverse();
  if (rows.length === 0) return { rows, next: null, prev: null };
  const exists = (from: T, direction: 1 | -1) =>
    scan(view, startIndex(view, direction, view.key(from)), direction, 1, 0, request.filters, tick).length > 0;
  const first = rows[0];
  const last = rows[rows.length - 1];
  // The spec promises only that null means "no more": a full page always offers `next`, so
  // clients meet the empty last page a real service may send.
  const hasNext = request.back ? exists(last, forward) : rows.length === request.limit;
  const hasPrev = request.back ? moreThatWay : exists(first, -forward as 1 | -1);
  const cursor = (back: boolean, row: T): CursorState => ({
    stream: request.stream,
    sort: view.sort,
    dir: request.dir,
    back,
    position: view.key(row),
    filters: request.filters,
    limit: request.limit,
  });
  return { rows, next: hasNext ? cursor(false, last) : null, prev: hasPrev ? cursor(true, first) : null };
}
