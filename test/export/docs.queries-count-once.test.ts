import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runExport, type ExportReport } from '../../src/export/index.js';
import { runCli } from '../helpers/cli.js';
import { duckdb, exportConfig, fillMirror, query, silentLogger, tempDir } from './helpers.js';

const WHOLE_README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/**
 * The snapshot examples: the README up to its Delta section. Delta tables are opened through each
 * engine's Delta reader (DuckDB's delta extension), which cannot be installed offline; the Delta tables
 * themselves are checked by the log reader tests (test/export/delta).
 */
const DELTA_SECTION = WHOLE_README.indexOf('\n## Delta Lake tables');
const README = DELTA_SECTION === -1 ? WHOLE_README : WHOLE_README.slice(0, DELTA_SECTION);
/** The run id the README's examples use; the test puts a real one in its place. */
const EXAMPLE_RUN_ID = '20261122T201500Z-ab12';
/** The README's bucket examples read s3://analytics-exports/loyalty/, which has the local layout. */
const EXAMPLE_BUCKET = 'analytics-exports/loyalty/';

/** Each example in the README's ```sql blocks: the engine its `-- Engine…` comment names, and its lines. */
function readmeExamples(): Array<{ engine: string; sql: string }> {
  const examples: Array<{ engine: string; sql: string }> = [];
  for (const [, block] of README.matchAll(/```sql\n([\s\S]*?)```/g)) {
    for (const line of block.split('\n')) {
      const heading = /^-- (\w+)/.exec(line);
      if (heading) examples.push({ engine: heading[1], sql: '' });
      else if (examples.length > 0) examples[examples.length - 1].sql += `${line}\n`;
    }
  }
  return examples;
}

function statements(sql: string): string[] {
  return sql
    .split(/;\s*(?:--[^\n]*)?\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** A BigQuery URI with its one `*` as a regular expression over paths. */
function wildcardPattern(uri: string): RegExp {
  return new RegExp(`^${uri.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

describe('the README\'s example queries after two consecutive exports', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  const root = config.export.dir;
  let db: Db;
  let second: ExportReport;
  let duck: Awaited<ReturnType<typeof duckdb>>;
  let transactions: number;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 21, 'tiny');
    transactions = db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
    await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], now: new Date('2026-11-21T02:00:00Z') });
    second = await runExport({ db, config, logger: silentLogger, formats: ['csv', 'parquet'], now: new Date('2026-11-22T02:00:00Z') });
    duck = await duckdb();
  });
  afterAll(() => {
    duck.close();
    db.close();
  });

  /** An example made runnable here: the export folder and bucket are this test's, the run id the second run's. */
  const localised = (sql: string): string =>
    sql.replaceAll(`'exports/`, `'${root}/`).replaceAll(`'s3://${EXAMPLE_BUCKET}`, `'${root}/`).replaceAll(EXAMPLE_RUN_ID, second.runId);

  it('DuckDB examples return each transaction once', async () => {
    const examples = readmeExamples().filter((example) => example.engine === 'DuckDB');
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      const parts = statements(localised(example.sql));
      for (const statement of parts.slice(0, -1)) await duck.connection.run(statement);
      const [counts] = await query(duck.connection, `SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM (${parts.at(-1)})`);
      expect(counts, example.sql).toEqual({ n: transactions, ids: transactions });
    }
  });

  it('BigQuery and Snowflake examples name the Parquet file of one run only', () => {
    const files = filesUnder(root);
    const runFile = second.files.find((file) => file.table === 'transactions' && file.format === 'parquet')!.path;
    const examples = readmeExamples().map((example) => ({ ...example, sql: example.sql.replaceAll('RUNID', second.runId) }));
    const uris = examples.filter((example) => example.engine === 'BigQuery').flatMap((example) => [...example.sql.matchAll(/uris = \['gs:\/\/([^']+)'\]/g)].map((match) => match[1]));
    const patterns = examples.filter((example) => example.engine === 'Snowflake').flatMap((example) => [...example.sql.matchAll(/PATTERN = '([^']+)'/g)].map((match) => match[1]));
    expect(uris.length).toBeGreaterThan(0);
    expect(patterns.length).toBeGreaterThan(0);
    for (const uri of uris) {
      const pattern = wildcardPattern(uri.replace(EXAMPLE_BUCKET, ''));
      expect(files.filter((file) => pattern.test(file)), uri).toEqual([runFile]);
    }
    for (const pattern of patterns) {
      // Snowflake matches the whole path under the stage's URL.
      expect(files.filter((file) => new RegExp(`^${pattern}$`).test(file)), pattern).toEqual([runFile]);
    }
  });
});

describe('the query demo prints, after a second demo', () => {
  it('sums each transaction once', async () => {
    const cwd = tempDir('ls-demo-');
    for (let run = 0; run < 2; run += 1) {
      const result = await runCli(['demo', '--size', 'tiny'], { cwd });
      expect(result.code, result.stderr).toBe(0);
      if (run === 0) continue;
      const printed = /duckdb -c "(.+)"$/m.exec(result.stdout);
      expect(printed, result.stdout).not.toBeNull();

      // The truth, from the mirror: points per UTC day, the newest seven days.
      const mirror = new Database(join(cwd, 'demo-data', 'mirror.db'), { readonly: true });
      const perDay = new Map<string, number>();
      for (const row of mirror.prepare('SELECT created_at, points_approved FROM transactions').all() as Array<{ created_at: string; points_approved: number | null }>) {
        const day = new Date(row.created_at).toISOString().slice(0, 10);
        perDay.set(day, (perDay.get(day) ?? 0) + (row.points_approved ?? 0));
      }
      mirror.close();
      const expected = [...perDay].sort(([a], [b]) => b.localeCompare(a)).slice(0, 7);

      const { connection, close } = await duckdb();
      try {
        await connection.run(`SET TimeZone = 'UTC'`);
        const rows = await query(connection, printed![1]);
        expect(rows.map((row) => Object.values(row)).map(([day, sum]) => [String(day).slice(0, 10), Number(sum)])).toEqual(expected);
      } finally {
        close();
      }
    }
  });
});
