import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport, type ExportReport } from '../../../src/export/index.js';
import type { ManifestFile } from '../../../src/export/manifest.js';
import { readManifest } from '../../../src/export/manifest.js';
import { runCli } from '../../helpers/cli.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { expectEngineReadsMirror } from '../delta/engineChecks.js';
import { deltaRows, liveMirrorRows } from '../delta/mirrorRows.js';
import { duckdb, query, silentLogger } from '../helpers.js';
import { ledgerMirror, type LedgerMirror } from './ledgerMirror.js';

const MODELS = ['customer_points_daily', 'points_ledger_daily', 'program_metrics_daily'] as const;

/** The types DuckDB must read, in Parquet and in CSV read with the manifest's duckdbTypes. */
const EXPECTED_TYPES: Record<(typeof MODELS)[number], Record<string, string>> = {
  points_ledger_daily: { day: 'DATE', approved_end: 'BIGINT', earned: 'BIGINT', redeemed: 'BIGINT', customers: 'BIGINT', liability_end: 'DECIMAL(18,2)' },
  customer_points_daily: { customer_id: 'BIGINT', day: 'DATE', approved_change: 'BIGINT', pending_end: 'BIGINT' },
  program_metrics_daily: { day: 'DATE', members: 'BIGINT', revenue: 'DECIMAL(18,2)', member_revenue: 'DECIMAL(18,2)', redemption_rate_30d: 'DOUBLE', member_revenue_share: 'DOUBLE' },
};

/** Figures DuckDB computes from a file, and SQLite from the mirror, per table. */
const FIGURES: Record<(typeof MODELS)[number], { duck: string; mirror: string }> = {
  points_ledger_daily: {
    duck: `count(*)::VARCHAR AS n, min(day)::VARCHAR AS first, max(day)::VARCHAR AS last, sum(approved_end)::VARCHAR AS approved, sum(redeemed)::VARCHAR AS redeemed, sum(liability_end)::VARCHAR AS liability`,
    mirror: `CAST(count(*) AS TEXT) AS n, min(day) AS first, max(day) AS last, CAST(sum(approved_end) AS TEXT) AS approved, CAST(sum(redeemed) AS TEXT) AS redeemed, printf('%.2f', sum(CAST(liability_end AS REAL))) AS liability`,
  },
  customer_points_daily: {
    duck: `count(*)::VARCHAR AS n, min(day)::VARCHAR AS first, max(day)::VARCHAR AS last, sum(approved_end)::VARCHAR AS approved, sum(customer_id * 1000 + pending_end)::VARCHAR AS mixed`,
    mirror: `CAST(count(*) AS TEXT) AS n, min(day) AS first, max(day) AS last, CAST(sum(approved_end) AS TEXT) AS approved, CAST(sum(customer_id * 1000 + pending_end) AS TEXT) AS mixed`,
  },
  program_metrics_daily: {
    duck: `count(*)::VARCHAR AS n, min(day)::VARCHAR AS first, max(day)::VARCHAR AS last, sum(members)::VARCHAR AS members, sum(revenue)::VARCHAR AS revenue, round(sum(member_revenue_share), 9)::VARCHAR AS shares`,
    mirror: `CAST(count(*) AS TEXT) AS n, min(day) AS first, max(day) AS last, CAST(sum(members) AS TEXT) AS members, printf('%.2f', sum(CAST(revenue AS REAL))) AS revenue, CAST(round(sum(member_revenue_share), 9) AS TEXT) AS shares`,
  },
};

