import { MODEL_NAMES } from '../../src/ledger/models/index.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { recordingLogger } from '../helpers/sync.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from './helpers.js';

describe('manifests/latest.json after partial runs and runs of changes', () => {
  const dir = tempDir();
  // Fewer runs kept than come after the complete one: retention must still keep what latest.json names.
  const config = exportConfig(dir, { retainRuns: 2 });
  const root = config.export.dir;
  let db: Db;
  let full: ExportReport;
  let oneTable: ExportReport;
  let changes: ExportReport;
  let secondTable: ExportReport;
  /** What latest.json and latest-partial.json named right after the one-table run. */
  let afterOneTable: { latest: string; partial: Manifest };

  const pointer = (name: string): Manifest => JSON.parse(readFileSync(join(root, 'manifests', name), 'utf8')) as Manifest;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 12, 'tiny');
    full = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'] });
    // `export --table unsubscribes --format csv`
    oneTable = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['unsubscribes'] });
    afterOneTable = { latest: pointer('latest.json').runId, partial: pointer('latest-partial.json') };
    const template = JSON.parse(db.prepare('SELECT raw FROM transactions LIMIT 1').pluck().get() as string) as ApiRecord;
    upsert(db, 'transactions', [{ ...template, id: 700_000_001 }]);
    changes = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], sinceLast: true });
    secondTable = await runExport({ db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
  });
  afterAll(() => db.close());

  it('names the full run of every table, still', () => {
    expect(afterOneTable.latest).toBe(full.runId);
    expect(changes.kind).toBe('since_last');
    const latest = pointer('latest.json');
    expect(latest.runId).toBe(full.runId);
    expect(latest).toMatchObject({ kind: 'full', complete: true });
    expect([...new Set(latest.files.map((file) => file.table))].sort()).toEqual([...STREAM_NAMES, ...MODEL_NAMES].sort());
    expect(latest.files.every((file) => file.kind === 'full')).toBe(true);
  });

  it('gives partial runs and runs of changes pointers of their own', () => {
    expect(pointer('latest-partial.json')).toMatchObject({ runId: secondTable.runId, kind: 'full', complete: false });
    expect(pointer('latest-changes.json')).toMatchObject({ runId: changes.runId, kind: 'since_last', complete: false });
    expect(afterOneTable.partial).toMatchObject({ runId: oneTable.runId, kind: 'full', complete: false });
  });

  it('keeps every file latest.json lists, though newer runs pushed its run out of the retained ones', () => {
    for (const file of pointer('latest.json').files) expect(existsSync(join(root, file.path)), file.path).toBe(true);
    expect(existsSync(full.manifestPath)).toBe(true);
    // The one-table run is neither among the newest two nor named by a pointer: it went.
    expect(existsSync(oneTable.manifestPath)).toBe(false);
    for (const file of oneTable.files) expect(existsSync(join(root, file.path))).toBe(false);
  });
});

describe('a run that began before the run latest.json names, and finishes after it (paused, or slower)', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  const root = config.export.dir;
  const pointer = (): Manifest => JSON.parse(readFileSync(join(root, 'manifests', 'latest.json'), 'utf8')) as Manifest;

  it('leaves latest.json naming the newer run; its own manifest is still written', async () => {
    const db = await fillMirror(config.db.path, 14, 'tiny');
    const now = Date.now();
    const newer = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now) });
    const { logger, records } = recordingLogger('warn');
    const older = await runExport({ db, config, logger, formats: ['csv'], now: new Date(now - 3_600_000) });
    expect(pointer().runId).toBe(newer.runId);
    expect(records.map((record) => record.msg)).toContain(`latest.json already names run ${newer.runId}, which began after this one: it stays; this run is at manifests/${older.runId}.json`);
    expect(JSON.parse(readFileSync(older.manifestPath, 'utf8'))).toMatchObject({ runId: older.runId, complete: true });

    // A run stamped by a clock days ahead does not hold latest.json until that day: the next run takes it.
    const ahead = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now + 2 * 86_400_000) });
    expect(pointer().runId).toBe(ahead.runId);
    const next = await runExport({ db, config, logger: silentLogger, formats: ['csv'], now: new Date(now + 60_000) });
    expect(pointer().runId).toBe(next.runId);
    db.close();
  });
});
