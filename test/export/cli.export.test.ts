import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runCli, sentences } from '../helpers/cli.js';
import { fillMirror, tempDir } from './helpers.js';

describe('loyalty-sync export', () => {
  const dir = tempDir();
  const env = { LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
  let db: Db;

  beforeAll(async () => {
    db = await fillMirror(env.LOYALTY_DB, 2, 'tiny');
  });
  afterAll(() => db.close());

  it('prints the manifest path and one line per file', async () => {
    const result = await runCli(['export', '--format', 'csv,parquet', '--table', 'orders', '--table', 'customers'], { env });
    expect(sentences(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    const [manifestLine, ...fileLines] = result.stdout.trim().split('\n');
    const manifestPath = /^manifest: (\S+) \(full\)$/.exec(manifestLine)![1];
    expect(existsSync(manifestPath)).toBe(true);
    expect(fileLines.map((line) => line.split(':')[0]).sort()).toEqual(['customers csv', 'customers parquet', 'orders csv', 'orders parquet']);
    for (const line of fileLines) expect(existsSync(line.split(', ').at(-1)!)).toBe(true);
  });

  it('says since_last on the next --since-last run', async () => {
    const result = await runCli(['export', '--format', 'csv', '--since-last'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^manifest: \S+ \(since_last\)$/m);
  });

  it('refuses a bad format or table with exit 2, naming the value and the choices', async () => {
    const format = await runCli(['export', '--format', 'csv,xlsx'], { env });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format contains "xlsx"; expected csv, parquet');
    const table = await runCli(['export', '--table', 'reviews'], { env });
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('--table is "reviews"; expected one of customers, orders, activities, transactions, unsubscribes, customer_points_daily, points_ledger_daily, program_metrics_daily, write_jobs.');
  });

  it('fails with exit 1 and one sentence, in words, when the export folder cannot be made', async () => {
    const below = await runCli(['export'], { env: { ...env, LOYALTY_EXPORT_DIR: join(dir, 'mirror.db', 'exports') } });
    expect(below.code).toBe(1);
    expect(sentences(below.stderr)).toBe(
      `loyalty-sync: Cannot create the export folder ${join(dir, 'mirror.db', 'exports')} (export.dir or LOYALTY_EXPORT_DIR): a part of that path is a file, not a folder; expected a folder this user may create and write.\n`,
    );
    const file = await runCli(['export'], { env: { ...env, LOYALTY_EXPORT_DIR: join(dir, 'mirror.db') } });
    expect(file.code).toBe(1);
    expect(sentences(file.stderr)).toBe(
      `loyalty-sync: Cannot create the export folder ${join(dir, 'mirror.db')} (export.dir or LOYALTY_EXPORT_DIR): a file stands at that path, not a folder; expected a folder this user may create and write.\n`,
    );
  });

  it('--help names every table a plain export writes', async () => {
    const help = await runCli(['export', '--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('(default: the five streams and the three ledger tables;');
    const result = await runCli(['export', '--format', 'csv'], { env });
    expect(result.code).toBe(0);
    expect(new Set(result.stdout.trim().split('\n').slice(1).map((line) => line.split(' ')[0]))).toEqual(
      new Set(['customers', 'orders', 'activities', 'transactions', 'unsubscribes', 'customer_points_daily', 'points_ledger_daily', 'program_metrics_daily']),
    );
  });

  it('refuses a flag of one value given twice, naming both, rather than keep the last', async () => {
    const result = await runCli(['export', '--format', 'csv', '--format', 'parquet'], { env });
    expect(result.code).toBe(2);
    expect(sentences(result.stderr)).toBe('loyalty-sync: export: --format is given twice ("csv", then "parquet"); expected it once.\n');
  });
});
