import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from './helpers.js';

describe('retention', () => {
  const dir = tempDir();
  const config = exportConfig(dir, { retainRuns: 2 });
  let db: Db;
  const reports: ExportReport[] = [];

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 5, 'tiny');
    for (const day of [1, 2, 3, 4]) {
      reports.push(await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers', 'orders'], now: new Date(`2026-11-0${day}T02:00:00Z`) }));
    }
  });
  afterAll(() => db.close());

  it('keeps the newest runs, with their files, and removes older runs and their empty partitions', () => {
    const manifests = readdirSync(join(config.export.dir, 'manifests')).sort();
    expect(manifests).toEqual([`${reports[2].runId}.json`, `${reports[3].runId}.json`, 'latest-partial.json'].sort());
    for (const report of reports.slice(2)) for (const file of report.files) expect(existsSync(join(config.export.dir, file.path))).toBe(true);
    for (const report of reports.slice(0, 2)) for (const file of report.files) expect(existsSync(join(config.export.dir, file.path))).toBe(false);
    expect(readdirSync(join(config.export.dir, 'customers')).sort()).toEqual(['dt=2026-11-03', 'dt=2026-11-04']);
    const latest = JSON.parse(readFileSync(join(config.export.dir, 'manifests', 'latest-partial.json'), 'utf8')) as Manifest;
    expect(latest.runId).toBe(reports[3].runId);
  });

  it('never removes the newest run, even when its clock is behind older runs', async () => {
    const late = await runExport({ db, config: exportConfig(dir, { retainRuns: 1 }), logger: silentLogger, formats: ['csv'], tables: ['customers'], now: new Date('2026-10-01T00:00:00Z') });
    expect(existsSync(late.manifestPath)).toBe(true);
    for (const file of late.files) expect(existsSync(join(config.export.dir, file.path))).toBe(true);
  });
});
