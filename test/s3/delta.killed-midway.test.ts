import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { createBucketClient } from '../../src/bucket/client.js';
import { BucketDeltaStore } from '../../src/export/delta/bucketStore.js';
import { readTableState } from '../../src/export/delta/logReader.js';
import { bigTransactionsMirror } from '../export/bigMirror.js';
import { expectEngineReadsMirror } from '../export/delta/engineChecks.js';
import { changeTransactions, commitVersions, contiguous, countInitialChange, deltaRows, liveMirrorRows, reflectedChanges, strictlyIncreasing, type ComparableRow } from '../export/delta/mirrorRows.js';
import { silentLogger } from '../export/helpers.js';
import { runCli } from '../helpers/cli.js';
import { localCopy } from '../helpers/deltaEngine.js';
import { readDeltaTable } from '../helpers/deltaTable.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';
import { startFaultProxy, type FaultProxy, type WriteFault, type WriteSeen } from './faultProxy.js';
import { awsEnv, listKeys, newBucket, openUploads, storeClient, swift, testS3Settings, useAwsEnv } from './helpers.js';

const PREFIX = 'exports/loyalty';
const TABLE_KEYS = `${PREFIX}/delta/transactions/`;
const EXPORT = ['export', '--format', 'delta', '--table', 'transactions'];
/** Minutes, not seconds: each step exports 140,000 rows through the proxy on a shared machine. */
const SLOW = 600_000;

const isDataFile = (write: WriteSeen): boolean => write.method === 'PUT' && write.path.startsWith(`${TABLE_KEYS}part-`);
const isCommit = (write: WriteSeen): boolean => write.method === 'PUT' && /^[^?]*\/_delta_log\/\d{20}\.json(\?|$)/.test(write.path) && write.path.startsWith(TABLE_KEYS);
const keyOf = (write: WriteSeen): string => write.path.split('?')[0] as string;

/**
 * SIGKILL at three moments of a Delta export to a bucket (Swift behind the fault proxy), one after
 * the other on the same table: the table a reader finds is always a whole version equal to the mirror
 * at that version's state, the next export completes from it, and vacuum later removes what the
 * killed runs left.
 */
