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

/** Minutes after 2026-03-01T00:00Z, written the way some ISO 8601 server might write them. */
const pad = (n: number) => String(n).padStart(2, '0');
const clock = (utcMinutes: number, offsetHours: number) => {
  const local = utcMinutes + offsetHours * 60;
  return `${pad(Math.floor(local / 60))}:${pad(local % 60)}:00`;
};
const FORMS: Array<[string, (utcMinutes: number) => string]> = [
  ['an offset of -05:00', (m) => `2026-03-01T${clock(m, -5)}.000-05:00`],
  ['+0000', (m) => `2026-03-01T${clock(m, 0)}+0000`],
  ['an offset in whole hours', (m) => `2026-03-01T${clock(m, -5)}-05`],
  ['lower-case t and z', (m) => `2026-03-01t${clock(m, 0)}z`],
  ['a comma before the fraction', (m) => `2026-03-01T${clock(m, 0)},000Z`],
  ['a space between date and time', (m) => `2026-03-01 ${clock(m, 0)}Z`],
];

it.each(FORMS)('the id overlap re-reads late-visible ids when the API writes timestamps with %s', async (_form, write) => {
  // ISO 8601 allows many forms: 17:00-05:00 is 22:00Z. Compared as text with the overlap's start
  // (21:00:00.000Z), or through SQLite's julianday, which refuses +0000, every stored row looked
  // older than the window, so the next read started after the max stored id and id 3, visible
  // late, was never read. Late in the day, the overlap's start shares the rows' date.
  const all = [transaction(1, write(22 * 60)), transaction(2, write(22 * 60 + 55)), transaction(3, write(22 * 60 + 58)), transaction(4, write(23 * 60))];
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
