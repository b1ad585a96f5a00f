import { randomBytes } from 'node:crypto';
import { CreateMultipartUploadCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketClient, type BucketClient } from '../../src/bucket/client.js';
import { PROBE_PATH } from '../../src/bucket/createOnlyWrites.js';
import { BucketDeltaStore } from '../../src/export/delta/bucketStore.js';
import type { BucketPlace } from '../../src/bucket/place.js';
import { recordingLogger } from '../helpers/sync.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from './conditionalPutProxy.js';
import { startFaultProxy, type FaultProxy, type WriteFault, type WriteSeen } from './faultProxy.js';
import { getBytes, listKeys, newBucket, openUploads, putText, sha256, storeClient, swift, useAwsEnv } from './helpers.js';

const PREFIX = 'loyalty';
const MIB = 1024 * 1024;
/** S3's (and Swift's) smallest part: a 12 MiB file goes up in three parts. */
const PART_SIZE = 5 * MIB;
const NO_PUT_IF_ABSENT = "the object store does not support put-if-absent (If-None-Match: * on PutObject): Delta commits are checked first and then written with a plain PUT, so two writers on different machines could race; one mirror's exports are still serialised by its writer lock";

const commit = (version: number): string => `_delta_log/${String(version).padStart(20, '0')}.json`;
const commitBody = (runId: string): Buffer => Buffer.from(`{"commitInfo":{"timestamp":1,"loyalty_sync.runId":"${runId}"}}\n{"add":{"path":"part-${runId}-00000.parquet"}}\n`);

function clientFor(endpoint: string): BucketClient {
  return createBucketClient({ endpoint, region: 'us-east-1', forcePathStyle: true, partSizeMiB: 5 }, {});
}

