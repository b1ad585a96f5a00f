import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const transaction = (id: number, createdAt: string) => ({
  id,
  customer: { id: 1, merchant_id: 'c1', email: 'c1@example.com', points_pending: 0, points_approved: 0, points_spent: 0 },
  points_approved: 1,
  points_pending: 0,
  created_at: createdAt,
  resource: 'activity',
});

it('the id overlap re-reads late-visible ids when the API writes timestamps with a non-Z UTC offset', async () => {
  // ISO 8601 allows any offset: 07:00-05:00 is 12:00Z. Compared as text with the overlap's start
  // (10:00:00.000Z), every stored row looked older than the window, so the next read started after
  // the max stored id and id 3, visible late, was never read.
  const all = [
    transaction(1, '2026-03-01T06:00:00.000-05:00'),
    transaction(2, '2026-03-01T06:55:00.000-05:00'),
    transaction(3, '2026-03-01T06:58:00.000-05:00'),
    transaction(4, '2026-03-01T07:00:00.000-05:00'),
  ];
  let visible = all.filter((t) => t.id !== 3);
  // One page per answer, filtered by since_id like the API: ids after it, newest first.
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const sinceId = Number(new URL(req.url ?? '', 'http://x').searchParams.get('since_id') ?? 0);
    const items = visible.filter((t) => t.id > sinceId).reverse();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ transactions: items, cursor: { prev: null, next: null } }));
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_utc_offsets', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
  visible = all;
  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);

  const sinceIds = server.requests.map((request) => new URL(request.url, 'http://x').searchParams.get('since_id'));
  expect(sinceIds).toEqual(['0', '0']);
  expect(db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all()).toEqual([1, 2, 3, 4]);
  await client.close();
  db.close();
});
