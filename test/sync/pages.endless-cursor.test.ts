import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { apiTransaction, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('a list whose tail hands out a new cursor on every empty page ends after three empty pages', async () => {
  // The spec promises only that a null cursor ends a list; this server's tail cursor carries a counter.
  let calls = 0;
  const answer = (_req: IncomingMessage, res: ServerResponse): void => {
    calls += 1;
    const items = calls === 1 ? [apiTransaction(1), apiTransaction(2)] : calls === 3 ? [apiTransaction(3)] : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ transactions: items, cursor: { prev: null, next: `tail-${calls}` } }));
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_endless_cursor', readOnly: '' } }, ':memory:');
  const { logger, records } = recordingLogger();
  const client = testClient(config, logger);

  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
  // Rows, one empty page that is followed (a gap), the row after it, then three empty pages.
  expect(server.requests).toHaveLength(6);
  expect(db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all()).toEqual([1, 2, 3]);
  expect(records.some((record) => /3 empty pages in a row/.test(String(record.msg)))).toBe(true);
  await client.close();
  db.close();
});
