import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { fillMirror, tempDir } from '../helpers.js';

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

  it.each(cases)('refuses %s with exit 1 and one sentence naming the path, and leaves it untouched', async (_name, plant, message) => {
    plant('orders');
    const before = snapshotOf(join(exports, 'delta', 'orders'));
    const result = await runCli(['export', '--format', 'delta', '--table', 'orders'], { env });
    expect(result.code, result.stderr).toBe(1);
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(message);
    expect(last).toContain(join(exports, 'delta', 'orders'));
    expect(snapshotOf(join(exports, 'delta', 'orders'))).toEqual(before);
    // Cleared for the next case.
    rmSync(join(exports, 'delta', 'orders'), { recursive: true, force: true });
  });
});
