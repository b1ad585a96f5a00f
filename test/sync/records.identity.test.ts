import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { sameJson } from '../../src/db/sameJson.js';
import { runSync } from '../../src/sync/index.js';
import { scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { apiTransaction, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const transaction = (id: number, points: number) =>
  apiTransaction(id, { points_approved: points, activity: { id: 100 + id, state: 'approved', value: points, rule: { id: 11, name: 'Order placed', title: 'Thanks' } } });

/** The same value with every object's members in reverse order, as a server with unordered maps may write it. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reversed(item)]));
}

it('a record re-read with its members in another order is unchanged; a changed value still counts', async () => {
  let records: unknown[] = [transaction(1, 5), transaction(2, 7)];
  const answer = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ transactions: records, cursor: { prev: null, next: null } }));
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_member_order', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const sync = async () => (await runSync({ db, client, config, logger, streams: ['transactions'] })).streams[0];
  const changeSeqs = () => db.prepare('SELECT _change_seq FROM transactions ORDER BY id').pluck().all();

  expect(await sync()).toMatchObject({ inserted: 2, updated: 0 });
  const stored = changeSeqs();

  records = records.map(reversed);
  expect(await sync()).toMatchObject({ inserted: 0, updated: 0 });
  expect(changeSeqs()).toEqual(stored);

  records = [reversed(transaction(1, 5)), transaction(2, 9)];
  expect(await sync()).toMatchObject({ inserted: 0, updated: 1 });
  expect(db.prepare('SELECT points_approved FROM transactions ORDER BY id').pluck().all()).toEqual([5, 9]);
  await client.close();
  db.close();
});

it('sameJson ignores member order only', () => {
  expect(sameJson('{"a":1,"b":{"c":[1,2],"d":null}}', '{"b":{"d":null,"c":[1,2]},"a":1}')).toBe(true);
  expect(sameJson('{"a":[1,2]}', '{"a":[2,1]}')).toBe(false);
  expect(sameJson('{"a":1}', '{"a":1,"b":null}')).toBe(false);
  expect(sameJson('{"a":"1"}', '{"a":1}')).toBe(false);
  expect(sameJson('{"a":1}', 'not json')).toBe(false);
});

it('an id beyond 2^53 fails the stream with a sentence saying so, and stores nothing of the page', async () => {
  const answer = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Written by hand: JSON.stringify could not write this number exactly.
    res.end(`{"transactions":[${JSON.stringify(transaction(1, 5))},${JSON.stringify(transaction(2, 5)).replace('"id":2,', '"id":9007199254740993,')}],"cursor":{"prev":null,"next":null}}`);
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_big_ids', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const result = await runSync({ db, client, config, logger, streams: ['transactions'] });
  expect(result.ok).toBe(false);
  expect(result.streams[0].error).toMatch(/transactions list returned an id beyond 2\^53 \(about 9007199254740992\).*up to 9007199254740991/);
  expect(db.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(0);
  await client.close();
  db.close();
});