describe('a Delta table in a bucket', () => {
  const s3 = storeClient();
  let bucket: string;
  let target: BucketPlace;
  let proxy: FaultProxy;
  let fault: ((write: WriteSeen) => WriteFault) | null = null;

  beforeAll(async () => {
    // Credentials come from the environment, as in production; each client names its own endpoint.
    useAwsEnv();
    proxy = await startFaultProxy(swift().endpoint, { fault: (write) => fault?.(write) ?? 'pass' });
    bucket = await newBucket(s3);
    target = { bucket, prefix: PREFIX, url: `s3://${bucket}/${PREFIX}` };
  });
  afterAll(async () => {
    await proxy.close();
  });

  const storeOf = (client: BucketClient, table: string, logger = recordingLogger().logger): BucketDeltaStore =>
    BucketDeltaStore.create(client, target, table, logger, { partSizeBytes: PART_SIZE });

  describe('on this Swift, which answers a conditional PUT 501 NotImplemented', () => {
    it('Swift refuses If-None-Match on PutObject', async () => {
      const refused = s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${PREFIX}/probe`, Body: 'x', IfNoneMatch: '*' }));
      await expect(refused).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
      expect(await listKeys(s3, bucket, `${PREFIX}/probe`)).toEqual([]);
    });

    it('creates a commit once; a second writer gets false and the commit is unchanged; the store warns once for all its tables', async () => {
      const client = clientFor(proxy.endpoint);
      const { logger, records } = recordingLogger('warn');
      const customers = storeOf(client, 'customers', logger);
      const orders = storeOf(client, 'orders', logger);
      const first = commitBody('run-a');

      expect(await customers.putIfAbsent(commit(0), first)).toBe(true);
      expect(await customers.putIfAbsent(commit(0), commitBody('run-b'))).toBe(false);
      expect(await orders.putIfAbsent(commit(0), commitBody('run-c'))).toBe(true);
      expect(await orders.putIfAbsent(commit(1), commitBody('run-c'))).toBe(true);

      expect(await getBytes(s3, bucket, `${PREFIX}/delta/customers/${commit(0)}`)).toEqual(first);
      expect(await getBytes(s3, bucket, `${PREFIX}/delta/orders/${commit(1)}`)).toEqual(commitBody('run-c'));
      expect(records.filter((record) => record.msg === NO_PUT_IF_ABSENT)).toHaveLength(1);
    });

    it('a commit whose answer was dropped after Swift applied it is recognised as ours; a different body already there is not', async () => {
      const store = storeOf(clientFor(proxy.endpoint), 'activities');
      const ours = commitBody('run-d');
      const key = `${PREFIX}/delta/activities/${commit(0)}`;
      const dropsBefore = proxy.drops;
      // The plain PUT that follows the 501 is the one Swift applies and whose answer is lost.
      const isPlainPut = (write: WriteSeen): boolean => write.method === 'PUT' && write.path.split('?')[0] === key && write.headers['if-none-match'] === undefined;
      fault = (write) => (isPlainPut(write) && proxy.drops === dropsBefore ? 'drop-after-apply' : 'pass');
      try {
        expect(await store.putIfAbsent(commit(0), ours)).toBe(true);
      } finally {
        fault = null;
      }
      expect(proxy.drops).toBe(dropsBefore + 1);
      expect(await getBytes(s3, bucket, key)).toEqual(ours);

      expect(await store.putIfAbsent(commit(0), commitBody('run-e'))).toBe(false);
      expect(await getBytes(s3, bucket, key)).toEqual(ours);
    });
  });

  describe('on a store that honours If-None-Match', () => {
    let conditional: ConditionalPutProxy;
    let dropNext: string | null = null;
    let conflicts = 0;

    beforeAll(async () => {
      conditional = await startConditionalPutProxy(swift().endpoint, s3, {
        dropAnswer: (key) => {
          const drop = key === dropNext;
          if (drop) dropNext = null;
          return drop;
        },
        conflict: (key) => !key.endsWith(PROBE_PATH) && conflicts-- > 0,
      });
    });
    /** The statuses of the conditional PUTs of commits (the place's probe aside), from the `from`th answer on. */
    const commitAnswers = (from = 0): number[] => conditional.answers.slice(from).filter(({ key }) => !key.endsWith(PROBE_PATH)).map(({ status }) => status);
    afterAll(async () => {
      await conditional.close();
    });

    it('creates a commit once and returns false to the second writer, with no warning', async () => {
      const { logger, records } = recordingLogger('warn');
      const store = storeOf(clientFor(conditional.endpoint), 'transactions', logger);
      const first = commitBody('run-f');
      expect(await store.putIfAbsent(commit(0), first)).toBe(true);
      expect(await store.putIfAbsent(commit(0), commitBody('run-g'))).toBe(false);
      expect(commitAnswers()).toEqual([200, 412]);
      // The place was probed first: one create-only PUT created the probe, the second was refused.
      expect(conditional.answers.filter(({ key }) => key === `${PREFIX}/${PROBE_PATH}`).map(({ status }) => status)).toEqual([200, 412]);
      expect(await getBytes(s3, bucket, `${PREFIX}/delta/transactions/${commit(0)}`)).toEqual(first);
      expect(records).toEqual([]);
    });

    it('a commit applied but never answered meets its own object on the retry (412) and is recognised as ours', async () => {
      const store = storeOf(clientFor(conditional.endpoint), 'unsubscribes');
      const ours = commitBody('run-h');
      const key = `${PREFIX}/delta/unsubscribes/${commit(0)}`;
      dropNext = key;
      const answersBefore = conditional.answers.length;
      expect(await store.putIfAbsent(commit(0), ours)).toBe(true);
      expect(conditional.drops).toBe(1);
      expect(commitAnswers(answersBefore)).toEqual([200, 412]);
      expect(await getBytes(s3, bucket, key)).toEqual(ours);

      expect(await store.putIfAbsent(commit(0), commitBody('run-i'))).toBe(false);
      expect(await getBytes(s3, bucket, key)).toEqual(ours);
    });

    it('a commit the store answers 409 ConditionalRequestConflict is sent again', async () => {
      const store = storeOf(clientFor(conditional.endpoint), 'conflicted');
      const ours = commitBody('run-l');
      conflicts = 2;
      const answersBefore = conditional.answers.length;
      expect(await store.putIfAbsent(commit(0), ours)).toBe(true);
      expect(commitAnswers(answersBefore)).toEqual([409, 409, 200]);
      expect(await getBytes(s3, bucket, `${PREFIX}/delta/conflicted/${commit(0)}`)).toEqual(ours);
    });
  });

  describe('on a store that accepts If-None-Match and ignores it (answers 200 and overwrites, as s3rver does)', () => {
    let ignoring: ConditionalPutProxy;
    beforeAll(async () => {
      ignoring = await startConditionalPutProxy(swift().endpoint, s3, { ignoreConditions: true });
    });
    afterAll(async () => {
      await ignoring.close();
    });

    it('the second writer of a version gets false and the commit is unchanged; the store is named once for all its tables', async () => {
      const { logger, records } = recordingLogger('warn');
      const client = clientFor(ignoring.endpoint);
      const reviews = storeOf(client, 'reviews', logger);
      const points = storeOf(client, 'points', logger);
      const first = commitBody('run-m');

      expect(await reviews.putIfAbsent(commit(0), first)).toBe(true);
      expect(await reviews.putIfAbsent(commit(0), commitBody('run-n'))).toBe(false);
      expect(await points.putIfAbsent(commit(0), commitBody('run-o'))).toBe(true);

      expect(await getBytes(s3, bucket, `${PREFIX}/delta/reviews/${commit(0)}`)).toEqual(first);
      expect(records.map((record) => record.msg)).toEqual([
        "the object store accepts If-None-Match: * on PutObject but ignores it (a second create-only PUT of one key overwrote it): Delta commits are checked first and then written with a plain PUT, so two writers on different machines could race; one mirror's exports are still serialised by its writer lock",
      ]);
      // Commits went up as plain PUTs: the only create-only PUTs were the probe's two, and the probe is gone.
      expect(ignoring.answers).toEqual([
        { key: `${PREFIX}/${PROBE_PATH}`, status: 200 },
        { key: `${PREFIX}/${PROBE_PATH}`, status: 200 },
      ]);
      expect(await listKeys(s3, bucket, `${PREFIX}/${PROBE_PATH}`)).toEqual([]);
    });
  });

  it('lists, reads and deletes only under its table root, through a store that pages by key', async () => {
    const outside = [
      `${PREFIX}/delta/other/x`,
      `${PREFIX}/delta/other/_delta_log/${commit(0)}`,
      `${PREFIX}/delta/customers_old/_delta_log/${commit(0)}`,
      `${PREFIX}/delta/customersx`,
      `${PREFIX}/customers/dt=2024-01-01/customers-20240101T000000Z-0abc.csv`,
    ];
    for (const key of outside) await putText(s3, bucket, key, 'not this table');
    const pagingProxy = await startFaultProxy(swift().endpoint, { listPageKeys: 2 });
    try {
      const store = storeOf(clientFor(pagingProxy.endpoint), 'confined');
      const data = randomBytes(1000);
      const sink = await store.createDataFile('part-run-00000-abcdefgh.parquet');
      await sink.write(data);
      await sink.finish();
      await store.putIfAbsent(commit(0), commitBody('run-j'));
      await store.putIfAbsent(commit(1), commitBody('run-k'));
      await store.put('_delta_log/_last_checkpoint', Buffer.from('{"version":0,"size":1}'));

      const listed = await store.list();
      expect(listed.map((entry) => entry.path).sort()).toEqual([commit(0), commit(1), '_delta_log/_last_checkpoint', 'part-run-00000-abcdefgh.parquet']);
      const dataEntry = listed.find((entry) => entry.path.endsWith('.parquet'));
      expect(dataEntry?.size).toBe(1000);
      for (const entry of listed) expect(entry.modifiedMs).toBeGreaterThan(Date.parse('2024-01-01'));
      expect((await store.listLog()).map((entry) => entry.path).sort()).toEqual([commit(0), commit(1), '_delta_log/_last_checkpoint']);

      expect(await store.read('part-run-00000-abcdefgh.parquet')).toEqual(data);
      expect(await store.read(commit(2))).toBeNull();
      expect(store.location).toBe(`s3://${bucket}/${PREFIX}/delta/confined`);

      await expect(store.read('../other/x')).rejects.toThrow('relative to the table root');
      await expect(store.delete([commit(0), '../other/x'])).rejects.toThrow('relative to the table root');
      expect(await store.read(commit(0))).not.toBeNull();

      await store.delete([...listed.map((entry) => entry.path), commit(7)]);
      expect(await store.list()).toEqual([]);
      expect(await listKeys(s3, bucket, `${PREFIX}/delta/confined`)).toEqual([]);
      const left = await listKeys(s3, bucket, `${PREFIX}/`);
      for (const key of outside) expect(left).toContain(key);
    } finally {
      await pagingProxy.close();
    }
  });

  it('streams a data file up in parts; its bytes and SHA-256 are those written', async () => {
    const store = storeOf(clientFor(proxy.endpoint), 'multipart');
    const path = 'part-run-00001-abcdefgh.parquet';
    const data = randomBytes(12 * MIB + 12345);
    const writesBefore = proxy.writes.length;
    const sink = await store.createDataFile(path);
    for (let offset = 0; offset < data.byteLength; offset += MIB) await sink.write(data.subarray(offset, offset + MIB));
    const finished = await sink.finish();

    expect(finished).toEqual({ bytes: data.byteLength, sha256: sha256(data) });
    const stored = await getBytes(s3, bucket, `${PREFIX}/delta/multipart/${path}`);
    expect(stored.byteLength).toBe(data.byteLength);
    expect(sha256(stored)).toBe(sha256(data));
    const parts = proxy.writes.slice(writesBefore).filter((write) => write.method === 'PUT' && /[?&]partNumber=/.test(write.path));
    expect(parts).toHaveLength(3);
  });

  it('an aborted data file leaves no object and no open upload', async () => {
    const store = storeOf(clientFor(proxy.endpoint), 'aborted');
    const large = await store.createDataFile('part-run-00002-abcdefgh.parquet');
    await large.write(randomBytes(6 * MIB));
    await large.abort();
    const small = await store.createDataFile('part-run-00003-abcdefgh.parquet');
    await small.write(randomBytes(1000));
    await small.abort();

    expect(await listKeys(s3, bucket, `${PREFIX}/delta/aborted/`)).toEqual([]);
    expect((await openUploads(s3, bucket)).filter((upload) => upload.startsWith(`${PREFIX}/delta/aborted/`))).toEqual([]);
  });

  it('aborts the uploads a killed run left under its table root, once old enough, and no other', async () => {
    const store = storeOf(clientFor(proxy.endpoint), 'killed');
    const begin = async (key: string): Promise<void> => {
      await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    };
    await begin(`${PREFIX}/delta/killed/part-run-00004-abcdefgh.parquet`);
    await begin(`${PREFIX}/delta/other/part-run-00005-abcdefgh.parquet`);
    const open = async (): Promise<string[]> => (await openUploads(s3, bucket)).map((upload) => upload.split('#')[0]).filter((key) => /\/delta\/(killed|other)\//.test(key));

    expect(await store.abortUploadsBegunBefore(Date.parse('2024-01-01'))).toBe(0);
    expect(await open()).toHaveLength(2);
    expect(await store.abortUploadsBegunBefore(Date.now() + 24 * 60 * 60 * 1000)).toBe(1);
    expect(await open()).toEqual([`${PREFIX}/delta/other/part-run-00005-abcdefgh.parquet`]);
  });
});
