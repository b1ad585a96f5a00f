import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketClient } from '../../src/bucket/client.js';
import { bucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { StateError } from '../../src/state/errors.js';
import { StateLog } from '../../src/state/stateLog.js';
import { recordingLogger } from '../helpers/sync.js';
import { forward } from '../s3/forward.js';
import { newBucket, storeClient, swift, useAwsEnv } from '../s3/helpers.js';

/**
 * A store whose listing of the log lags behind its deletes: it still names entry 7, which pruning removed.
 * Every other request goes to the real store.
 */
async function startLaggingListing(upstream: string, bucket: string): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && /[?&]list-type=2/.test(req.url ?? '') && decodeURIComponent(req.url ?? '').includes('state/log/')) {
      const xml = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>lagging/state/log/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>lagging/state/log/000000000007.json</Key><LastModified>2026-11-26T06:00:00.000Z</LastModified><ETag>"x"</ETag><Size>400</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>`;
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) }).end(xml);
      return;
    }
    forward(req, res, target);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the state's log on a store whose listing lags behind its deletes", () => {
  const client = storeClient();
  let proxy: { endpoint: string; close: () => Promise<void> };
  let bucket: string;

  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(client);
    proxy = await startLaggingListing(swift().endpoint, bucket);
  });
  afterAll(async () => {
    await proxy.close();
    client.destroy();
  });

  it('refuses, in one sentence, to take a listed entry it cannot read for an empty log that would start the state over', async () => {
    const objects = bucketStateStore(createBucketClient({ endpoint: proxy.endpoint, region: '', forcePathStyle: true, partSizeMiB: 5 }), { bucket, prefix: 'lagging', url: `s3://${bucket}/lagging` }, recordingLogger().logger, 5 * 1024 * 1024);
    const head = new StateLog(objects).head(true);
    await expect(head).rejects.toThrow(StateError);
    await expect(head).rejects.toThrow(
      `The state's log in bucket "${bucket}" lists entry 7 at lagging/state/log/000000000007.json, which cannot be read; the store's listing lags behind its deletes, so try again shortly.`,
    );
  });
});
