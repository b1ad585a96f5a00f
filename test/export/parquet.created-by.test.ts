import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../src/export/delta/checkpoint.js';
import { DiskDeltaStore } from '../../src/export/delta/diskStore.js';
import { readTableState } from '../../src/export/delta/logReader.js';
import { runExport } from '../../src/export/index.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir } from './helpers.js';

/**
 * parquet-java's VersionParser.FORMAT (org.apache.parquet.VersionParser), matched against the whole string
 * as its Matcher.matches() does. A created_by it cannot parse makes parquet-java ignore the min/max of every
 * string column (PARQUET-251), so Spark, Hive and Trino prune nothing on them.
 */
const PARQUET_JAVA_CREATED_BY = /^(.*?)\s+version\s*(?:([^(]*?)\s*(?:\(\s*build\s*([^)]*?)\s*\))?)?$/;

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

describe('the created_by of every Parquet file', () => {
  it('names loyalty-sync, its version and its build in the form parquet-java parses: snapshots, Delta data files and checkpoints', async () => {
    const dir = tempDir('created-by-');
    const config = exportConfig(dir, { formats: ['parquet', 'delta'] });
    const db = await fillMirror(config.db.path, 3, 'tiny');
    const report = await runExport({ db, config, logger: silentLogger, tables: ['orders'] });
    db.close();
    const table = join(config.export.dir, 'delta', 'orders');
    const store = new DiskDeltaStore(table);
    const state = await readTableState(store);
    if (state === null) throw new Error('the export wrote no Delta table');
    // A checkpoint comes every 10 versions; the export's own writer makes one of version 0 here.
    const checkpoint = await writeCheckpoint(store, state, Date.now());

    const files = [
      join(config.export.dir, report.files[0].path),
      ...readdirSync(table).filter((name) => name.endsWith('.parquet')).map((name) => join(table, name)),
      join(table, checkpoint.path),
    ];
    expect(files.length).toBeGreaterThanOrEqual(3);
    const duck = await duckdb();
    try {
      for (const file of files) {
        const [footer] = await query(duck.connection, `SELECT created_by FROM parquet_file_metadata('${file}')`);
        const parsed = PARQUET_JAVA_CREATED_BY.exec(String(footer.created_by));
        expect(parsed, `${file}: ${String(footer.created_by)}`).not.toBeNull();
        const [, application, version, build] = parsed ?? [];
        expect({ application, version }, file).toEqual({ application: PACKAGE.name, version: PACKAGE.version });
        expect(build, file).toMatch(/^[0-9a-f]{12}$/);
      }
    } finally {
      duck.close();
    }
  });
});
