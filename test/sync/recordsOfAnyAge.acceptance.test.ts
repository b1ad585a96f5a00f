import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import type { Manifest } from '../../src/export/manifest.js';
import { startSimulator, type OldRecordChanges, type SimulatorHandle } from '../../src/simulator/index.js';
import type { VerifyReport } from '../../src/verify/index.js';
import { runCli } from '../helpers/cli.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { mirrorDiff, mirrorDiffAll } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';
import { readCsv } from '../export/helpers.js';
import { deltaRows, liveMirrorRows } from '../export/delta/mirrorRows.js';

let sim: SimulatorHandle | undefined;
afterAll(async () => {
  await sim?.close();
});

const STREAM_TABLES = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'] as const;

it('changes months old reach the mirror: a plain sync brings activities and customers, the deep refresh the refunds, and exports and Delta tables follow', async () => {
  sim = await startSimulator({ seed: 17, size: 'small', faults: { serverError: 0.03, drop: 0.02, truncate: 0.02, seed: 4 } });
  const dir = tempDir('loyalty-any-age-');
  const exportDir = join(dir, 'exports');
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({ api: { requestsPerSecond: 1000, burst: 50, retry: { attempts: 10, minDelayMs: 1, maxDelayMs: 20, maxElapsedMs: 30000 } }, export: { dir: exportDir, formats: ['csv', 'parquet', 'delta'] } }),
  );
  const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_CONFIG: configPath, LOG_LEVEL: 'warn' };
  const cli = async (...args: string[]) => {
    const result = await runCli(args, { env });
    return { ...result, said: `${args.join(' ')} → ${result.code}\n${result.stdout}\n${result.stderr}` };
  };
  const ok = async (...args: string[]) => {
    const result = await cli(...args);
    expect(result.code, result.said).toBe(0);
    return result;
  };

  await ok('sync');
  await ok('export');
  const changed: OldRecordChanges = sim.changeOldRecords({
    approve: { count: 4, minAgeDays: 45 },
    void: { count: 3, minAgeDays: 60 },
    refund: { count: 4, minAgeDays: 60 },
    edit: { count: 4, minAgeDays: 100 },
  });

  // A plain sync: the approvals and voids come with their transactions, which signal the activities; the
  // customers' edits come by updated_at. The refunds of old orders come with nothing: they wait.
  await ok('sync');
  let db = openDatabase(env.LOYALTY_DB);
  expect(mirrorDiff(db, sim, 'activities')).toEqual([]);
  expect(mirrorDiff(db, sim, 'customers')).toEqual([]);
  expect(mirrorDiff(db, sim, 'transactions')).toEqual([]);
  const staleOrders = mirrorDiff(db, sim, 'orders').map((line) => Number(/^orders (\d+):/.exec(line)?.[1]));
  expect(staleOrders.sort((a, b) => a - b)).toEqual(changed.refunded);
  db.close();
  // verify tells them apart from defects: it passes, listing the refunds as pending until the next deep refresh.
  const pending = await ok('verify', '--full', '--json');
  const verified = JSON.parse(pending.stdout) as VerifyReport;
  expect(verified.streams.map((stream) => [stream.stream, stream.defects])).toEqual(STREAM_TABLES.map((stream) => [stream, 0]));
  const orders = verified.streams.find((stream) => stream.stream === 'orders')!;
  expect(orders.pending.rows.map((row) => [row.id, row.pass])).toEqual(changed.refunded.map((id) => [id, 'next deep refresh']));

  // The deep refresh brings the rest: the mirror equals the truth, row for row.
  await ok('sync', '--deep');
  db = openDatabase(env.LOYALTY_DB);
  expect(mirrorDiffAll(db, sim)).toEqual([]);
  db.close();
  const clean = JSON.parse((await ok('verify', '--full', '--json')).stdout) as VerifyReport;
  expect(clean.streams.map((stream) => [stream.stream, stream.defects, stream.pending.count])).toEqual(STREAM_TABLES.map((stream) => [stream, 0, 0]));

  // The next --since-last export carries every change, and the Delta tables equal the mirror.
  await ok('export', '--since-last');
  const manifest = JSON.parse(await readFile(join(exportDir, 'manifests', 'latest-changes.json'), 'utf8')) as Manifest;
  const exportedIds = async (table: string): Promise<number[]> => {
    const file = manifest.files.find((entry) => entry.table === table && entry.format === 'csv');
    if (file === undefined) return [];
    const { header, rows } = await readCsv(join(exportDir, file.path));
    return rows.map((row) => Number(row[header.indexOf('id')]));
  };
  expect(await exportedIds('activities')).toEqual(expect.arrayContaining([...changed.approved, ...changed.voided]));
  expect(await exportedIds('orders')).toEqual(expect.arrayContaining(changed.refunded));
  expect(await exportedIds('customers')).toEqual(expect.arrayContaining(changed.edited));
  expect(await exportedIds('transactions')).toEqual(expect.arrayContaining(changed.transactions));
  db = openDatabase(env.LOYALTY_DB);
  for (const table of STREAM_TABLES) {
    expect(deltaRows(await readDeltaTable(join(exportDir, 'delta', table))), table).toEqual(liveMirrorRows(db, table));
  }
  db.close();
  // (Last: its export would be the next --since-last's base.)
  expect((await ok('once', '--verify')).stdout).toMatch(/^ok {3}verify: no defects, /m);
});
