import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runExport } from '../../src/export/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runVerify } from '../../src/verify/index.js';
import { readCsv } from '../export/helpers.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('verify --repair and exports', () => {
  it('ships the repaired rows and the removal marks in the next --since-last export, with _removed_at in the schema', async () => {
    sim = await startSimulator({ seed: 9, size: 'tiny' });
    const { db, path, dir } = freshMirror();
    const config = testConfig(sim, path, { export: { dir: join(dir, 'exports'), formats: ['csv'] } });
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    await runExport({ db, config, logger, sinceLast: true });

    const [lostA, lostB] = db.prepare('SELECT id FROM transactions ORDER BY id LIMIT 2 OFFSET 10').pluck().all() as number[];
    db.prepare('DELETE FROM transactions WHERE id IN (?, ?)').run(lostA, lostB);
    const foreign = 1 + (db.prepare('SELECT max(id) FROM transactions').pluck().get() as number) + 50_000;
    db.prepare(
      `INSERT INTO transactions (id, created_at, raw, _synced_at, _change_seq)
       SELECT ?, created_at, json_set(raw, '$.id', ?), _synced_at, _change_seq FROM transactions ORDER BY id LIMIT 1`,
    ).run(foreign, foreign);

    const report = await runVerify({ db, client, config, logger, streams: ['transactions'], mode: 'full', requests: 1, repair: true });
    expect(report.streams[0].repaired).toEqual({ inserted: 2, updated: 0, removed: 1 });
    await client.close();

    const second = await runExport({ db, config, logger, sinceLast: true });
    const file = second.files.find((entry) => entry.table === 'transactions')!;
    const { header, rows } = await readCsv(join(config.export.dir, file.path));
    const column = (name: string) => header.indexOf(name);
    expect(rows.map((row) => [Number(row[column('id')]), row[column('_removed_at')] !== null])).toEqual([
      [lostA, false],
      [lostB, false],
      [foreign, true],
    ]);
    const manifest = JSON.parse(await readFile(second.manifestPath, 'utf8')) as { files: Array<{ table: string; columns: Array<{ name: string }> }> };
    // Streams carry the removal marks; a model is rebuilt, not marked.
    for (const entry of manifest.files.filter((file) => !MODEL_NAMES.includes(file.table))) expect(entry.columns.map((c) => c.name), entry.table).toContain('_removed_at');
    db.close();
  });
});
