import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

// A server within the spec whose cursors are offsets into the sorted list, honouring sort_field,
// sort_direction and updated_at_min. Customers change all the time (points, tiers): one updated while
// the first read of a program is under way must not cost the mirror another customer for good.

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const DAY = 86_400_000;

function customer(id: number, updatedAt: string, points = 0): Record<string, unknown> {
  return {
    id,
    merchant_id: `m${id}`,
    email: `c${id}@example.com`,
    points_approved: points,
    points_pending: 0,
    points_spent: 0,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: updatedAt,
  };
}

it('a customer updated while the first read runs, on a server of offset cursors, costs no other customer; the next sync brings the update', async () => {
  const start = Date.now() - 365 * DAY;
  // Updated over the past year, in id order, so by updated_at and by id the lists agree until one changes.
  const truth = new Map(Array.from({ length: 60 }, (_, i) => [i + 1, customer(i + 1, new Date(start + i * DAY).toISOString())]));
  let pagesServed = 0;
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const query = new URL(req.url ?? '', 'http://x').searchParams;
    const min = query.get('updated_at_min');
    const byUpdated = query.get('sort_field') === 'updated_at';
    const descending = query.get('sort_direction') === 'desc';
    const rows = [...truth.values()]
      .filter((row) => min === null || String(row.updated_at) >= min)
      .sort((a, b) => (byUpdated ? String(a.updated_at).localeCompare(String(b.updated_at)) : 0) || Number(a.id) - Number(b.id));
    if (descending) rows.reverse();
    const limit = Number(query.get('limit') ?? 10);
    const offset = Number(query.get('cursor') ?? 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ customers: rows.slice(offset, offset + limit), cursor: { prev: null, next: offset + limit < rows.length ? String(offset + limit) : null } }));
    // After the first page, a customer on it earns points: its updated_at becomes the newest.
    if (++pagesServed === 1) truth.set(5, customer(5, new Date().toISOString(), 10));
  };
  server = await scriptedServer([answer]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_offset_cursor', readOnly: '' } }, ':memory:', { api: { pageSize: 10 } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  expect((await runSync({ db, client, config, logger, streams: ['customers'] })).ok).toBe(true);
  expect(db.prepare('SELECT id FROM customers ORDER BY id').pluck().all()).toEqual([...truth.keys()]);
  expect((await runSync({ db, client, config, logger, streams: ['customers'] })).ok).toBe(true);
  const mirrored = db.prepare('SELECT id, points_approved, updated_at FROM customers ORDER BY id').all();
  expect(mirrored).toEqual([...truth.values()].map((row) => ({ id: row.id, points_approved: row.points_approved, updated_at: row.updated_at })));
  await client.close();
  db.close();
});
