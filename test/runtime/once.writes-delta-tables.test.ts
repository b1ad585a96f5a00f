import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/config.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { expectEngineReadsMirror } from '../export/delta/engineChecks.js';
import { deltaRows, liveMirrorRows } from '../export/delta/mirrorRows.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 17, size: 'tiny' });
});
afterAll(async () => sim.close());

describe('once with delta in export.formats', () => {
  it('keeps a Delta table per stream beside the Parquet snapshot, equal to the mirror, and counts its rows in the metrics', async () => {
    const dir = tempDir('ls-once-delta-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ export: { formats: ['parquet', 'delta'] } }));
    const env = { LOYALTY_CONFIG: join(dir, 'config.json'), LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const metricsFile = join(dir, 'loyalty_sync.prom');
    const result = await runCli(['once', '--metrics-file', metricsFile], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/ok {3}export: .*Delta: 8 new version\(s\)/);

    const mirror = new Database(join(dir, 'mirror.db'), { readonly: true });
    try {
      for (const stream of STREAM_NAMES) {
        const expected = liveMirrorRows(mirror, stream);
        expect(expected.length, stream).toBeGreaterThan(0);
        expect(deltaRows(await readDeltaTable(join(dir, 'exports', 'delta', stream))), stream).toEqual(expected);
        expectEngineReadsMirror(mirror, stream, join(dir, 'exports', 'delta', stream));
      }
      // The model tables the sync built: the same rows, in any order (they have no id).
      for (const model of MODEL_NAMES) {
        const expected = liveMirrorRows(mirror, model);
        expect(expected.length, model).toBeGreaterThan(0);
        expect(deltaRows(await readDeltaTable(join(dir, 'exports', 'delta', model))).sort(), model).toEqual(expected.sort());
      }
      const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
      const transactions = mirror.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
      expect(sumOf(samples, 'loyalty_export_rows_total', { table: 'transactions', format: 'delta' })).toBe(transactions);
    } finally {
      mirror.close();
    }
  });
});
