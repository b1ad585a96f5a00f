import type { S3Client } from '@aws-sdk/client-s3';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';
import { tempDir } from '../helpers/tempDir.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from '../s3/conditionalPutProxy.js';
import { awsEnv, newBucket, storeClient, swift } from '../s3/helpers.js';

export interface StateStore {
  sim: () => SimulatorHandle;
  /** The store's endpoint: Swift behind a proxy that applies `If-None-Match: *` atomically, as AWS S3 does. */
  endpoint: () => string;
  bucket: () => string;
  client: S3Client;
  /** The store's clock as its answers show it (skew it, or drop Date); see ConditionalPutProxy.storeClock. */
  storeClock: () => ConditionalPutProxy['storeClock'];
  /** Moves the store's clock on by `ms`: a lease of a run that is gone runs out without the test waiting for it. */
  advanceStoreClock: (ms: number) => void;
  /** A run's environment in a folder of its own (as a job on a fresh container gets), on the state at `prefix`. */
  freshRun: (prefix: string, settings?: Record<string, string>) => { dir: string; env: Record<string, string> };
}

/** For one test file: a simulator, a store that enforces create-only writes, and a bucket, started before its tests. */
export function useStateStore(simulator: SimulatorOptions): StateStore {
  const client = storeClient();
  let sim: SimulatorHandle;
  let proxy: ConditionalPutProxy;
  let bucket: string;
  beforeAll(async () => {
    sim = await startSimulator(simulator);
    proxy = await startConditionalPutProxy(swift().endpoint, client);
    bucket = await newBucket(client);
  });
  afterAll(async () => {
    await sim.close();
    await proxy.close();
    client.destroy();
  });
  return {
    sim: () => sim,
    endpoint: () => proxy.endpoint,
    bucket: () => bucket,
    client,
    storeClock: () => proxy.storeClock,
    advanceStoreClock: (ms) => {
      proxy.storeClock.skewMs += ms;
    },
    freshRun: (prefix, settings = {}) => {
      const dir = tempDir('loyalty-state-');
      return {
        dir,
        env: {
          ...awsEnv(proxy.endpoint),
          LOYALTY_API_KEY: sim.keys.full,
          LOYALTY_BASE_URL: sim.url,
          LOYALTY_DB: join(dir, 'mirror.db'),
          LOYALTY_EXPORT_DIR: join(dir, 'exports'),
          LOYALTY_STATE_URL: `s3://${bucket}/${prefix}`,
          ...settings,
        },
      };
    },
  };
}

/** A seeded generator of numbers in [0, 1), so a failing random sequence can be run again. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}