describe('the model tables exported like the streams: CSV, Parquet and Delta, typed', () => {
  let mirror: LedgerMirror;
  let report: ExportReport;
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    mirror = await ledgerMirror();
    report = await runExport({ db: mirror.db, config: mirror.config, logger: silentLogger, formats: ['csv', 'parquet', 'delta'] });
    duck = await duckdb();
  });
  afterAll(async () => {
    duck?.close();
    await mirror?.close();
  });

  const fileOf = (table: string, format: 'csv' | 'parquet'): ManifestFile => report.files.find((file) => file.table === table && file.format === format)!;
  const pathOf = (file: ManifestFile): string => join(mirror.config.export.dir, file.path);
  const mirrorCount = (table: string): number => mirror.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

  it('lists every model in the manifest as kind "model" with its rows, beside the streams of kind "stream"', async () => {
    const manifest = await readManifest(report.manifestPath);
    for (const table of MODELS) {
      expect(mirrorCount(table), table).toBeGreaterThan(10);
      expect(manifest.tables).toContainEqual({ table, kind: 'model', rows: mirrorCount(table) });
      for (const format of ['csv', 'parquet'] as const) expect(fileOf(table, format).rows, `${table} ${format}`).toBe(mirrorCount(table));
    }
    expect(manifest.tables.filter((entry) => entry.kind === 'stream').map((entry) => entry.table)).toEqual(['customers', 'orders', 'activities', 'transactions', 'unsubscribes']);
    // A full run of every stream stays complete with the models in it.
    expect(manifest.complete).toBe(true);
    // A loader learns the zone the days are in and the point value of the liability, as the models were built.
    const lastDay = mirror.db.prepare('SELECT max(day) FROM points_ledger_daily').pluck().get();
    expect(manifest.ledger).toEqual({ timeZone: 'America/New_York', pointValue: '0.01', lastDay });
  });

  for (const table of MODELS) {
    it(`${table}: DuckDB reads the Parquet file with DATE, BIGINT, DECIMAL and DOUBLE, and its figures are the mirror's`, async () => {
      const path = pathOf(fileOf(table, 'parquet'));
      const types = Object.fromEntries((await query(duck.connection, `DESCRIBE SELECT * FROM read_parquet('${path}', hive_partitioning = false)`)).map((row) => [row.column_name, row.column_type]));
      expect(types).toMatchObject(EXPECTED_TYPES[table]);
      const [fromFile] = await query(duck.connection, `SELECT ${FIGURES[table].duck} FROM read_parquet('${path}', hive_partitioning = false)`);
      expect(fromFile).toEqual(mirror.db.prepare(`SELECT ${FIGURES[table].mirror} FROM ${table}`).get());
    });

    it(`${table}: DuckDB reads the CSV file with the manifest's types, and its figures are the mirror's`, async () => {
      const file = fileOf(table, 'csv');
      const columns = Object.entries(file.duckdbTypes!).map(([name, type]) => `'${name}': '${type}'`).join(', ');
      const source = `read_csv('${pathOf(file)}', header = true, columns = {${columns}}, hive_partitioning = false)`;
      const types = Object.fromEntries((await query(duck.connection, `DESCRIBE SELECT * FROM ${source}`)).map((row) => [row.column_name, row.column_type]));
      expect(types).toMatchObject(EXPECTED_TYPES[table]);
      const [fromFile] = await query(duck.connection, `SELECT ${FIGURES[table].duck} FROM ${source}`);
      expect(fromFile).toEqual(mirror.db.prepare(`SELECT ${FIGURES[table].mirror} FROM ${table}`).get());
    });
  }

  it('writes each model as a Delta table equal to the mirror in every column, with day a Delta date; after the next sync and export, again', async () => {
    const check = async (): Promise<void> => {
      for (const table of MODELS) {
        const contents = await readDeltaTable(join(mirror.config.export.dir, 'delta', table));
        const fields = (JSON.parse(contents.state.metadata.schemaString) as { fields: Array<{ name: string; type: string }> }).fields;
        expect(fields.find((field) => field.name === 'day')?.type, table).toBe('date');
        expect(fields.find((field) => field.name === 'transactions' || field.name === 'members')?.type, table).toBe('long');
        expect([...deltaRows(contents)].sort(), table).toEqual([...liveMirrorRows(mirror.db, table)].sort());
        // Delta's own kernel reads it too: day a Date32, every column equal to the mirror, every version opens.
        expectEngineReadsMirror(mirror.db, table, join(mirror.config.export.dir, 'delta', table));
      }
    };
    await check();
    const before = report.delta.filter((entry) => MODELS.includes(entry.table as (typeof MODELS)[number])).map((entry) => entry.version);
    expect(before).toEqual([0, 0, 0]);

    // A late-visible transaction 40 days back changes every day of the models after it.
    mirror.sim.tick(3);
    const [customer] = mirror.sim.truth('customers') as Array<{ id: number }>;
    mirror.sim.addBackdatedTransaction({ customerId: customer.id, points: 77, daysAgo: 40 });
    await mirror.sync();
    const again = await runExport({ db: mirror.db, config: mirror.config, logger: silentLogger, formats: ['delta'], sinceLast: true });
    expect(again.delta.filter((entry) => MODELS.includes(entry.table as (typeof MODELS)[number])).map((entry) => entry.version)).toEqual([1, 1, 1]);
    await check();
  });

  it('export --table points_ledger_daily writes that model alone, listed as a model with its rows, a partial run', async () => {
    const exportDir = join(mirror.dir, 'one-table');
    const result = await runCli(['export', '--table', 'points_ledger_daily', '--format', 'csv,parquet'], { env: { LOYALTY_DB: mirror.path, LOYALTY_EXPORT_DIR: exportDir } });
    expect(result.code, result.stderr).toBe(0);
    const manifest = await readManifest(join(exportDir, 'manifests', 'latest-partial.json'));
    const rows = mirrorCount('points_ledger_daily');
    expect(manifest.tables).toEqual([{ table: 'points_ledger_daily', kind: 'model', rows }]);
    expect(manifest.files.map((file) => [file.table, file.format, file.rows, file.kind])).toEqual([
      ['points_ledger_daily', 'csv', rows, 'full'],
      ['points_ledger_daily', 'parquet', rows, 'full'],
    ]);
    expect(manifest.complete).toBe(false);
    expect(manifest.files[1].columns.find((column) => column.name === 'day')).toEqual({ name: 'day', type: 'date', parquet: { physical: 'INT32', logical: 'DATE' } });
    expect(manifest.ledger?.timeZone).toBe('America/New_York');
  });

  it('a run of streams alone records no ledger', async () => {
    const config = { ...mirror.config, export: { ...mirror.config.export, dir: join(mirror.dir, 'streams-only') } };
    const only = await runExport({ db: mirror.db, config, logger: silentLogger, formats: ['csv'], tables: ['customers'] });
    expect('ledger' in (await readManifest(only.manifestPath))).toBe(false);
  });
});
