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
const page = (...ns: number[]) => json(200, ns.map(entry));

it('an address that shifts to an earlier page mid-walk is not marked removed; one that left the list is, after a second walk agrees', async () => {
  server = await scriptedServer([
    // Run 1: the whole list, two entries a page.
    page(1, 2), page(3, 4), page(5), page(),
    // Run 2: u-1 leaves right after page 1 is read, so u-3 moves up to page 1 and this walk never sees it.
    page(1, 2), page(4, 5), page(),
    // ... the walk missed stored addresses (u-3), so a second walk reads the list again and finds it.
    page(2, 3), page(4, 5), page(),
    // Run 3: u-1 is missed by a walk and by the walk that confirms it: it has left the list.
    page(2, 3), page(4, 5), page(),
    page(2, 3), page(4, 5), page(),
  ]);
  const { db } = freshMirror();
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_shifting_list', readOnly: '' } }, ':memory:');
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  const removed = () => db.prepare('SELECT id FROM unsubscribes WHERE removed_at IS NOT NULL ORDER BY id').pluck().all();

  const runs = [];
  for (let run = 0; run < 3; run += 1) {
    const report = await runSync({ db, client, config, logger, streams: ['unsubscribes'] });
    expect(report.ok).toBe(true);
    runs.push({ removed: report.streams[0].removed, marked: removed() });
  }
  expect(runs).toEqual([
    { removed: 0, marked: [] },
    { removed: 0, marked: [] },
    { removed: 1, marked: ['u-1'] },
  ]);
  expect(server.requests).toHaveLength(16);
  expect(db.prepare("SELECT pass_state, cursor FROM sync_state WHERE stream = 'unsubscribes'").get()).toEqual({ pass_state: null, cursor: null });
  await client.close();
  db.close();
});
