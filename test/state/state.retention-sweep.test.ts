import { CreateMultipartUploadCommand } from '@aws-sdk/client-s3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBucketClient } from '../../src/bucket/client.js';
import { parseBucketPlace } from '../../src/bucket/place.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { DUMPS_FOLDER, dumpsOf, sweepState } from '../../src/state/retention.js';
import { StateLog } from '../../src/state/stateLog.js';
import { bucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { runCli } from '../helpers/cli.js';
import { mirrorDiffAll, recordingLogger } from '../helpers/sync.js';
import { listKeys, openUploads, useAwsEnv } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('what the lease holder removes from the state in the bucket (state.retainHours)', () => {
  const store = useStateStore({ seed: 315, size: 'tiny' });

  it('keeps every dump a retained save names, removes the rest only past retention and only while it holds the lease, and the state stays restorable', async () => {
    // A base, then a new base after every row changed: the first base is superseded, and kept for restores as of then.
    const writer = store.freshRun('retain');
    expect((await runCli(['sync'], writer)).code).toBe(0);
    const touched = openDatabase(join(writer.dir, 'mirror.db'), { mustExist: true });
    for (const table of ['customers', 'orders', 'activities', 'transactions', 'unsubscribes']) touched.prepare(`UPDATE ${table} SET raw = raw`).run();
    touched.close();
    expect((await runCli(['sync'], writer)).code).toBe(0);
    expect((await runCli(['sync'], writer)).code).toBe(0);

    useAwsEnv(store.endpoint());
    const config = loadConfig({ env: writer.env });
    const place = parseBucketPlace(config.state.url, 'state.url');
    const client = createBucketClient(config.export.s3);
    const objects = bucketStateStore(client, place, recordingLogger().logger, 5 * 1024 * 1024);
    const log = new StateLog(objects);
    const head = (await log.head(true))!;
    const current = dumpsOf(head.manifest);
    const dumpsNow = async () => (await listKeys(store.client, store.bucket(), `retain/${DUMPS_FOLDER}`)).map((key) => key.slice('retain/'.length));
    const before = await dumpsNow();
    expect(before.filter((path) => !current.includes(path)).length, 'superseded dumps stay until retention ends').toBeGreaterThan(0);
    // A save killed midway leaves its multipart upload open.
    await store.client.send(new CreateMultipartUploadCommand({ Bucket: store.bucket(), Key: `retain/${DUMPS_FOLDER}000000000099-segment-killed.jsonl.zst` }));

    const sweep = (nowMs: number, holder: boolean) => sweepState(objects, log, { nowMs, keepMs: DAY_MS, tempAgeMs: DAY_MS, head, stillHolder: async () => holder });
    // Within retention: nothing goes.
    expect(await sweep(Date.now() + DAY_MS / 2, true)).toEqual({ dumps: 0, entries: 0, uploads: 0, tempFiles: 0 });
    // Past it, by a run that re-reads the head and finds it no longer its own: nothing goes either.
    expect(await sweep(Date.now() + 3 * DAY_MS, false)).toEqual({ dumps: 0, entries: 0, uploads: 0, tempFiles: 0 });
    expect(await dumpsNow()).toEqual(before);
    // Past it, by the holder: only what the newest save does not name.
    const removed = await sweep(Date.now() + 3 * DAY_MS, true);
    expect(removed.dumps).toBe(before.length - current.length);
    expect(removed.entries).toBe(head.seq - 1);
    expect((await dumpsNow()).sort()).toEqual([...current].sort());
    expect(await openUploads(store.client, store.bucket())).toEqual([]);
    client.s3.destroy();

    const last = store.freshRun('retain');
    const restored = await runCli(['sync'], last);
    expect(restored.code, restored.stderr).toBe(0);
    const db = openDatabase(join(last.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, store.sim())).toEqual([]);
    } finally {
      db.close();
    }
  });
});
