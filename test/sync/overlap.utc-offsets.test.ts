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

const transaction = (id: number, createdAt: string) => apiTransaction(id, { created_at: createdAt });

/** `utcMinutes` after 2026-03-01T00:00Z as local date and time (YYYY-MM-DDTHH:MM:SS) at a UTC offset of `offsetHours`. */
const local = (utcMinutes: number, offsetHours: number) => new Date(Date.UTC(2026, 2, 1) + (utcMinutes + offsetHours * 60) * 60_000).toISOString().slice(0, 19);
const LATE = 22 * 60;
/** Ways an ISO 8601 server might write a time, and the UTC minute of the day the rows start at. */
const FORMS: Array<[string, (utcMinutes: number) => string, number]> = [
  ['an offset of -05:00', (m) => `${local(m, -5)}.000-05:00`, LATE],
  ['an offset of -05:00, on the day before in local time', (m) => `${local(m, -5)}.000-05:00`, 60],
  ['+0000', (m) => `${local(m, 0)}+0000`, LATE],
  ['an offset in whole hours', (m) => `${local(m, -5)}-05`, LATE],
  ['lower-case t and z', (m) => `${local(m, 0).replace('T', 't')}z`, LATE],
  ['a comma before the fraction', (m) => `${local(m, 0)},000Z`, LATE],
  ['a space between date and time', (m) => `${local(m, 0).replace('T', ' ')}Z`, LATE],
];

it.each(FORMS)('the id overlap re-reads late-visible ids when the API writes timestamps with %s', async (_form, write, start) => {
  // ISO 8601 allows many forms: 17:00-05:00 is 22:00Z. Compared as text with the overlap's start,
  // or through SQLite's julianday, which refuses +0000, every stored row looked older than the
  // window, so the next read started after the max stored id and id 3, visible late, was never
  // read. Rows late in the UTC day share the overlap start's date; early ones at -05:00 are dated
  // the day before.
  const all = [transaction(1, write(start)), transaction(2, write(start + 55)), transaction(3, write(start + 58)), transaction(4, write(start + 60))];
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
