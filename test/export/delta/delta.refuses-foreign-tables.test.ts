import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/open.js';
import type { ApiRecord } from '../../../src/db/upsertRecords.js';
import { runCli } from '../../helpers/cli.js';
import { fillMirror, tempDir, upsert } from '../helpers.js';

const metadata = (id: string) => ({
  metaData: { id, format: { provider: 'parquet', options: {} }, schemaString: '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}', partitionColumns: [], configuration: {}, createdTime: 1 },
});

/** Every file under a folder with its bytes: what "left untouched" compares. */
function snapshotOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path)).toString('base64');
    }
  };
  walk('');
  return files;
}

describe('a Delta export at a path that holds something else', () => {
  const dir = tempDir('delta-foreign-');
  const exports = join(dir, 'exports');
  const env = { LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: exports };
  beforeAll(async () => {
    (await fillMirror(env.LOYALTY_DB, 3, 'tiny')).close();
  });

  const cases: Array<[string, (table: string) => void, RegExp]> = [
    [
      'another Delta table (another metaData.id)',
      (table) => writeLog(table, [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }, metadata('5a1e5a1e-0000-4000-8000-000000000000')]),
      /is another Delta table \(id 5a1e5a1e-0000-4000-8000-000000000000\)/,
    ],
    [
      'a table that needs reader version 3 (deletion vectors)',
      (table) => writeLog(table, [{ protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] } }, metadata('5a1e5a1e-0000-4000-8000-000000000001')]),
      /needs reader version 3 and writer version 7/,
    ],
    [
      'files that are not a Delta table',
      (table) => {
        mkdirSync(join(exports, 'delta', table), { recursive: true });
        writeFileSync(join(exports, 'delta', table, 'report.csv'), 'id\n1\n');
      },
      /already holds report\.csv, which is not a Delta table/,
    ],
  ];

  function writeLog(table: string, actions: unknown[]): void {
    mkdirSync(join(exports, 'delta', table, '_delta_log'), { recursive: true });
    writeFileSync(join(exports, 'delta', table, '_delta_log', '00000000000000000000.json'), actions.map((action) => JSON.stringify(action)).join('\n') + '\n');
  }

  /** A Delta export of orders exits 1 with one last sentence matching `message` and naming the table's path, and leaves its files as they were. */
  async function expectRefusedUntouched(message: RegExp): Promise<void> {
    const before = snapshotOf(join(exports, 'delta', 'orders'));
    const result = await runCli(['export', '--format', 'delta', '--table', 'orders'], { env });
    expect(result.code, result.stderr).toBe(1);
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(message);
    expect(last).toContain(join(exports, 'delta', 'orders'));
    expect(snapshotOf(join(exports, 'delta', 'orders'))).toEqual(before);
  }

  it.each(cases)('refuses %s with exit 1 and one sentence naming the path, and leaves it untouched', async (_name, plant, message) => {
    plant('orders');
    await expectRefusedUntouched(message);
    // Cleared for the next case.
    rmSync(join(exports, 'delta', 'orders'), { recursive: true, force: true });
  });

  /** What another engine's `ALTER TABLE …` commits as the table's next version: its metaData, changed by `alter`. */
  function alterTable(table: string, alter: (metaData: Record<string, unknown>) => Record<string, unknown>): void {
    const log = join(exports, 'delta', table, '_delta_log');
    const versions = readdirSync(log).filter((name) => /^\d{20}\.json$/.test(name)).sort();
    const latest = versions.at(-1) as string;
    const actions = readFileSync(join(log, latest), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
    const metaData = actions.find((action) => 'metaData' in action)?.metaData as Record<string, unknown>;
    const next = String(Number(latest.slice(0, 20)) + 1).padStart(20, '0');
    const commit = [{ commitInfo: { timestamp: Date.now(), operation: 'SET TBLPROPERTIES', engineInfo: 'Apache-Spark/3.5.1 Delta-Lake/3.2.0' } }, { metaData: alter(metaData) }];
    writeFileSync(join(log, `${next}.json`), commit.map((action) => JSON.stringify(action)).join('\n') + '\n');
  }

  /** Changes an order in the mirror, so that the next export would rewrite (remove) the file holding it. */
  function changeAnOrder(): void {
    const db = openDatabase(env.LOYALTY_DB);
    try {
      const raw = db.prepare('SELECT raw FROM orders ORDER BY id LIMIT 1').pluck().get() as string;
      upsert(db, 'orders', [{ ...(JSON.parse(raw) as ApiRecord), payment_status: 'refunded' }]);
    } finally {
      db.close();
    }
  }

  // Spark reads a boolean table property case-insensitively and trimmed: each of these makes the table append-only.
  const appendOnly = (value: string): [string, (metaData: Record<string, unknown>) => Record<string, unknown>, RegExp] => [
    `a table another engine made append-only (delta.appendOnly=${JSON.stringify(value)})`,
    (metaData) => ({ ...metaData, configuration: { ...(metaData.configuration as Record<string, string>), 'delta.appendOnly': value } }),
    /was made append-only by another engine \(delta\.appendOnly=true\), and loyalty-sync rewrites and deletes rows, so it commits nothing to it/,
  ];
  const altered: Array<[string, (metaData: Record<string, unknown>) => Record<string, unknown>, RegExp]> = [
    appendOnly('true'),
    appendOnly('TRUE'),
    appendOnly(' true '),
    [
      'a table with column invariants (delta.invariants)',
      (metaData) => {
        const schema = JSON.parse(metaData.schemaString as string) as { fields: Array<{ name: string; metadata: Record<string, string> }> };
        for (const field of schema.fields) if (field.name === 'total') field.metadata = { 'delta.invariants': '{"expression":{"expression":"total IS NOT NULL"}}' };
        return { ...metaData, schemaString: JSON.stringify(schema) };
      },
      /has column invariants \(delta\.invariants on total\), which loyalty-sync does not enforce, so it commits nothing to it/,
    ],
  ];

  it.each(altered)('refuses the commit to %s with exit 1 and one sentence naming the path, and its log is unchanged', async (_name, alter, message) => {
    try {
      const first = await runCli(['export', '--format', 'delta', '--table', 'orders'], { env });
      expect(first.code, first.stderr).toBe(0);
      alterTable('orders', alter);
      changeAnOrder();
      await expectRefusedUntouched(message);
    } finally {
      rmSync(join(exports, 'delta', 'orders'), { recursive: true, force: true });
    }
  });
});
