import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { duckdb, query } from '../export/helpers.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

interface ManifestFile {
  table: string;
  format: string;
  path: string;
  rows: number;
}

describe('demo', () => {
  it('runs the whole job with no key, config or network, prints the paths, and its Parquet files open in DuckDB', async () => {
    const cwd = tempDir('ls-demo-');
    // No LOYALTY_* variables at all: the zero-config main job.
    const result = await runCli(['demo'], { cwd, env: { LOG_LEVEL: undefined } });
    expect(result.code, result.stderr).toBe(0);
    const dir = join(cwd, 'demo-data');
    expect(result.stdout).toContain(`mirror:    ${dir}/mirror.db`);
    expect(result.stdout).toContain(`manifest:  ${dir}/exports/manifests/latest.json`);
    expect(result.stdout).toMatch(/^ok {3}sync: /m);
    expect(result.stdout).toMatch(/^ok {3}push: sent 3, succeeded 3/m);
    expect(result.stdout).toMatch(/^ok {3}export: /m);
    // The simulated program drifts from the spec on purpose: a plain sentence after the summary says so, no log line.
    expect(result.stderr).not.toContain('schema drift');
    const note = /^ok {3}export: .*\n(note: .*)$/m.exec(result.stdout)?.[1];
    expect(note, result.stdout).toMatch(/^note: the simulated API sends what its spec does not list \(.*customers field marketing_consent.*\), as live APIs do; .*nothing failed\.$/);

    const manifest = JSON.parse(readFileSync(join(dir, 'exports', 'manifests', 'latest.json'), 'utf8')) as { files: ManifestFile[] };
    const parquet = manifest.files.filter((file) => file.format === 'parquet');
    expect(parquet.map((file) => file.table).sort()).toEqual(['activities', 'customer_points_daily', 'customers', 'orders', 'points_ledger_daily', 'program_metrics_daily', 'transactions', 'unsubscribes']);

    const mirror = new Database(join(dir, 'mirror.db'), { readonly: true });
    const { connection, close } = await duckdb();
    try {
      for (const file of parquet) {
        const [counted] = await query(connection, `SELECT count(*) AS n FROM read_parquet('${join(dir, 'exports', file.path)}')`);
        const mirrorRows = (mirror.prepare(`SELECT count(*) AS n FROM ${file.table}`).get() as { n: number }).n;
        expect(Number(counted.n), file.path).toBe(file.rows);
        expect(file.rows, file.table).toBe(mirrorRows);
      }
    } finally {
      close();
      mirror.close();
    }
  });
});
