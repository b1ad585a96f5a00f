import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runExport } from '../../src/export/index.js';
import { CLI_PATH } from '../helpers/cli.js';
import { bigTransactionsMirror } from './bigMirror.js';
import { exportConfig, silentLogger, tempDir } from './helpers.js';

/** Every file under the table folders, as paths relative to the export root. */
function filesUnder(root: string, table: string): string[] {
  if (!existsSync(join(root, table))) return [];
  return readdirSync(join(root, table)).flatMap((partition) => readdirSync(join(root, table, partition)).map((name) => `${table}/${partition}/${name}`));
}

describe('an export killed with SIGKILL midway', () => {
  const dir = tempDir();
  const config = exportConfig(dir);
  const root = config.export.dir;
  let db: Db;

  beforeAll(() => {
    db = bigTransactionsMirror(config.db.path, 250_000);
  });
  afterAll(() => db.close());

  it('leaves no file a loader would pick up, and the next export cleans up and succeeds', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'export', '--table', 'transactions'], {
      env: { PATH: process.env.PATH, LOYALTY_DB: config.db.path, LOYALTY_EXPORT_DIR: root, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    // Wait until the export is well into writing its first file, then kill it without warning.
    let partial: string | undefined;
    while (partial === undefined) {
      partial = filesUnder(root, 'transactions').find((path) => path.split('/').pop()!.startsWith('.tmp-') && statSync(join(root, path)).size > 4 * 1024 * 1024);
      if (child.exitCode !== null) throw new Error('the export finished before it could be killed; use a larger mirror');
      await delay(10);
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const left = filesUnder(root, 'transactions');
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((path) => path.split('/').pop()!.startsWith('.tmp-'))).toBe(true);
    const manifests = existsSync(join(root, 'manifests')) ? readdirSync(join(root, 'manifests')) : [];
    expect(manifests.filter((name) => !name.startsWith('.tmp-'))).toEqual([]);
    expect(db.prepare(`SELECT status FROM export_runs`).pluck().all()).toEqual(['running']);

    const report = await runExport({ db, config, logger: silentLogger, tables: ['transactions'] });
    expect(report.files.map((file) => file.rows)).toEqual([250_000, 250_000]);
    expect(filesUnder(root, 'transactions').sort()).toEqual(report.files.map((file) => file.path).sort());
    expect(readdirSync(join(root, 'manifests')).sort()).toEqual([`${report.runId}.json`, 'latest-partial.json']);
    expect(db.prepare(`SELECT status FROM export_runs ORDER BY started_at, run_id`).pluck().all()).toEqual(['interrupted', 'succeeded']);
  });
});
