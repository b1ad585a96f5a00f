import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { lastExport, runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { exportConfig, fillMirror, silentLogger, tempDir } from './helpers.js';

describe('the manifest of a run', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  let db: Db;
  let report: ExportReport;
  let manifest: Manifest;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 3, 'tiny');
    db.prepare(`INSERT INTO sync_state (stream, watermark, updated_at) VALUES ('transactions', '4711', '2026-03-01T00:00:00Z'), ('customers', '2026-02-28T10:00:00Z', '2026-03-01T00:00:00Z')`).run();
    report = await runExport({ db, config, logger: silentLogger, now: new Date('2026-11-22T20:15:00Z') });
    manifest = JSON.parse(readFileSync(report.manifestPath, 'utf8')) as Manifest;
  });
  afterAll(() => db.close());

  it('lists every file with rows, bytes and sha256 that match the file on disk', () => {
    // Five streams and three model tables, in CSV and Parquet.
    expect(manifest.files).toHaveLength(16);
    for (const file of manifest.files) {
      const bytes = readFileSync(join(config.export.dir, file.path));
      expect(file.bytes).toBe(bytes.length);
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(file.path).toMatch(new RegExp(`^${file.table}/dt=2026-11-22/${file.table}-${manifest.runId}\\.${file.format}$`));
    }
  });

  it('names the run, its kind, the tool, the snapshot watermarks and the column types', () => {
    expect(manifest.runId).toMatch(/^20261122T201500Z-[0-9a-f]{4}$/);
    expect(report.manifestPath).toBe(join(config.export.dir, 'manifests', `${manifest.runId}.json`));
    expect(manifest).toMatchObject({ kind: 'full', complete: true, requestedKind: 'full', previousRunId: null, tool: 'loyalty-sync 0.1.0', program: null, createdAt: '2026-11-22T20:15:00.000Z' });
    expect(manifest.snapshot.watermarks).toEqual({ customers: '2026-02-28T10:00:00Z', transactions: '4711' });
    const orders = manifest.files.find((file) => file.table === 'orders' && file.format === 'parquet')!;
    expect(orders.columns.find((column) => column.name === 'total')).toEqual({ name: 'total', type: 'decimal', parquet: { physical: 'INT64', logical: 'DECIMAL(18,2)' } });
    expect(orders.columns.find((column) => column.name === 'created_at')).toEqual({ name: 'created_at', type: 'timestamp', parquet: { physical: 'INT64', logical: 'TIMESTAMP(MICROS,isAdjustedToUTC=true)' } });
    const csv = manifest.files.find((file) => file.table === 'orders' && file.format === 'csv')!;
    expect(csv.columns.find((column) => column.name === 'id')).toEqual({ name: 'id', type: 'integer' });
  });

  it('is copied to latest.json and recorded for status', () => {
    expect(readFileSync(join(config.export.dir, 'manifests', 'latest.json'), 'utf8')).toBe(readFileSync(report.manifestPath, 'utf8'));
    expect(lastExport(db)).toMatchObject({ runId: manifest.runId, manifestPath: report.manifestPath, kind: 'full' });
  });

  it('creates files readable by the owner only, in owner-only folders', () => {
    for (const file of manifest.files) {
      expect(statSync(join(config.export.dir, file.path)).mode & 0o777).toBe(0o600);
      expect(statSync(join(config.export.dir, file.path, '..')).mode & 0o777).toBe(0o700);
      expect(statSync(join(config.export.dir, file.table)).mode & 0o777).toBe(0o700);
    }
    expect(statSync(report.manifestPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(config.export.dir, 'manifests', 'latest.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(config.export.dir, 'manifests')).mode & 0o777).toBe(0o700);
  });
});
