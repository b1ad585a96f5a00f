import { MODEL_NAMES } from '../../../src/ledger/models/index.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../../src/config.js';
import { runExport } from '../../../src/export/index.js';
import { runCli } from '../../helpers/cli.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from '../helpers.js';

describe('status and the Delta tables', () => {
  it('shows each table with its version, active files, bytes, rows and last commit', async () => {
    const dir = tempDir('delta-status-');
    const config = exportConfig(dir, { formats: ['delta'] });
    const db = await fillMirror(config.db.path, 8, 'tiny');
    const report = await runExport({ db, config, logger: silentLogger });
    db.close();
    const env = { LOYALTY_DB: config.db.path, LOYALTY_EXPORT_DIR: config.export.dir };

    const json = await runCli(['status', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const delta = (JSON.parse(json.stdout) as { delta: Array<Record<string, unknown>> }).delta;
    expect(delta.map((table) => table.table)).toEqual([...STREAM_NAMES, ...MODEL_NAMES].sort());
    for (const table of delta) {
      const written = report.delta.find((entry) => entry.table === table.table)!;
      expect(table).toMatchObject({ location: join(config.export.dir, 'delta', String(table.table)), version: 0, files: written.files, bytes: written.bytes });
      expect(String(table.lastCommitAt)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }

    const text = await runCli(['status'], { env });
    expect(text.stdout).toMatch(/Delta tables\ntable\s+version\s+files\s+bytes\s+rows\s+last commit\s+location\n/);
    expect(text.stdout).toMatch(new RegExp(`transactions\\s+0\\s+${report.delta.find((entry) => entry.table === 'transactions')!.files}\\s`));
  });
});
