import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runExport } from '../../src/export/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runVerify } from '../../src/verify/index.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('verify --repair and the Delta tables', () => {
  it('rows verify marks removed leave the table, rows it restores join it, at the next export', async () => {
    sim = await startSimulator({ seed: 13, size: 'tiny' });
    const { db, path, dir } = freshMirror();
    const config = testConfig(sim, path, { export: { dir: join(dir, 'exports'), formats: ['delta'] } });
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);

    // Damage the mirror before the first export, so the table holds the damage too: one row lost, one the API never had.
    const lost = db.prepare('SELECT id FROM transactions ORDER BY id LIMIT 1 OFFSET 5').pluck().get() as number;
    db.prepare('DELETE FROM transactions WHERE id = ?').run(lost);
    const extra = 1 + (db.prepare('SELECT max(id) FROM transactions').pluck().get() as number) + 50_000;
    db.prepare(`INSERT INTO transactions (id, created_at, raw, _synced_at, _change_seq) SELECT ?, created_at, json_set(raw, '$.id', ?), _synced_at, _change_seq FROM transactions ORDER BY id LIMIT 1`).run(extra, extra);
    await runExport({ db, config, logger });
    const table = join(config.export.dir, 'delta', 'transactions');
    const ids = async (): Promise<string[]> => (await readDeltaTable(table)).rows.map((row) => String(row.id));
    expect(await ids()).toContain(String(extra));
    expect(await ids()).not.toContain(String(lost));

    const report = await runVerify({ db, client, config, logger, streams: ['transactions'], mode: 'full', requests: 1, repair: true });
    expect(report.streams[0].repaired).toEqual({ inserted: 1, updated: 0, removed: 1 });
    await client.close();
    const second = await runExport({ db, config, logger });
    expect(second.delta.find((entry) => entry.table === 'transactions')).toMatchObject({ version: 1, committed: true });

    const after = await ids();
    expect(after).not.toContain(String(extra));
    expect(after).toContain(String(lost));
    const live = (db.prepare('SELECT id FROM transactions WHERE _removed_at IS NULL ORDER BY id').pluck().all() as number[]).map(String);
    expect(after).toEqual(live);
    db.close();
  });
});
