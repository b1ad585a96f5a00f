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

const HOUR = 3_600_000;
const BASE = Date.parse('2026-03-01T00:00:00.000Z');
const transaction = (id: number, hours: number) => apiTransaction(id, { created_at: new Date(BASE + hours * HOUR).toISOString() });

it('a pass that stored newest-first pages and then met a permanent error is resumed, not replanned past its unread rows', async () => {
  // Run 1 stores ids 1-2. Ids 3-8 arrive over ten hours. Run 2 reads them newest first (8, 7, 6),
  // then the API answers 403 on the next page. Replanning from what is stored would start the
  // 2-hour overlap at id 7 and read after id 6: ids 3-5 would never be read (transactions have no refresh).
  const all = [transaction(1, -30), transaction(2, -29), ...[3, 4, 5, 6, 7, 8].map((id) => transaction(id, (id - 3) * 2))];
  let visible = all.slice(0, 2);
  let forbidden = false;
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const query = new URL(req.url ?? '', 'http://x').searchParams;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const cursor = query.get('cursor');
    if (cursor !== null && forbidden) return send(403, { error: { message: 'forbidden', code: 'forbidden' } });
    // The cursor carries the filter: "since:page".
    const [since, page] = cursor === null ? [Number(query.get('since_id') ?? 0), 0] : cursor.split(':').map(Number);
    const rows = visible.filter((t) => t.id > since).reverse();
    const items = rows.slice(page * 3, page * 3 + 3);
    send(200, { transactions: items, cursor: { prev: null, next: rows.length > (page + 1) * 3 ? `${since}:${page + 1}` : null } });
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_partial_pass', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const sync = () => runSync({ db, client, config, logger, streams: ['transactions'] });

  expect((await sync()).ok).toBe(true);
  visible = all;
  forbidden = true;
  expect((await sync()).ok).toBe(false);
  expect(db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all()).toEqual([1, 2, 6, 7, 8]);
  forbidden = false;
  expect((await sync()).ok).toBe(true);
  expect(db.prepare('SELECT id FROM transactions ORDER BY id').pluck().all()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  await client.close();
  db.close();
});

it('a stored cursor the API refuses with a 4xx other than 400 restarts the pass from its filters', async () => {
  // The spec does not say how a stale cursor is refused; with the plan now kept after a permanent
  // error, a 404 on the cursor must not leave the stream failing run after run.
  const { json } = await import('../api/helpers.js');
  server = await scriptedServer([
    json(404, { error: { message: 'no such cursor', code: 'not_found' } }),
    json(200, { transactions: [transaction(1, 0)], cursor: { prev: null, next: null } }),
  ]);
  const { db } = freshMirror();
  const plan = { passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: false };
  db.prepare("INSERT INTO sync_state (stream, pass_state, cursor, updated_at) VALUES ('transactions', ?, 'stale', 'x')").run(JSON.stringify(plan));
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_stale_cursor', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  expect((await runSync({ db, client, config, logger, streams: ['transactions'] })).ok).toBe(true);
  const queries = server.requests.map((request) => Object.fromEntries(new URL(request.url, 'http://x').searchParams));
  expect(queries[0]).toMatchObject({ cursor: 'stale' });
  expect(queries[1]).toMatchObject({ since_id: '0' });
  expect(db.prepare('SELECT id FROM transactions').pluck().all()).toEqual([1]);
  await client.close();
  db.close();
});
