import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBucketClient } from '../../src/bucket/client.js';
import { bucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { parseBucketPlace } from '../../src/bucket/place.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { StateSession } from '../../src/state/session.js';
import { runCli } from '../helpers/cli.js';
import { mirrorDiffAll, recordingLogger } from '../helpers/sync.js';
import { listKeys, useAwsEnv } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

describe('a restore without the lease (status, queue list) while the holder saves', () => {
  const store = useStateStore({ seed: 31, size: 'tiny' });

  it('restores the newer state when a save superseded a dump it was about to fetch', async () => {
    const first = store.freshRun('busy');
    expect((await runCli(['sync'], first)).code).toBe(0);

    // A reader has read the log's newest entry and not yet fetched its base.
    useAwsEnv(store.endpoint());
    const reader = store.freshRun('busy');
    const config = loadConfig({ env: reader.env });
    const client = createBucketClient(config.export.s3);
    const objects = bucketStateStore(client, parseBucketPlace(config.state.url, 'state.url'), recordingLogger().logger, 5 * 1024 * 1024);
    const session = new StateSession({ config, logger: recordingLogger().logger, command: 'status', mode: 'read' }, objects, objects, objects.clock, null, null);
    expect(await session.acquire()).toBeNull();
    const readBase = session.newest?.manifest?.base.path;

    // Meanwhile the holder touches every row (its mirror keeps its folder between runs): the save after that
    // ships them all, and the one after writes a new base. Retention keeps the old one for a while; once past
    // it (here: deleted by hand) a reader that read the old entry finds it gone.
    const writer = store.freshRun('busy');
    expect((await runCli(['sync'], writer)).code).toBe(0);
    const touched = openDatabase(join(writer.dir, 'mirror.db'), { mustExist: true });
    for (const table of ['customers', 'orders', 'activities', 'transactions', 'unsubscribes']) touched.prepare(`UPDATE ${table} SET raw = raw`).run();
    touched.close();
    expect((await runCli(['sync'], writer)).code).toBe(0);
    expect((await runCli(['sync'], writer)).code).toBe(0);
    await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket(), Key: `busy/${readBase}` }));
    expect(await listKeys(store.client, store.bucket(), `busy/${readBase}`)).toEqual([]);

    const report = await session.prepareMirror();
    expect(report).not.toBeNull();
    expect(session.newest?.manifest?.base.path).not.toBe(readBase);
    // Read from a copy of its own: a reader never puts a file where a live run's mirror is.
    expect(existsSync(join(reader.dir, 'mirror.db'))).toBe(false);
    const db = openDatabase(session.mirrorPath, { mustExist: true });
    try {
      expect(mirrorDiffAll(db, store.sim())).toEqual([]);
    } finally {
      db.close();
      await session.end();
      client.s3.destroy();
    }
  });
});
