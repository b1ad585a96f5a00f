import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The lists a deep refresh reads whole. */
export type PagedList = 'orders' | 'activities';

export interface PagedListServer {
  url: string;
  /**
   * From now on the list read whole (since_id 0, no other filter) comes as these pages, in this order, ids
   * chosen by the test; an id on no page is gone from the API. Filtered reads get the same rows.
   */
  setPages(list: PagedList, pages: number[][]): void;
  close(): Promise<void>;
}

const BASE_MS = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR_MS = 3600 * 1000;

/**
 * A loopback API whose orders and activities lists are pages the test writes: the spec promises no order
 * within a list, so pages may hold overlapping id spans (a list ordered by time hands out late-visible ids
 * on later pages), which the simulator never does. Ids are the test's, so two lists may share them. Record
 * `id` is created `id` hours after 2026-03-01; a read filtered by since_id or created_at is one page.
 */
export async function startPagedListServer(): Promise<PagedListServer> {
  const pagesOf = new Map<PagedList, number[][]>([
    ['orders', []],
    ['activities', []],
  ]);

  const answer = (list: PagedList, query: URLSearchParams): { records: object[]; next: string | null } => {
    const pages = pagesOf.get(list)!;
    const cursor = query.get('cursor');
    const sinceId = Number(query.get('since_id') ?? '0');
    const createdMin = query.get('created_at_min');
    const createdMax = query.get('created_at_max');
    const index = cursor !== null ? Number(cursor.replace('page-', '')) : sinceId === 0 && createdMin === null && createdMax === null ? 0 : null;
    if (index !== null) return { records: (pages[index] ?? []).map((id) => recordOf(list, id)), next: index + 1 < pages.length ? `page-${index + 1}` : null };
    const ids = pages
      .flat()
      .filter((id) => id > sinceId)
      .filter((id) => createdMin === null || createdAt(id) >= Date.parse(createdMin))
      .filter((id) => createdMax === null || createdAt(id) < Date.parse(createdMax))
      .sort((a, b) => a - b);
    return { records: ids.map((id) => recordOf(list, id)), next: null };
  };

  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://paged');
      const list = url.pathname.replace('/v2/', '') as PagedList;
      if (req.method !== 'GET' || !pagesOf.has(list)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: `no route for ${req.method} ${url.pathname}` }] }));
        return;
      }
      const { records, next } = answer(list, url.searchParams);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ [list]: records, cursor: { prev: null, next } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setPages(list, pages) {
      pagesOf.set(list, pages);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const createdAt = (id: number): number => BASE_MS + id * HOUR_MS;

const CUSTOMER = { id: 1, merchant_id: 'c1', email: 'c1@example.com', points_pending: 0, points_approved: 0, points_spent: 0 };

/** A record shaped as the API lists it (spec: order and activity list items). */
function recordOf(list: PagedList, id: number): object {
  const created = new Date(createdAt(id)).toISOString();
  if (list === 'activities') {
    return { id, merchant_id: `act-${id}`, value: 10, state: 'approved', customer: CUSTOMER, created_at: created, resource: { type: 'review', id }, rule: { id: 1, name: 'submitted a review', title: 'Write a review' }, flow: null };
  }
  return {
    id,
    merchant_id: `order-${id}`,
    merchant_number: `#${1000 + id}`,
    total: '10.00',
    total_paid: '10.00',
    total_refunded: '0.00',
    payment_status: 'paid',
    created_at: created,
    updated_at: created,
    customer: CUSTOMER,
  };
}
