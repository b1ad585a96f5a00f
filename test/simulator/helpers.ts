import type { SimulatorHandle } from '../../src/simulator/index.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when the body is empty or not JSON. */
  body: unknown;
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  json?: unknown;
}

/** One request over real loopback HTTP, with the full key unless told otherwise. */
export async function call(sim: SimulatorHandle, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? sim.keys.full : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sim.url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export interface ListBody {
  [key: string]: unknown;
  cursor: { prev: string | null; next: string | null };
}

export interface IdRow {
  id: number;
  [field: string]: unknown;
}

export async function getList(sim: SimulatorHandle, path: string): Promise<ListBody> {
  const answer = await call(sim, path);
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text}`);
  return answer.body as ListBody;
}

function withParams(path: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return query === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** Follows cursor.next from the first page to the end. */
export async function walkByCursor<T extends { id: number } = IdRow>(sim: SimulatorHandle, path: string, key: string, params: Record<string, string> = {}): Promise<T[]> {
  const rows: T[] = [];
  let page = await getList(sim, withParams(path, params));
  for (;;) {
    rows.push(...(page[key] as T[]));
    if (page.cursor.next === null) return rows;
    page = await getList(sim, withParams(path, { cursor: page.cursor.next, ...(params.limit ? { limit: params.limit } : {}) }));
  }
}

/** Asks for ids after the highest seen so far until a page comes back empty. */
export async function walkBySinceId<T extends { id: number } = IdRow>(sim: SimulatorHandle, path: string, key: string, params: Record<string, string> = {}): Promise<T[]> {
  const rows: T[] = [];
  let sinceId = 0;
  for (;;) {
    const page = (await getList(sim, withParams(path, { ...params, since_id: String(sinceId) })))[key] as T[];
    if (page.length === 0) return rows;
    rows.push(...page);
    sinceId = Math.max(...page.map((row) => row.id));
  }
}

export function byId<T extends { id: number }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.id - b.id);
}
