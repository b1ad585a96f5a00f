import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createBucketClient, type BucketClient } from '../../src/bucket/client.js';
import { BucketObjects } from '../../src/bucket/objects.js';
import { StoreClock } from '../../src/bucket/storeClock.js';
import { listJobs } from '../../src/queue/listJobs.js';
import { importInbox } from '../../src/state/inbox/index.js';
import { BucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { mirrorCustomers, startHarness, usableCustomers, type Harness } from '../queue/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { newBucket, putText, storeClient, swift, useAwsEnv } from './helpers.js';

// A store may list a replaced inbox file before it serves the new bytes (an eventually consistent overwrite, a
// caching gateway). The run that reads the old bytes under the new listing must not take that listing as read:
// the replacement's rows are queued once the store serves them.

const s3 = storeClient();
let bucket: string;
let proxy: FaultProxy;
let client: BucketClient;
let stale: { key: string; body: Buffer; etag: string } | null = null;
let listedModified: string | undefined;
let h: Harness;

beforeAll(async () => {
  useAwsEnv();
  bucket = await newBucket(s3);
  proxy = await startFaultProxy(swift().endpoint, { staleRead: (key) => (stale !== null && key === stale.key ? stale : undefined), listedModified: () => listedModified });
  client = createBucketClient({ endpoint: proxy.endpoint, region: 'us-east-1', forcePathStyle: true, partSizeMiB: 5 }, {});
});
afterAll(async () => {
  client.s3.destroy();
  await proxy.close();
});
beforeEach(async () => {
  h = await startHarness();
  stale = null;
  listedModified = undefined;
});
afterEach(() => h.close());

it('a replacement of the same size listed before it is served is queued once served, not passed over for good', async () => {
  const prefix = 'late-served';
  const objects = new BucketStateStore(new BucketObjects(client, { bucket, prefix, url: `s3://${bucket}/${prefix}` }, h.logger), new StoreClock(), 5 * 1024 * 1024);
  const [customer] = usableCustomers(h.sim);
  mirrorCustomers(h.db, [customer]);
  const path = 'inbox/add_points/batch.csv';
  const key = `${prefix}/${path}`;
  const v1 = `customer_merchant_id,points,reason\n${customer.merchant_id},100,batch\n`;
  // Corrected points, the same length: only the tag tells the two apart.
  const v2 = v1.replace(',100,', ',200,');

  await putText(s3, bucket, key, v1);
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [path], queued: 1 });
  const old = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const oldBytes = Buffer.from(await old.Body!.transformToByteArray());

  // Replaced; the listing shows the new object while reads still get the old one.
  await putText(s3, bucket, key, v2);
  stale = { key, body: oldBytes, etag: String(old.ETag).replaceAll('"', '') };
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0 });
  expect(listJobs(h.db)).toHaveLength(1);

  // The store now serves the replacement.
  stale = null;
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [path], queued: 1 });
  expect(listJobs(h.db).map((job) => job.payload.points)).toEqual([100, 200]);
  // And once only.
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0 });
  expect(listJobs(h.db)).toHaveLength(2);
});

it('a replacement of the same size written within the same listed second is told apart by its tag, and queued', async () => {
  const prefix = 'same-second';
  const objects = new BucketStateStore(new BucketObjects(client, { bucket, prefix, url: `s3://${bucket}/${prefix}` }, h.logger), new StoreClock(), 5 * 1024 * 1024);
  const [customer] = usableCustomers(h.sim);
  mirrorCustomers(h.db, [customer]);
  const path = 'inbox/add_points/batch.csv';
  const v1 = `customer_merchant_id,points,reason\n${customer.merchant_id},100,batch\n`;
  // Both writes list with one time, as two writes within a second do: size and time cannot tell them apart.
  listedModified = '2026-11-28T12:00:00.000Z';
  await putText(s3, bucket, `${prefix}/${path}`, v1);
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [path], queued: 1 });
  await putText(s3, bucket, `${prefix}/${path}`, v1.replace(',100,', ',200,'));
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [path], queued: 1 });
  expect(listJobs(h.db).map((job) => job.payload.points)).toEqual([100, 200]);
  // Unchanged since, it is not read again.
  const reads = proxy.reads.length;
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0 });
  expect(proxy.reads.length).toBe(reads);
});

it("a file from a store whose reads never carry the listing's tag (a gateway's own) is queued once and not read again", async () => {
  const prefix = 'gateway-tags';
  const objects = new BucketStateStore(new BucketObjects(client, { bucket, prefix, url: `s3://${bucket}/${prefix}` }, h.logger), new StoreClock(), 5 * 1024 * 1024);
  const [customer] = usableCustomers(h.sim);
  mirrorCustomers(h.db, [customer]);
  const path = 'inbox/add_points/batch.csv';
  const text = `customer_merchant_id,points,reason\n${customer.merchant_id},100,batch\n`;
  await putText(s3, bucket, `${prefix}/${path}`, text);
  // Every read comes with a tag of the gateway's making, never the listing's.
  stale = { key: `${prefix}/${path}`, body: Buffer.from(text), etag: 'gateway-made-tag' };
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [path], queued: 1 });
  const reads = proxy.reads.length;
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0 });
  expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0 });
  expect(proxy.reads.length).toBe(reads);
  expect(listJobs(h.db)).toHaveLength(1);
});
