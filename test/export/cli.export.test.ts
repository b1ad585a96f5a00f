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

  it('fails with exit 1 and one sentence when the export cannot run', async () => {
    const result = await runCli(['export'], { env: { ...env, LOYALTY_EXPORT_DIR: join(dir, 'mirror.db', 'exports') } });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr).trim().split('\n')).toHaveLength(1);
    expect(sentences(result.stderr)).toMatch(/^loyalty-sync: /);
  });
});
