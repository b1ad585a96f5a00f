import { afterEach, expect, it } from 'vitest';
import { captureLogger, json, scriptedServer, testClient, type ScriptedServer } from './helpers.js';

// The spec does not say whether a cursor carries the filters it was issued under. A server whose cursor
// is only a position would answer page 2 of a filtered list unfiltered; one that refuses extra parameters
// beside a cursor would fail every page 2. The client has to get the same rows from both.

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tx = (id: number) => ({ id, points_approved: 1, points_pending: 0, created_at: '2026-03-01T00:00:00Z', resource: 'manual' });
const query = (url: string) => Object.fromEntries(new URL(url, 'http://x').searchParams);

it('sends the filters with every cursor, so a server whose cursor is only a position keeps filtering', async () => {
  server = await scriptedServer([
    json(200, { transactions: [tx(11), tx(12)], cursor: { prev: null, next: 'after-12' } }),
    json(200, { transactions: [tx(13)], cursor: { prev: 'before-13', next: null } }),
  ]);
  const client = testClient(server.url, 'sk_test_cursor_filters');
  const ids: number[] = [];
  for await (const page of client.pages<{ id: number }>('transactions', { since_id: 10, created_at_min: '2026-02-01T00:00:00Z' })) ids.push(...page.items.map((t) => t.id));
  await client.close();

  expect(ids).toEqual([11, 12, 13]);
  expect(server.requests.map((request) => query(request.url))).toEqual([
    { format: 'json', since_id: '10', created_at_min: '2026-02-01T00:00:00Z', limit: '500' },
    { format: 'json', since_id: '10', created_at_min: '2026-02-01T00:00:00Z', cursor: 'after-12', limit: '500' },
  ]);
});

it('a server that refuses a cursor sent with filters gets the cursor alone, from then on, and no page is lost', async () => {
  const refused = json(400, { error: { message: 'cursor cannot be combined with since_id', code: 'invalid_params' } });
  server = await scriptedServer([
    json(200, { orders: [{ id: 1 }, { id: 2 }], cursor: { prev: null, next: 'c2' } }),
    refused,
    json(200, { orders: [{ id: 3 }], cursor: { prev: 'c1', next: 'c3' } }),
    json(200, { orders: [{ id: 4 }], cursor: { prev: 'c2', next: null } }),
  ]);
  const { logger, lines } = captureLogger('warn');
  const client = testClient(server.url, 'sk_test_cursor_refused', { logger });
  const ids: number[] = [];
  for await (const page of client.pages<{ id: number }>('orders', { since_id: 0 })) ids.push(...page.items.map((o) => o.id));
  await client.close();

  expect(ids).toEqual([1, 2, 3, 4]);
  expect(server.requests.map((request) => query(request.url))).toEqual([
    { since_id: '0', limit: '500' },
    { since_id: '0', cursor: 'c2', limit: '500' },
    { cursor: 'c2', limit: '500' },
    { cursor: 'c3', limit: '500' },
  ]);
  expect(lines.filter((line) => line.includes('sending cursors alone'))).toHaveLength(1);
});
