/** Filters a list request carries; a cursor repeats them so that later pages keep the first page's question. */
export interface Filters {
  sinceId?: number;
  email?: string;
  createdMin?: number;
  createdMax?: number;
  updatedMin?: number;
  updatedMax?: number;
  customerId?: number;
}

export type Direction = 'asc' | 'desc';
export type SortField = 'id' | 'updated_at';

/** Everything needed to resume a walk: the position is a key (not an offset), so inserts cannot shift it. */
export interface CursorState {
  stream: string;
  sort: SortField;
  dir: Direction;
  /** A `prev` cursor: read backwards from the position, then present the rows in `dir` order. */
  back: boolean;
  /** [id] or [updated_at ms, id]. */
  position: number[];
  filters: Filters;
  limit: number;
}

const FILTER_NUMBERS = ['sinceId', 'createdMin', 'createdMax', 'updatedMin', 'updatedMax', 'customerId'] as const;

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/** The cursor's state, or null for anything this simulator did not hand out for this stream. */
export function decodeCursor(token: string, stream: string): CursorState | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const state = value as Partial<Record<keyof CursorState, unknown>>;
  if (state.stream !== stream) return null;
  if (state.sort !== 'id' && state.sort !== 'updated_at') return null;
  if (state.dir !== 'asc' && state.dir !== 'desc') return null;
  if (typeof state.back !== 'boolean') return null;
  const position = state.position;
  const positionLength = state.sort === 'id' ? 1 : 2;
  if (!Array.isArray(position) || position.length !== positionLength || !position.every(Number.isSafeInteger)) return null;
  if (typeof state.limit !== 'number' || !Number.isInteger(state.limit) || state.limit < 1 || state.limit > 500) return null;
  if (typeof state.filters !== 'object' || state.filters === null) return null;
  const filters = state.filters as Record<string, unknown>;
  for (const name of FILTER_NUMBERS) {
    if (filters[name] !== undefined && !Number.isSafeInteger(filters[name])) return null;
  }
  if (filters.email !== undefined && typeof filters.email !== 'string') return null;
  return {
    stream,
    sort: state.sort,
    dir: state.dir,
    back: state.back,
    position: position as number[],
    filters: filters as Filters,
    limit: state.limit,
  };
}
