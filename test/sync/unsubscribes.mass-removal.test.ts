import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { startHostileListServer, type HostileListServer } from '../helpers/hostileListServer.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
let hostile: HostileListServer;
beforeEach(async () => {
  // 300 addresses on the list.
  sim = await startSimulator({ seed: 20, size: 'small' });
  hostile = await startHostileListServer(sim);
});
afterEach(async () => {
  await hostile.close();
  await sim.close();
});

const STORED = 300;
const removedCount = (db: Db): number => db.prepare('SELECT count(*) FROM unsubscribes WHERE removed_at IS NOT NULL OR _removed_at IS NOT NULL').pluck().get() as number;

async function syncUnsubscribes(db: Db, options: { acceptRemovals?: boolean; maxRemovedShare?: number } = {}) {
  const config = testConfig({ url: hostile.url, keys: sim.keys }, db.name, { sync: { maxRemovedShare: options.maxRemovedShare ?? 0.5 } });
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    return await runSync({ db, client, config, logger, streams: ['unsubscribes'], acceptRemovals: options.acceptRemovals });
  } finally {
    await client.close();
  }
}

describe('an unsubscribe list that would empty the mirror', () => {
  it('an empty 200 [] after a full list fails the stream with one sentence and marks nothing, run after run', async () => {
    const { db } = freshMirror();
    expect((await syncUnsubscribes(db)).ok).toBe(true);
    expect(db.prepare('SELECT count(*) FROM unsubscribes').pluck().get()).toBe(STORED);

    hostile.act({ kind: 'empty-list', list: 'unsubscribes' });
    for (let run = 0; run < 2; run += 1) {
      const report = await syncUnsubscribes(db);
      expect(report.ok).toBe(false);
      expect(report.streams[0]).toMatchObject({ status: 'failed', removed: 0 });
      expect(report.streams[0].error).toBe(
        `the unsubscribe list would mark ${STORED} of ${STORED} stored addresses removed (100%), as if the API had none, so nothing was marked; if those addresses really left the list, confirm with sync --accept-removals`,
      );
      // The people who unsubscribed still are: no export shows them re-subscribed.
      expect(removedCount(db)).toBe(0);
    }
    db.close();
  });

  it('the empty list is refused even when sync.maxRemovedShare allows every address to go', async () => {
    const { db } = freshMirror();
    await syncUnsubscribes(db);
    hostile.act({ kind: 'empty-list', list: 'unsubscribes' });
    const report = await syncUnsubscribes(db, { maxRemovedShare: 1 });
    expect(report.streams[0].status).toBe('failed');
    expect(removedCount(db)).toBe(0);
    db.close();
  });

  it('a list that lost more than sync.maxRemovedShare of the stored addresses is refused; a smaller loss is tombstoned', async () => {
    const { db } = freshMirror();
    await syncUnsubscribes(db);

    // 200 of 300 gone: more than half.
    hostile.act({ kind: 'cut-unsubscribes', keep: 100 });
    const refused = await syncUnsubscribes(db);
    expect(refused.streams[0].status).toBe('failed');
    expect(refused.streams[0].error).toMatch(/^the unsubscribe list would mark 200 of 300 stored addresses removed \(66\.7%\), more than sync\.maxRemovedShare \(0\.5\) allows, so nothing was marked/);
    expect(removedCount(db)).toBe(0);
    // Nothing of the refused walk is resumed: the list may change before the next run, and a walk resumed
    // at a later page would never see again the rows on the pages before it.
    expect(db.prepare(`SELECT pass_state FROM sync_state WHERE stream = 'unsubscribes'`).pluck().get()).toBeNull();

    // 100 of 300 gone: within the share, marked as before.
    hostile.act({ kind: 'cut-unsubscribes', keep: 200 });
    const allowed = await syncUnsubscribes(db);
    expect(allowed.streams[0], allowed.streams[0].error).toMatchObject({ status: 'succeeded', removed: 100 });
    expect(removedCount(db)).toBe(100);
    db.close();
  });

  it('--accept-removals confirms a real mass removal', async () => {
    const { db } = freshMirror();
    await syncUnsubscribes(db);
    hostile.act({ kind: 'empty-list', list: 'unsubscribes' });
    expect((await syncUnsubscribes(db)).ok).toBe(false);

    const confirmed = await syncUnsubscribes(db, { acceptRemovals: true });
    expect(confirmed.streams[0]).toMatchObject({ status: 'succeeded', removed: STORED });
    expect(removedCount(db)).toBe(STORED);
    db.close();
  });
});

describe('loyalty-sync sync and once with a mass removal', () => {
  it('sync and once exit 1 naming the cause and keep the unsubscribes; --accept-removals on either confirms', async () => {
    const dir = tempDir('loyalty-mass-removal-');
    const dbPath = join(dir, 'mirror.db');
    // No client-side rate limit: `once` reads every stream.
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ api: { requestsPerSecond: 10_000, burst: 100 } }));
    const env = { LOYALTY_BASE_URL: hostile.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: dbPath, LOYALTY_CONFIG: configFile, LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOG_LEVEL: 'silent' };
    expect((await runCli(['sync', '--stream', 'unsubscribes'], { env })).code).toBe(0);

    hostile.act({ kind: 'empty-list', list: 'unsubscribes' });
    const refused = await runCli(['sync', '--stream', 'unsubscribes'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('loyalty-sync: sync of unsubscribes failed: the unsubscribe list would mark 300 of 300 stored addresses removed (100%)');
    expect(refused.stderr).toContain('confirm with sync --accept-removals');
    const once = await runCli(['once'], { env });
    expect(once.code).toBe(1);
    expect(once.stdout).toMatch(/^FAIL sync: .*unsubscribes failed \(the unsubscribe list would mark 300 of 300/m);
    const db = openDatabase(dbPath);
    expect(removedCount(db)).toBe(0);

    const confirmedByOnce = await runCli(['once', '--accept-removals'], { env });
    expect(confirmedByOnce.stdout).toMatch(/^ok   sync: .*unsubscribes \+0 ~0 -300/m);
    expect(confirmedByOnce.code).toBe(0);
    expect(removedCount(db)).toBe(STORED);

    // The list comes back, then empties again: sync --accept-removals confirms it too.
    hostile.act(null);
    expect((await runCli(['sync', '--stream', 'unsubscribes'], { env })).code).toBe(0);
    expect(removedCount(db)).toBe(0);
    hostile.act({ kind: 'empty-list', list: 'unsubscribes' });
    const confirmed = await runCli(['sync', '--stream', 'unsubscribes', '--accept-removals'], { env });
    expect(confirmed.stderr).toBe('');
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toMatch(/^unsubscribes: succeeded, 0 rows read, 0 new, 0 updated, 300 removed/m);
    expect(removedCount(db)).toBe(STORED);
    db.close();
  });
});
