import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { commitPath } from '../../../src/export/delta/actions.js';
import { runCli } from '../../helpers/cli.js';
import { readDeltaTable } from '../../helpers/deltaTable.js';
import { startCli } from '../../helpers/process.js';
import { tempDir } from '../../helpers/tempDir.js';
import { bigTransactionsMirror } from '../bigMirror.js';
import { expectEngineReadsMirror } from './engineChecks.js';
import { changeTransactions, commitVersionsOnDisk, contiguous, countInitialChange, deltaRows, liveMirrorRows } from './mirrorRows.js';

const MIB = 1024 * 1024;
const EXPORT = ['export', '--format', 'delta', '--table', 'transactions', '--table', 'activities'];
/** Minutes: each export writes 300,000 rows on a shared machine. */
const SLOW = 600_000;

/**
 * SIGKILL on disk while a data file is written, and just after a table's commit while the next table
 * is exported: each table stays a whole version equal to the mirror, the next export completes, and
 * vacuum with retainDays 0 removes what the killed runs left.
 */
describe('a Delta export on disk killed with SIGKILL', () => {
  const dir = tempDir();
  const configPath = join(dir, 'config.json');
  const transactions = join(dir, 'exports', 'delta', 'transactions');
  let db: Db;
  let env: Record<string, string>;

  beforeAll(() => {
    db = bigTransactionsMirror(join(dir, 'mirror.db'), 150_000);
    // As many activities, so that exporting them takes as long as the transactions.
    db.prepare(
      `INSERT INTO activities (id, value, state, customer_id, created_at, raw, _synced_at, _change_seq)
       SELECT activity_id, activity_value, activity_state, customer_id, created_at, raw, _synced_at, _change_seq FROM transactions`,
    ).run();
    countInitialChange(db);
    writeFileSync(configPath, JSON.stringify({}));
    env = { LOYALTY_CONFIG: configPath, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
  });
  afterAll(() => db?.close());

  /** Starts an export and SIGKILLs it once `moment` is true; resolves once it is dead. */
  async function killedExport(moment: () => boolean): Promise<void> {
    const child = startCli(EXPORT, env);
    const exited = child.exited;
    let done = false;
    void exited.then(() => (done = true));
    while (!moment()) {
      if (done) throw new Error(`the export ended before the moment to kill it; stderr: ${child.stderr()}`);
      await delay(5);
    }
    child.child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
  }

  async function nextExportCompletes(): Promise<void> {
    const result = await runCli(EXPORT, { env });
    expect(result.code, result.stderr).toBe(0);
    for (const table of ['transactions', 'activities']) {
      const root = join(dir, 'exports', 'delta', table);
      const contents = await readDeltaTable(root);
      expect(deltaRows(contents)).toEqual(liveMirrorRows(db, table));
      expect(commitVersionsOnDisk(root)).toEqual(contiguous(contents.state.version + 1));
    }
    // One table by the engine (300,000 rows through it would take minutes more): it opens every version the
    // killed runs left, the one committed before a kill among them.
    expectEngineReadsMirror(db, 'transactions', transactions);
  }

  it('killed while a data file is written: no version is visible, and the next export writes the whole table', async () => {
    const growing = (): boolean =>
      existsSync(transactions) && readdirSync(transactions).some((name) => name.startsWith('.tmp-') && (statSync(join(transactions, name), { throwIfNoEntry: false })?.size ?? 0) > 2 * MIB);
    await killedExport(growing);
    expect(commitVersionsOnDisk(transactions)).toEqual([]);
    expect(readdirSync(transactions).some((name) => name.startsWith('.tmp-'))).toBe(true);
    await nextExportCompletes();
  }, SLOW);

  it('killed just after the transactions commit, while the activities are exported: the transactions are at the new version', async () => {
    const previous = commitVersionsOnDisk(transactions).length - 1;
    changeTransactions(db, 1, [7, 75_000, 149_000], 25);
    const after = liveMirrorRows(db, 'transactions');
    await killedExport(() => existsSync(join(transactions, commitPath(previous + 1))));

    const contents = await readDeltaTable(transactions);
    expect(contents.state.version).toBe(previous + 1);
    expect(deltaRows(contents)).toEqual(after);
    await nextExportCompletes();
    expect(commitVersionsOnDisk(transactions)).toEqual(contiguous(previous + 2));
  }, SLOW);

  it('an export with export.delta.retainDays 0 removes every file the killed runs and the replaced versions left', async () => {
    const active = async (): Promise<string[]> => [...(await readDeltaTable(transactions)).state.files.keys()].map(decodeURIComponent).sort();
    const dataFiles = (): string[] => readdirSync(transactions).filter((name) => name !== '_delta_log').sort();
    const before = await active();
    expect(dataFiles().filter((name) => !before.includes(name)).length).toBeGreaterThan(0);

    writeFileSync(configPath, JSON.stringify({ export: { delta: { retainDays: 0 } } }));
    const result = await runCli(EXPORT, { env });
    expect(result.code, result.stderr).toBe(0);
    expect(dataFiles()).toEqual(await active());
    expect(deltaRows(await readDeltaTable(transactions))).toEqual(liveMirrorRows(db, 'transactions'));
    expectEngineReadsMirror(db, 'transactions', transactions, { dataFrom: commitVersionsOnDisk(transactions).at(-1) });
  }, SLOW);
});
