import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketClient, type BucketClient } from '../../src/bucket/client.js';
import { createOnlyWritesAt, PROBE_PATH, probeCreateOnly } from '../../src/bucket/createOnlyWrites.js';
import { BucketObjects } from '../../src/bucket/objects.js';
import { recordingLogger } from '../helpers/sync.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from './conditionalPutProxy.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { listKeys, newBucket, putText, storeClient, swift, useAwsEnv } from './helpers.js';

function clientFor(endpoint: string): BucketClient {
  return createBucketClient({ endpoint, region: 'us-east-1', forcePathStyle: true, partSizeMiB: 5 }, {});
}

describe('probing whether a bucket place enforces create-only writes (If-None-Match: *)', () => {
  const s3 = storeClient();
  let bucket: string;
  let enforcing: ConditionalPutProxy;
  let ignoring: ConditionalPutProxy;
  const placeOf = (client: BucketClient, prefix: string): BucketObjects => new BucketObjects(client, { bucket, prefix, url: `s3://${bucket}/${prefix}` }, recordingLogger().logger);
  const probeAnswers = (proxy: ConditionalPutProxy, prefix: string): number[] => proxy.answers.filter(({ key }) => key === `${prefix}/${PROBE_PATH}`).map(({ status }) => status);

  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(s3);
    enforcing = await startConditionalPutProxy(swift().endpoint, s3);
    ignoring = await startConditionalPutProxy(swift().endpoint, s3, { ignoreConditions: true });
  });
  afterAll(async () => {
    await enforcing.close();
    await ignoring.close();
  });

  it('finds that this Swift (before 2.36) refuses the header, and writes nothing', async () => {
    expect(await probeCreateOnly(placeOf(clientFor(swift().endpoint), 'swift'))).toBe('refused');
    expect(await listKeys(s3, bucket, 'swift/')).toEqual([]);
  });

  it('finds that a store applying the header refuses the second create-only PUT, and removes its one object', async () => {
    expect(await probeCreateOnly(placeOf(clientFor(enforcing.endpoint), 'enforced'))).toBe('enforced');
    expect(probeAnswers(enforcing, 'enforced')).toEqual([200, 412]);
    expect(await listKeys(s3, bucket, 'enforced/')).toEqual([]);
  });

  it('finds that a store ignoring the header (s3rver) overwrote on the second create-only PUT, and removes its one object', async () => {
    expect(await probeCreateOnly(placeOf(clientFor(ignoring.endpoint), 'ignored'))).toBe('ignored');
    expect(probeAnswers(ignoring, 'ignored')).toEqual([200, 200]);
    expect(await listKeys(s3, bucket, 'ignored/')).toEqual([]);
  });

  it('where the store forbids deletes, keeps its one object, and the next probe is answered by it', async () => {
    const denying: FaultProxy = await startFaultProxy(enforcing.endpoint, { fault: (write) => (write.method === 'POST' && /[?&]delete/.test(write.path) ? 'deny' : 'pass') });
    try {
      const client = clientFor(denying.endpoint);
      expect(await probeCreateOnly(placeOf(client, 'kept'))).toBe('enforced');
      expect(await listKeys(s3, bucket, 'kept/')).toEqual([`kept/${PROBE_PATH}`]);
      expect(await probeCreateOnly(placeOf(client, 'kept'))).toBe('enforced');
      expect(probeAnswers(enforcing, 'kept')).toEqual([200, 412, 412]);
      expect(await listKeys(s3, bucket, 'kept/')).toEqual([`kept/${PROBE_PATH}`]);
    } finally {
      await denying.close();
    }
  });

  it('never deletes a probe object it did not create (another process probing the place at the same moment)', async () => {
    await putText(s3, bucket, `shared/${PROBE_PATH}`, 'the other process\'s probe');
    expect(await probeCreateOnly(placeOf(clientFor(enforcing.endpoint), 'shared'))).toBe('enforced');
    expect(await listKeys(s3, bucket, 'shared/')).toEqual([`shared/${PROBE_PATH}`]);
  });

  it('probes each place once per client, however many callers ask at once, and says the verdict once', async () => {
    const client = clientFor(ignoring.endpoint);
    const heard: string[] = [];
    const asks = Array.from({ length: 5 }, () => createOnlyWritesAt(placeOf(client, 'once'), (writes) => heard.push(writes)));
    expect(await Promise.all(asks)).toEqual(Array(5).fill('ignored'));
    expect(await createOnlyWritesAt(placeOf(client, 'once'), (writes) => heard.push(writes))).toBe('ignored');
    expect(heard).toEqual(['ignored']);
    expect(probeAnswers(ignoring, 'once')).toEqual([200, 200]);
    // Another place of the same client gets its own probe.
    expect(await createOnlyWritesAt(placeOf(client, 'elsewhere'))).toBe('ignored');
    expect(probeAnswers(ignoring, 'elsewhere')).toEqual([200, 200]);
  });
});
