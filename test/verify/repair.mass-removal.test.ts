import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runVerify } from '../../src/verify/index.js';
import { startHostileListServer, type HostileListServer } from '../helpers/hostileListServer.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';
import { syncMirror, verifyCli } from './helpers.js';

let sim: SimulatorHandle;
let hostile: HostileListServer;
beforeEach(async () => {
  // 1,500 orders.
  sim = await startSimulator({ seed: 21, size: 'small' });
  hostile = await startHostileListServer(sim);
});
afterEach(async () => {
  await hostile.close();
  await sim.close();
});

const marked = (db: Db, table: string): number => db.prepare(`SELECT count(*) FROM ${table} WHERE _removed_at IS NOT NULL`).pluck().get() as number;

async function repair(db: Db, stream: 'orders', acceptRemovals = false) {
  const config = testConfig({ url: hostile.url, keys: sim.keys }, db.name);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    return await runVerify({ db, client, config, logger, streams: [stream], mode: 'full', requests: 1, repair: true, acceptRemovals });
  } finally {
    await client.close();
  }
}

describe('verify --repair and a mass removal', () => {
  it('an orders list that answers empty marks no order removed and fails the stream, until --accept-removals confirms', async () => {
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path, ['orders']);
    hostile.act({ kind: 'empty-list', list: 'orders' });

    const refused = await repair(db, 'orders');
    expect(refused.ok).toBe(false);
    expect(refused.streams[0].extra_count).toBe(1500);
    expect(refused.streams[0].error).toBe(
      'the repair would mark 1500 of 1500 stored orders rows removed (100%), as if the API had none, so nothing was marked; if the API really lost those rows, confirm with verify --repair --accept-removals',
    );
    expect(marked(db, 'orders')).toBe(0);

    const confirmed = await repair(db, 'orders', true);
    expect(confirmed.streams[0].error).toBeUndefined();
    expect(confirmed.streams[0].repaired?.removed).toBe(1500);
    expect(marked(db, 'orders')).toBe(1500);
    db.close();
  });

  it('more than sync.maxRemovedShare of a table found extra is refused; a smaller share is marked', async () => {
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path, ['orders']);
    // Rows the API never had, as a replayed or foreign page would leave them: copies of real orders under new ids.
    const addExtras = (count: number, from: number): void => {
      db.prepare(
        `INSERT INTO orders (id, raw, _synced_at, _change_seq)
         SELECT id + ?, json_set(raw, '$.id', id + ?), _synced_at, _change_seq FROM orders WHERE _removed_at IS NULL ORDER BY id LIMIT ?`,
      ).run(from, from, count);
    };
    addExtras(1500, 10_000_000);
    addExtras(100, 20_000_000);

    // 1,600 of 3,100 rows: more than half.
    const refused = await repair(db, 'orders');
    expect(refused.streams[0].error).toMatch(/^the repair would mark 1600 of 3100 stored orders rows removed \(51\.6%\), more than sync\.maxRemovedShare \(0\.5\) allows/);
    expect(marked(db, 'orders')).toBe(0);

    db.prepare('DELETE FROM orders WHERE id BETWEEN 10000000 AND 19999999').run();
    const allowed = await repair(db, 'orders');
    expect(allowed.ok).toBe(true);
    expect(allowed.streams[0].repaired?.removed).toBe(100);
    expect(marked(db, 'orders')).toBe(100);
    db.close();
  });

  it('the CLI exits 1 for a refused repair, and 2 for --accept-removals without --repair', async () => {
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path, ['orders']);
    db.close();
    hostile.act({ kind: 'empty-list', list: 'orders' });
    const api = { url: hostile.url, keys: sim.keys };

    const refused = await verifyCli(api, path, ['--full', '--stream', 'orders', '--repair']);
    expect(refused.code).toBe(1);
    expect(refused.report?.streams[0].error).toMatch(/^the repair would mark 1500 of 1500 stored orders rows removed/);

    const misuse = await verifyCli(api, path, ['--full', '--accept-removals']);
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toContain('--accept-removals confirms what --repair marks removed');

    const confirmed = await verifyCli(api, path, ['--full', '--stream', 'orders', '--repair', '--accept-removals']);
    expect(confirmed.code).toBe(0);
    expect(confirmed.report?.streams[0].repaired?.removed).toBe(1500);
  });
});
