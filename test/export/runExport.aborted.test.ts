import { existsSync, readdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runExport } from '../../src/export/index.js';
import { bigTransactionsMirror } from './bigMirror.js';
import { exportConfig, silentLogger, tempDir } from './helpers.js';

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('an export stopped by its signal', () => {
  const dir = tempDir();
  const config = exportConfig(dir, { parquetRowGroupSize: 1000 });
  let db: Db;

  beforeAll(() => {
    db = bigTransactionsMirror(config.db.path, 60_000);
  });
  afterAll(() => db.close());

  it.each(['csv', 'parquet'] as const)('removes its %s temporary file, records the failure and leaves no file behind', async (format) => {
    const stop = new AbortController();
    const running = runExport({ db, config, logger: silentLogger, formats: [format], tables: ['transactions'], signal: stop.signal });
    const outcome = running.then(() => 'finished', (error: Error) => error.message);
    while (!filesUnder(config.export.dir).some((name) => name.startsWith('.tmp-'))) {
      if ((await Promise.race([outcome, delay(5, 'waiting')])) !== 'waiting') throw new Error('the export finished before it could be stopped');
    }
    stop.abort(new Error('stopped by the test'));
    expect(await outcome).toMatch(/^Export \S+ failed: writing transactions\/dt=.*: stopped by the test$/);
    expect(filesUnder(config.export.dir)).toEqual([]);
    expect(db.prepare(`SELECT status FROM export_runs ORDER BY started_at DESC, rowid DESC LIMIT 1`).pluck().get()).toBe('failed');
  });
});