describe('a Delta export to a bucket killed with SIGKILL', () => {
  const s3 = storeClient();
  const dir = tempDir();
  const configPath = join(dir, 'config.json');
  let db: Db;
  let bucket: string;
  let proxy: FaultProxy;
  let env: Record<string, string>;
  /** Set by a scenario: what the proxy does to each write, and when the child is killed. */
  let decide: (write: WriteSeen) => { fault: WriteFault; kill: boolean } = () => ({ fault: 'pass', kill: false });
  let killChild: (() => void) | null = null;

  const store = (): BucketDeltaStore =>
    BucketDeltaStore.create(createBucketClient(testS3Settings()), { bucket, prefix: PREFIX, url: `s3://${bucket}/${PREFIX}` }, 'transactions', silentLogger, { partSizeBytes: 5 * 1024 * 1024 });
  const logVersions = async (): Promise<number[]> => commitVersions(await listKeys(s3, bucket, `${TABLE_KEYS}_delta_log/`));

  beforeAll(async () => {
    // The test reads the bucket straight from Swift; the exporter goes through the proxy.
    useAwsEnv();
    // 140,000 transactions make two data files of at most 131,072 rows, each under 5 MiB (one PUT): a kill
    // can land after one whole file and during the other.
    db = bigTransactionsMirror(join(dir, 'mirror.db'), 140_000);
    countInitialChange(db);
    writeFileSync(configPath, JSON.stringify({ export: { s3: { partSizeMiB: 5 } } }));
    bucket = await newBucket(s3);
    // Each write is decided once: the proxy asks for its fault after announcing it.
    const decided = new WeakMap<WriteSeen, { fault: WriteFault; kill: boolean }>();
    proxy = await startFaultProxy(swift().endpoint, {
      onWrite: (write) => {
        const decision = decide(write);
        decided.set(write, decision);
        if (decision.kill) killChild?.();
      },
      fault: (write) => decided.get(write)?.fault ?? 'pass',
    });
    env = { ...awsEnv(proxy.endpoint), LOYALTY_CONFIG: configPath, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOYALTY_EXPORT_URL: `s3://${bucket}/${PREFIX}` };
    const first = await runCli(EXPORT, { env });
    expect(first.code, first.stderr).toBe(0);
    expect(deltaRows(await readDeltaTable(store()))).toEqual(liveMirrorRows(db, 'transactions'));
    expectEngineReadsMirror(db, 'transactions', await localCopy(store()));
  }, SLOW);
  afterAll(async () => {
    decide = () => ({ fault: 'pass', kill: false });
    await proxy?.close();
    db?.close();
    s3.destroy();
  });

  /** Runs an export that the scenario kills; resolves once it is dead. */
  async function killedExport(): Promise<void> {
    const child = startCli(EXPORT, env);
    killChild = () => child.child.kill('SIGKILL');
    const { signal } = await child.exited;
    killChild = null;
    decide = () => ({ fault: 'pass', kill: false });
    expect(signal, `the export was meant to be killed; stderr: ${child.stderr()}`).toBe('SIGKILL');
  }

  /** A little change, so that the version the killed run would commit differs from the one before. */
  function changeMirror(edit: number): { before: ComparableRow[]; after: ComparableRow[] } {
    const before = liveMirrorRows(db, 'transactions');
    // One row in each of the two files (they are both rewritten), and new rows after the last.
    changeTransactions(db, edit, [7, 139_000], 25);
    return { before, after: liveMirrorRows(db, 'transactions') };
  }

  /** The next export completes, the table equals the mirror, and the log is one line of versions. */
  async function nextExportCompletes(): Promise<void> {
    const result = await runCli(EXPORT, { env });
    expect(result.code, result.stderr).toBe(0);
    const contents = await readDeltaTable(store());
    expect(deltaRows(contents)).toEqual(liveMirrorRows(db, 'transactions'));
    const versions = await logVersions();
    expect(versions).toEqual(contiguous(contents.state.version + 1));
    // No version records a mirror change an earlier one already did: nothing was committed twice.
    expect(strictlyIncreasing(await reflectedChanges(store(), versions))).toBe(true);
    expectEngineReadsMirror(db, 'transactions', await localCopy(store()));
  }

  it('killed while a data file uploads: the table stays at its previous version, and the next export completes', async () => {
    const { before } = changeMirror(1);
    const previous = (await readTableState(store()))!.version;
    const uploaded = new Set<string>();
    // The first data file lands whole; the process dies while the second is on its way.
    decide = (write) => {
      if (!isDataFile(write)) return { fault: 'pass', kill: false };
      uploaded.add(keyOf(write));
      return uploaded.size >= 2 ? { fault: 'hold', kill: true } : { fault: 'pass', kill: false };
    };
    await killedExport();
    expect(uploaded.size).toBe(2);

    const contents = await readDeltaTable(store());
    expect(contents.state.version).toBe(previous);
    expect(deltaRows(contents)).toEqual(before);
    await nextExportCompletes();
  }, SLOW);

  it('killed between the data files and the commit: the table stays at its previous version, and the next export completes', async () => {
    const { before } = changeMirror(2);
    const previous = (await readTableState(store()))!.version;
    let dataFiles = 0;
    // The commit's PUT never reaches the store: the process died as it went out.
    decide = (write) => {
      if (isDataFile(write)) dataFiles += 1;
      return isCommit(write) ? { fault: 'hold', kill: true } : { fault: 'pass', kill: false };
    };
    await killedExport();
    expect(dataFiles).toBeGreaterThan(0);

    const contents = await readDeltaTable(store());
    expect(contents.state.version).toBe(previous);
    expect(deltaRows(contents)).toEqual(before);
    expectEngineReadsMirror(db, 'transactions', await localCopy(store()), { rows: before });
    expect(await logVersions()).toEqual(contiguous(previous + 1));
    await nextExportCompletes();
  }, SLOW);

  it('killed just after the commit landed, before its answer: the table is at the new version, and the next export commits nothing again', async () => {
    const { after } = changeMirror(3);
    const previous = (await readTableState(store()))!.version;
    let commitPuts = 0;
    // The store applies the commit and the answer is lost; the process is killed as its SDK tries again.
    decide = (write) => {
      if (!isCommit(write) || write.headers['if-none-match'] !== undefined) return { fault: 'pass', kill: false };
      commitPuts += 1;
      return commitPuts === 1 ? { fault: 'drop-after-apply', kill: false } : { fault: 'hold', kill: true };
    };
    const drops = proxy.drops;
    await killedExport();
    expect(proxy.drops).toBe(drops + 1);

    const contents = await readDeltaTable(store());
    expect(contents.state.version).toBe(previous + 1);
    expect(deltaRows(contents)).toEqual(after);
    await nextExportCompletes();
    expect(await logVersions()).toEqual(contiguous(previous + 2));
  }, SLOW);

  it('an export with export.delta.retainDays 0 removes every file the killed runs and the replaced versions left', async () => {
    const dataKeys = async (): Promise<string[]> => (await listKeys(s3, bucket, TABLE_KEYS)).filter((key) => !key.startsWith(`${TABLE_KEYS}_delta_log/`));
    const activeKeys = async (): Promise<string[]> => [...(await readTableState(store()))!.files.keys()].map((path) => `${TABLE_KEYS}${decodeURIComponent(path)}`).sort();
    // The orphans are there before: the killed runs' files, and the files the rewrites replaced.
    const active = await activeKeys();
    expect((await dataKeys()).filter((key) => !active.includes(key)).length).toBeGreaterThan(0);

    writeFileSync(configPath, JSON.stringify({ export: { s3: { partSizeMiB: 5 }, delta: { retainDays: 0 } } }));
    const result = await runCli(EXPORT, { env });
    expect(result.code, result.stderr).toBe(0);

    expect(await dataKeys()).toEqual(await activeKeys());
    expect((await openUploads(s3, bucket)).filter((upload) => upload.startsWith(TABLE_KEYS))).toEqual([]);
    expect(deltaRows(await readDeltaTable(store()))).toEqual(liveMirrorRows(db, 'transactions'));
    expectEngineReadsMirror(db, 'transactions', await localCopy(store()), { dataFrom: (await logVersions()).at(-1) });
  }, SLOW);
});
