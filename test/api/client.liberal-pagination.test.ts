import { afterEach, expect, it } from 'vitest';
import { json, scriptedServer, testClient, type ScriptedServer } from './helpers.js';

const KEY = 'sk_test_liberal_pagination_0123';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function query(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url, 'http://x').searchParams);
}

it('a transactions cursor page still asks for format=json: the default format is not shown', async () => {
  server = await scriptedServer([
    json(200, { transactions: [{ id: 1 }], cursor: { prev: null, next: 'c1' } }),
    json(200, { transactions: [{ id: 2 }], cursor: { prev: 'c1', next: null } }),
  ]);
  const client = testClient(server.url, KEY, { pageSize: 1 });
  const ids: number[] = [];
  for await (const page of client.listTransactions({ customer_id: 7 })) ids.push(...page.items.map((t) => t.id));
  expect(ids).toEqual([1, 2]);
  expect(query(server.requests[0].url)).toEqual({ format: 'json', customer_id: '7', limit: '1' });
  expect(query(server.requests[1].url)).toEqual({ format: 'json', customer_id: '7', cursor: 'c1', limit: '1' });
  await client.close();
});

it('an empty last page that hands back the cursor it was given ends the walk, without an error', async () => {
  server = await scriptedServer([
    json(200, { orders: [{ id: 1 }], cursor: { prev: null, next: 'end' } }),
    json(200, { orders: [], cursor: { prev: 'end', next: 'end' } }),
  ]);
  const client = testClient(server.url, KEY);
  const sizes: number[] = [];
  for await (const page of client.listOrders()) sizes.push(page.items.length);
  expect(sizes).toEqual([1, 0]);
  expect(server.requests).toHaveLength(2);
  await client.close();
});

it('an empty page with a new cursor is followed; a missing cursor or one with only `next` is read as the server means it', async () => {
  server = await scriptedServer([
    json(200, { activities: [{ id: 1 }], cursor: { next: 'a' } }),
    json(200, { activities: [], cursor: { prev: 'a', next: 'b' } }),
    json(200, { activities: [{ id: 3 }] }),
  ]);
  const client = testClient(server.url, KEY);
  const ids: number[] = [];
  for await (const page of client.listActivities()) ids.push(...page.items.map((a) => a.id));
  expect(ids).toEqual([1, 3]);
  expect(server.requests).toHaveLength(3);
  await client.close();
});
