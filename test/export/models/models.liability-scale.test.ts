import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport, type ExportReport } from '../../../src/export/index.js';
import type { ManifestFile } from '../../../src/export/manifest.js';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { runSync } from '../../../src/sync/index.js';
import type { Db } from '../../../src/db/open.js';
import type { Config } from '../../../src/config.js';
import { freshMirror } from '../../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../../helpers/sync.js';
import { duckdb, query, silentLogger } from '../helpers.js';

/**
 * A point worth half a cent (200 points to the dollar) makes liability_end a decimal of three places. It is
 * money all the same: a loader must get it as a DECIMAL, exact, not as text it has to cast (issue 32, item 6).
 */
describe('liability_end at a point value of more than two decimals', () => {
  let sim: SimulatorHandle;
  let db: Db;
  let config: Readonly<Config>;
  let report: ExportReport;
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    sim = await startSimulator({ profile: 'single' });
    const mirror = freshMirror();
    db = mirror.db;
    config = testConfig(sim, mirror.path, { export: { dir: join(mirror.dir, 'exports') }, ledger: { pointValue: '0.005' } });
    const [customer] = sim.truth('customers') as Array<{ id: number }>;
    // An odd number of points moves every later day's balance off the even ones a half cent turns into whole cents.
    sim.addBackdatedTransaction({ customerId: customer.id, points: 77, daysAgo: 3 });
    const { logger } = recordingLogger('warn');
    const client = testClient(config, logger);
    try {
      expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    } finally {
      await client.close();
    }
    report = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], tables: ['points_ledger_daily'] });
    duck = await duckdb();
  });
  afterAll(async () => {
    duck?.close();
    db?.close();
    await sim?.close();
  });

  const source = (file: ManifestFile): string => {
    const path = join(config.export.dir, file.path);
    if (file.format === 'parquet') return `read_parquet('${path}', hive_partitioning = false)`;
    const columns = Object.entries(file.duckdbTypes!).map(([name, type]) => `'${name}': '${type}'`).join(', ');
    return `read_csv('${path}', header = true, columns = {${columns}}, hive_partitioning = false)`;
  };

  for (const format of ['parquet', 'csv'] as const) {
    it(`${format}: DuckDB reads it as DECIMAL(18,3), every value the mirror's exact text`, async () => {
      const mirror = db.prepare('SELECT day, liability_end FROM points_ledger_daily ORDER BY day').all() as Array<{ day: string; liability_end: string }>;
      expect(mirror.some((row) => /\.\d{3}$/.test(row.liability_end)), 'a liability with three decimals').toBe(true);
      const file = report.files.find((entry) => entry.format === format)!;
      const [type] = await query(duck.connection, `SELECT typeof(liability_end) AS type FROM ${source(file)} LIMIT 1`);
      expect(type.type).toBe('DECIMAL(18,3)');
      const rows = await query(duck.connection, `SELECT day::VARCHAR AS day, liability_end::VARCHAR AS liability FROM ${source(file)} ORDER BY day`);
      // DuckDB writes each value with the column's three places; the mirror drops zeros past two: the same decimals.
      expect(rows.map((row) => [row.day, row.liability])).toEqual(mirror.map((row) => [row.day, threePlaces(row.liability_end)]));
    });
  }
});

function threePlaces(text: string): string {
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(3, '0')}`;
}
