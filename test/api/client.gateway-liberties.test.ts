import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { runSync } from '../../src/sync/index.js';
import { apiTransaction, recordingLogger, testClient as syncClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';
import { json, scriptedServer, testClient, type ScriptedServer, type Responder } from './helpers.js';

// What a gateway in front of the API, or a server taking the spec's liberties, can answer: the readers must
// neither loop for ever nor take part of a list for all of it.

const KEY = 'sk_test_gateway_liberties_0123';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers the n-th request with `answer(n)` (from 1). */
function counted(answer: (call: number) => unknown, headers: (call: number) => Record<string, string> = () => ({})): Responder {
  let calls = 0;
  return (_req: IncomingMessage, res: ServerResponse) => {
    calls += 1;
    res.writeHead(200, { 'content-type': 'application/json', ...headers(calls) });
    res.end(JSON.stringify(answer(calls)));
  };
}

it("push's look-ups end a list whose tail hands out a new cursor on every empty page, as the sync does", async () => {
  server = await scriptedServer([counted((call) => ({ transactions: call === 1 ? [apiTransaction(1)] : [], cursor: { prev: null, next: `tail-${call}` } }))]);
  const client = testClient(server.url, KEY);
  const ids: number[] = [];
  for await (const page of client.listTransactions({ customer_id: 1 })) ids.push(...page.items.map((item) => item.id));
  expect(ids).toEqual([1]);
  // The row, then three empty pages.
  expect(server.requests).toHaveLength(4);
  await client.close();
});

it("push's look-ups fail, rather than read for ever, when fresh cursors keep bringing the same rows", async () => {
  server = await scriptedServer([counted((call) => ({ customers: [{ id: 7, merchant_id: 'c7', email: 'a@example.com' }], cursor: { prev: null, next: `c${call}` } }))]);
  const client = testClient(server.url, KEY);
  const read = async (): Promise<number> => {
    let pages = 0;
    for await (const _page of client.listCustomers({ email: 'a@example.com' })) pages += 1;
    return pages;
  };
  const failure = await read().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ApiError);
  expect(String((failure as Error).message)).toMatch(/pages in a row came with new cursors but held only rows already read/);
  // The first page, then five that held only its row.
  expect(server.requests).toHaveLength(6);
  await client.close();
});

it('a cursor a gateway turned into a number is followed: the mirror holds every row, not the first page', async () => {
  const rows = [apiTransaction(3), apiTransaction(2), apiTransaction(1)];
  server = await scriptedServer([
    json(200, { transactions: rows.slice(0, 2), cursor: { prev: null, next: 2 } }),
    json(200, { transactions: rows.slice(2), cursor: { prev: 1, next: null } }),
  ]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: KEY, readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = syncClient(config, logger);
  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
  expect(db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all()).toEqual([1, 2, 3]);
  expect(new URL(server.requests[1].url, 'http://x').searchParams.get('cursor')).toBe('2');
  await client.close();
  db.close();
});

it('a cursor of no usable kind fails the stream with a sentence naming it, and stores no next position', async () => {
  server = await scriptedServer([json(200, { transactions: [apiTransaction(2), apiTransaction(1)], cursor: { prev: null, next: { page: 2 } } })]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: KEY, readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = syncClient(config, logger);
  const result = await runSync({ db, client, config, logger, streams: ['transactions'] });
  expect(result.ok).toBe(false);
  expect(JSON.stringify(result)).toMatch(/cursor\.next is \{\\"page\\":2\}; expected a string or null/);
  await client.close();
  db.close();
});

it('unsubscribe entries without a text id are refused by name, not by a crash or a "repeated page"', async () => {
  for (const body of [[null], [{ email: 'a@example.com' }, { email: 'b@example.com' }]]) {
    server = await scriptedServer([json(200, body), json(200, [])]);
    const { db } = freshMirror();
    const config = testConfig({ url: server.url, keys: { full: KEY, readOnly: '' } }, ':memory:');
    const { logger } = recordingLogger();
    const client = syncClient(config, logger);
    const result = await runSync({ db, client, config, logger, streams: ['unsubscribes'] });
    expect(result.ok).toBe(false);
    const text = JSON.stringify(result);
    expect(text).toMatch(/the unsubscribes list returned a record without a valid text id/);
    expect(text).not.toMatch(/Cannot read properties|repeats page/);
    await client.close();
    db.close();
    await server.close();
    server = undefined;
  }
});

it("a Retry-After date is measured from the answer's own Date: a server an hour off still asks for its 3 s", async () => {
  for (const offset of [-3_600_000, 3_600_000]) {
    const at = Math.floor((Date.now() + offset) / 1000) * 1000;
    server = await scriptedServer([
      json(429, { code: 'rate_limited', message: 'slow down' }, { date: new Date(at).toUTCString(), 'retry-after': new Date(at + 3_000).toUTCString() }),
    ]);
    const client = testClient(server.url, KEY, { retry: { attempts: 0, minDelayMs: 1, maxDelayMs: 10_000, maxElapsedMs: 60_000 } });
    const failure = await client.whoami().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).retryAfterMs).toBe(3_000);
    await client.close();
    await server.close();
    server = undefined;
  }
});

it('a Retry-After date already past by the answer\'s own clock is no Retry-After: the usual backoff applies', async () => {
  const at = Math.floor(Date.now() / 1000) * 1000;
  server = await scriptedServer([json(429, { code: 'rate_limited' }, { date: new Date(at).toUTCString(), 'retry-after': new Date(at - 5_000).toUTCString() })]);
  const client = testClient(server.url, KEY, { retry: { attempts: 0, minDelayMs: 1, maxDelayMs: 10, maxElapsedMs: 60_000 } });
  const failure = await client.whoami().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect((failure as ApiError).retryAfterMs).toBeUndefined();
  await client.close();
});
