import { decodeCursor, encodeCursor } from '../cursor.js';
import type { CursorState, Direction, Filters, SortField } from '../cursor.js';
import type { Reply } from '../http.js';
import { listPage } from '../listing.js';
import type { PageRequest } from '../listing.js';
import type { Row } from '../model.js';
import { QueryReader } from '../params.js';
import type { Store } from '../store.js';
import type { StreamDef } from '../streams.js';
import type { PageOrder } from '../types.js';

const MAX_PAGE_SIZE = 500; // spec part 8: limit 1 to 500
const ANY = Number.MAX_SAFE_INTEGER;

/** The parts of a stream's declaration that do not depend on its row type. */
type StreamShape = Pick<StreamDef<Row>, 'filterParams' | 'sortable' | 'defaultLimit'>;

function readFilters(def: StreamShape, query: QueryReader): Filters {
  const filters: Filters = { sinceId: query.integer('since_id', 0, ANY) };
  if (def.filterParams.includes('email')) filters.email = query.string('email');
  if (def.filterParams.includes('created_at')) {
    filters.createdMin = query.timestamp('created_at_min');
    filters.createdMax = query.timestamp('created_at_max');
  }
  if (def.filterParams.includes('updated_at')) {
    filters.updatedMin = query.timestamp('updated_at_min');
    filters.updatedMax = query.timestamp('updated_at_max');
  }
  if (def.filterParams.includes('customer_id')) filters.customerId = query.integer('customer_id', 1, ANY);
  // Dropping absent filters keeps cursors short and their JSON stable.
  for (const key of Object.keys(filters) as (keyof Filters)[]) if (filters[key] === undefined) delete filters[key];
  return filters;
}

function fromCursor(state: CursorState, limit: number | undefined): { request: PageRequest; sort: SortField } {
  return {
    sort: state.sort,
    request: { stream: state.stream, dir: state.dir, back: state.back, position: state.position, offset: 0, limit: limit ?? state.limit, filters: state.filters },
  };
}

function fresh(stream: string, def: StreamShape, query: QueryReader, limit: number | undefined, pageOrder: PageOrder): { request: PageRequest; sort: SortField } {
  const filters = readFilters(def, query);
  const page = query.integer('page', 1, ANY) ?? 1;
  const sort: SortField = def.sortable ? (query.oneOf('sort_field', ['id', 'updated_at'] as const) ?? 'id') : 'id';
  const explicit: Direction | undefined = def.sortable ? query.oneOf('sort_direction', ['asc', 'desc'] as const) : undefined;
  // since_id asks for what came after an id, which only makes sense read forwards.
  const dir: Direction = explicit ?? (filters.sinceId !== undefined || pageOrder === 'oldest-first' ? 'asc' : 'desc');
  const size = limit ?? def.defaultLimit;
  return { sort, request: { stream, dir, back: false, position: null, offset: (page - 1) * size, limit: size, filters } };
}

/** GET of any cursor-paged list: customers, orders, activities, transactions. */
export function listRoute<T extends Row>(def: StreamDef<T>, store: Store, params: URLSearchParams, pageOrder: PageOrder): Reply {
  const stream = def.listKey;
  const query = new QueryReader(params, def.errorsWithCode);
  const limit = query.integer('limit', 1, MAX_PAGE_SIZE);
  const format = def.csv !== undefined ? (query.oneOf('format', ['json', 'csv'] as const) ?? 'json') : 'json';
  const token = query.string('cursor');
  let parsed: { request: PageRequest; sort: SortField };
  if (token !== undefined) {
    const state = decodeCursor(token, stream);
    if (state === null) throw query.invalid('cursor', 'cursor is not a cursor issued by this list.');
    parsed = fromCursor(state, limit);
  } else {
    parsed = fresh(stream, def, query, limit, pageOrder);
  }
  const page = listPage(def.view(store, parsed.sort), parsed.request, store.tick);
  const next = page.next === null ? null : encodeCursor(page.next);
  const prev = page.prev === null ? null : encodeCursor(page.prev);
  if (format === 'csv' && def.csv !== undefined) {
    const headers: Record<string, string> = {};
    if (next !== null) headers['x-cursor-next'] = next;
    if (prev !== null) headers['x-cursor-prev'] = prev;
    return { status: 200, body: def.csv(page.rows), contentType: 'text/csv; charset=utf-8', headers };
  }
  const items = page.rows.map(def.serialize).join(',');
  return { status: 200, body: `{"${def.listKey}":[${items}],"cursor":${JSON.stringify({ prev, next })}}` };
}
