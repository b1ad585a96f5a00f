import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { runCli, sentences } from '../../helpers/cli.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { startCli } from '../../helpers/process.js';
import { tempDir } from '../../helpers/tempDir.js';
import { bigTransactionsMirror } from '../bigMirror.js';
import { expectEngineReadsMirror } from './engineChecks.js';
import { commitVersionsOnDisk, contiguous, countInitialChange, deltaRows, liveMirrorRows } from './mirrorRows.js';

const EXPORT = ['export', '--format', 'delta', '--table', 'transactions'];
/** Minutes: each export writes 300,000 rows on a shared machine. */
const SLOW = 600_000;

/** Every file of the table's log, name → bytes. */
function logFiles(table: string): Map<string, string> {
  const log = join(table, '_delta_log');
  return new Map(readdirSync(log).sort().map((name) => [name, readFileSync(join(log, name)).toString('base64')]));
}

describe('Delta exports started together', () => {
  const dir = tempDir();
  const exportDir = join(dir, 'exports');
  const table = join(exportDir, 'delta', 'transactions');
  let db: Db;

  beforeAll(() => {
    // Big enough (three data files) that the second export starts while the first still holds the lock.
    db = bigTransactionsMirror(join(dir, 'mirror.db'), 300_000);
    countInitialChange(db);
  });
  afterAll(() => db?.close());

  it('on one mirror: both succeed, one after the other, and the log is one line of versions equal to the mirror', async () => {
    const env = { LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: exportDir };
    const first = startCli(EXPORT, env);
    const second = startCli(EXPORT, env);
    const [a, b] = await Promise.all([first.exited, second.exited]);
    expect(a.code, first.stderr()).toBe(0);
    expect(b.code, second.stderr()).toBe(0);
    // One of them waited for the mirror's Delta lock rather than planning from the same version.
    const waited = [first, second].filter((run) => run.lines.some((line) => /Waiting/.test(String(line.msg))));
    expect(waited).toHaveLength(1);

    const contents = await readDeltaTable(table);
    expect(commitVersionsOnDisk(table)).toEqual(contiguous(contents.state.version + 1));
    expect(deltaRows(contents)).toEqual(liveMirrorRows(db, 'transactions'));
    expectEngineReadsMirror(db, 'transactions', table);
  }, SLOW);

  it('from another mirror into the same table folder: refused with one sentence naming the path, and the table is untouched', async () => {
    const before = logFiles(table);
    const dataBefore = readdirSync(table).sort();
    const other = tempDir();
    bigTransactionsMirror(join(other, 'mirror.db'), 1_000).close();

    const result = await runCli(EXPORT, { env: { LOYALTY_DB: join(other, 'mirror.db'), LOYALTY_EXPORT_DIR: exportDir } });
    expect(result.code, result.stderr).toBe(1);
    const said = sentences(result.stderr).trim();
    expect(said).toContain(table);
    expect(said).toMatch(/another Delta table/);
    expect(said.split('\n')).toHaveLength(1);

    expect(logFiles(table)).toEqual(before);
    expect(readdirSync(table).sort()).toEqual(dataBefore);
    expect(deltaRows(await readDeltaTable(table))).toEqual(liveMirrorRows(db, 'transactions'));
  }, SLOW);
});
