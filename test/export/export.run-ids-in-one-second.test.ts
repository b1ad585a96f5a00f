import { describe, expect, it } from 'vitest';
import { runExport } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from './helpers.js';

describe('run ids of exports started in the same second', () => {
  it('draw the suffix again when the one drawn is taken, instead of failing the run', async () => {
    const dir = tempDir('export-run-ids-');
    const config = exportConfig(dir, { formats: ['csv'] });
    const db = await fillMirror(config.db.path, 3, 'tiny');
    try {
      const now = new Date('2026-11-26T07:58:45.000Z');
      // Every suffix of that second but one is taken by earlier runs: a single draw would almost surely clash.
      const free = 'beef';
      const insert = db.prepare("INSERT INTO export_runs (run_id, kind, status, pid, started_at, formats) VALUES (?, 'full', 'succeeded', 1, ?, 'csv')");
      db.transaction(() => {
        for (let suffix = 0; suffix < 0x10000; suffix += 1) {
          const hex = suffix.toString(16).padStart(4, '0');
          if (hex !== free) insert.run(`20261126T075845Z-${hex}`, now.toISOString());
        }
      })();
      const report = await runExport({ db, config, logger: silentLogger, now, tables: ['customers'] });
      expect(report.runId).toBe(`20261126T075845Z-${free}`);
      expect(report.files).toHaveLength(1);
    } finally {
      db.close();
    }
  });
});
