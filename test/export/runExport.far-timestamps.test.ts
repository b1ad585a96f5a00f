import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import type { ApiRecord } from '../../src/db/upsertRecords.js';
import { runExport, type ExportReport, type Manifest } from '../../src/export/index.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { recordingLogger } from '../helpers/sync.js';
import { FAR_TIERS, farTierCustomers } from './fixtures.js';
import { duckdb, exportConfig, fillMirror, query, tempDir, upsert } from './helpers.js';

/** Microseconds since 1970 of an ISO text in UTC, computed apart from the code under test (Date holds milliseconds only). */
function epochMicros(iso: string): string {
  const [, whole, fraction = ''] = /^(.*?)(?:\.(\d+))?Z$/.exec(iso) ?? [];
  const millis = Date.parse(`${whole}Z`);
  return String(BigInt(millis) * 1000n + BigInt(fraction.padEnd(6, '0')));
}

const EXPECTED = FAR_TIERS.map(({ id, started_at, expires_at }) => ({ id: String(id), started: epochMicros(started_at), expires: epochMicros(expires_at) }));

/** The far-tier customers' tier dates in these Parquet files, as DuckDB reads them (epoch_us: the same in every time zone). */
async function farTiers(connection: DuckDBConnection, files: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const list = files.map((file) => `'${file}'`).join(', ');
  const ids = EXPECTED.map((row) => row.id).join(', ');
  return query(connection, `SELECT id::VARCHAR AS id, epoch_us(tier_started_at)::VARCHAR AS started, epoch_us(tier_expires_at)::VARCHAR AS expires FROM read_parquet([${list}]) WHERE id IN (${ids}) ORDER BY id`);
}

/** Rows of these files with a tier start: every one the mirror holds but 31 February. */
async function startedTiers(connection: DuckDBConnection, files: readonly string[]): Promise<number> {
  const [{ n }] = await query(connection, `SELECT count(tier_started_at)::INTEGER AS n FROM read_parquet([${files.map((file) => `'${file}'`).join(', ')}])`);
  return Number(n);
}

describe('timestamps far from today, in the Parquet snapshot and the Delta table', () => {
  const dir = tempDir('export-far-');
  const config = exportConfig(dir, { formats: ['parquet', 'delta'] });
  const { logger, records } = recordingLogger('warn');
  let db: Db;
  let report: ExportReport;
  const notADay = { id: 910_000_009, started_at: '2026-02-31T10:00:00Z' };

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 5, 'tiny');
    const template = JSON.parse(db.prepare('SELECT raw FROM customers WHERE tier_id IS NOT NULL LIMIT 1').pluck().get() as string) as ApiRecord;
    const [never] = farTierCustomers(template);
    // A mirror synced before the sync's check counted a month's days holds a 31 February as text: no Parquet timestamp can.
    const impossible = { ...never, id: notADay.id, merchant_id: 'not-a-day', loyalty_tier_membership: { ...(never.loyalty_tier_membership as object), started_at: notADay.started_at } };
    upsert(db, 'customers', [...farTierCustomers(template), impossible]);
    expect(db.prepare('SELECT tier_started_at FROM customers WHERE id = ?').pluck().get(notADay.id)).toBeNull();
    db.prepare('UPDATE customers SET tier_started_at = ? WHERE id = ?').run(notADay.started_at, notADay.id);
    report = await runExport({ db, config, logger, tables: ['customers'] });
  });
  afterAll(() => db.close());

  it('writes a tier that never expires (9999-12-31T23:59:59Z) and one started in 1650 exactly, to the microsecond, as DuckDB reads them back', async () => {
    const mirror = db.prepare('SELECT count(*) FROM customers WHERE tier_started_at IS NOT NULL').pluck().get() as number;
    const snapshot = [join(config.export.dir, report.files[0].path)];
    const table = join(config.export.dir, 'delta', 'customers');
    const delta = [...(await readDeltaTable(table)).state.files.keys()].map((path) => join(table, path));
    const duck = await duckdb();
    try {
      for (const files of [snapshot, delta]) {
        expect(await farTiers(duck.connection, files), files[0]).toEqual(EXPECTED);
        expect(await startedTiers(duck.connection, files), files[0]).toBe(mirror - 1);
      }
    } finally {
      duck.close();
    }
  });

  it('names a timestamp no Parquet column can hold (31 February) in a warning and in the manifest, for the snapshot and the Delta table', () => {
    const named = { invalidValues: { tier_started_at: 1 }, firstInvalidValues: { tier_started_at: { id: String(notADay.id), value: notADay.started_at } } };
    const manifest = JSON.parse(readFileSync(report.manifestPath, 'utf8')) as Manifest;
    expect(manifest.files[0]).toMatchObject({ table: 'customers', format: 'parquet', ...named });
    expect(manifest.delta?.[0]).toMatchObject({ table: 'customers', where: 'local', ...named });

    const warnings = records.filter((record) => record.level === 40 && record.column === 'tier_started_at').map((record) => String(record.msg));
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) expect(warning).toContain(`customers.tier_started_at: 1 value(s) its Parquet type cannot hold were written as NULL`);
    for (const warning of warnings) expect(warning).toContain(`the first "${notADay.started_at}" (id ${notADay.id})`);
    expect(warnings[0]).toContain(report.files[0].path);
    expect(warnings[1]).toContain(`version 0 of Delta table ${join(config.export.dir, 'delta', 'customers')}`);
  });
});
