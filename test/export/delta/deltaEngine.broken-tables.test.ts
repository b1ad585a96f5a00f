import { cpSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { commitPath } from '../../../src/export/delta/actions.js';
import { runExport } from '../../../src/export/index.js';
import { DeltaEngineError, keptVersions, openWithEngine, readWithEngine } from '../../helpers/deltaEngine.js';
import { exportConfig, fillMirror, silentLogger, tempDir, upsert } from '../helpers.js';

/**
 * The engine checks are only worth having if a table the kernel cannot read fails them. Each case breaks
 * one part of a good table (versions 0 to 12, a checkpoint at 10) as a writer bug would, and the engine helper
 * must throw, naming the complaint (the kernel's DELTA_KERNEL_ERROR for the log and checkpoint, the Parquet
 * reader's for a data file), so a broken table cannot pass the engine checks silently.
 */
describe('the Delta engine helper on a table the kernel cannot read', () => {
  let db: Db;
  let good: string;
  beforeAll(async () => {
    const dir = tempDir('delta-broken-');
    const config = exportConfig(dir, { formats: ['delta'] });
    db = await fillMirror(config.db.path, 3, 'tiny');
    for (let round = 0; round < 13; round += 1) {
      if (round > 0) {
        const rows = db.prepare('SELECT raw FROM customers ORDER BY id LIMIT 2').pluck().all() as string[];
        upsert(db, 'customers', rows.map((raw) => ({ ...(JSON.parse(raw) as ApiRecord), points_balance: round })));
      }
      await runExport({ db, config, logger: silentLogger, tables: ['customers'] });
    }
    good = join(config.export.dir, 'delta', 'customers');
  });
  afterAll(() => db.close());

  /** A copy of the good table, broken by `breakIt`. */
  function broken(breakIt: (root: string) => void): string {
    const root = tempDir('delta-broken-copy-');
    cpSync(good, root, { recursive: true });
    breakIt(root);
    return root;
  }

  it('reads the good table: 13 versions, the newest through the checkpoint', () => {
    expect(readdirSync(join(good, '_delta_log'))).toContain('00000000000000000010.checkpoint.parquet');
    const view = openWithEngine(good);
    expect(view.versions.map(({ version }) => version)).toEqual(keptVersions(good));
    expect(view.versions).toHaveLength(13);
    expect(view.latest.rows.length).toBeGreaterThan(0);
  });

  it('a first commit without its protocol action: DELTA_KERNEL_ERROR at version 0', () => {
    const root = broken((table) => {
      const path = join(table, commitPath(0));
      const lines = readFileSync(path, 'utf8').split('\n').filter((line) => !line.startsWith('{"protocol"'));
      writeFileSync(path, lines.join('\n'));
    });
    expect(() => openWithEngine(root)).toThrow(DeltaEngineError);
    expect(() => readWithEngine(root, { version: 0 })).toThrow(/at version 0: .*MissingProtocolError.*DELTA_KERNEL_ERROR/s);
  });

  it('a checkpoint that is not Parquet: the newest version does not open', () => {
    const root = broken((table) => writeFileSync(join(table, '_delta_log', '00000000000000000010.checkpoint.parquet'), 'not a checkpoint'));
    expect(() => readWithEngine(root)).toThrow(/ParquetError: .*Corrupt footer.*DELTA_KERNEL_ERROR/s);
  });

  it('a commit missing from the middle of the log: the versions that need it do not open', () => {
    const root = broken((table) => rmSync(join(table, commitPath(5))));
    expect(() => openWithEngine(root)).toThrow(/at version 5: .*LogSegment end version 4 not the same as the specified end version 5.*DELTA_KERNEL_ERROR/s);
  });

  it('a data file cut short: the version that reads it fails', () => {
    const root = broken((table) => {
      const data = readdirSync(table).filter((name) => name.endsWith('.parquet'));
      for (const name of data) truncateSync(join(table, name), 100);
    });
    expect(() => readWithEngine(root)).toThrow(/Not a Parquet file.*part-.*\.parquet.*INCORRECT_DATA/s);
  });
});
