import { afterEach, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { json, scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const entry = (n: number) => ({ email: `u${n}@example.com`, id: `u-${n}` });

it('a server that caps the unsubscribe page size below the requested limit loses no address and tombstones none', async () => {
  // limit=500 is asked for; this server answers two rows a page. A walk that stopped at the first
  // short page would keep two addresses and, on the next run, mark the others removed.
  const pages = [[entry(1), entry(2)], [entry(3), entry(4)], [entry(5)], []];
  server = await scriptedServer([...pages, ...pages].map((items) => json(200, items)));
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_short_pages', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);

  for (let run = 0; run < 2; run += 1) {
    const report = await runSync({ db, client, config, logger, streams: ['unsubscribes'] });
    expect(report.ok).toBe(true);
  }
  const rows = db.prepare('SELECT id, removed_at FROM unsubscribes ORDER BY id').all() as Array<{ id: string; removed_at: string | null }>;
  expect(rows.map((row) => row.id)).toEqual(['u-1', 'u-2', 'u-3', 'u-4', 'u-5']);
  expect(rows.every((row) => row.removed_at === null)).toBe(true);
  expect(server.requests.map((request) => new URL(request.url, 'http://x').searchParams.get('page'))).toEqual(['1', '2', '3', '4', '1', '2', '3', '4']);
  await client.close();
  db.close();
});
