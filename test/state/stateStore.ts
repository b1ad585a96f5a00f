import type { S3Client } from '@aws-sdk/client-s3';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';
import { tempDir } from '../helpers/tempDir.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from '../s3/conditionalPutProxy.js';
import { awsEnv, getBytes, listKeys, newBucket, putText, storeClient, swift } from '../s3/helpers.js';

/** Where a test keeps the state: in a bucket (s3://) or in a folder (file://). */
export type StoreKind = 'bucket' | 'folder';

/** Both kinds, for `describe.each`: the state's tests hold for every place it can be kept. */
export const STORE_KINDS: readonly StoreKind[] = ['bucket', 'folder'];

export interface StateStore {
  kind: StoreKind;
  sim: () => SimulatorHandle;
  /** The store's endpoint: Swift behind a proxy that applies `If-None-Match: *` atomically, as AWS S3 does. Bucket only. */
  endpoint: () => string;
  /** Bucket only. */
  bucket: () => string;
  client: S3Client;
  /** The state.url of the state at `prefix`. */
  url: (prefix: string) => string;
  /** What a process of this test file needs in its environment to reach the store (in-process sessions). */
  processEnv: () => Record<string, string>;
  /** An object as an operator puts it there: `key` is PREFIX/PATH, as in a bucket. */
  putText: (key: string, text: string) => Promise<void>;
  getBytes: (key: string) => Promise<Buffer>;
  /** The keys under `prefix` (PREFIX/…), sorted. */
  listKeys: (prefix: string) => Promise<string[]>;
  /** The store's clock as its answers show it (skew it, or drop Date); see ConditionalPutProxy.storeClock. Bucket only. */
  storeClock: () => ConditionalPutProxy['storeClock'];
  /** Every answer of the bucket's proxy so far: method, key and status. */
  storeAnswers: () => ConditionalPutProxy['answered'];
  /**
   * Moves the store's clock on by `ms`: a lease of a run that is gone runs out without the test waiting for it.
   * A folder's clock is this machine's, so there the log's entries move `ms` back in time instead, which is
   * the same to every lease judged by them.
   */
  advanceStoreClock: (ms: number) => void;
  /** A run's environment in a folder of its own (as a job on a fresh container gets), on the state at `prefix`. */
  freshRun: (prefix: string, settings?: Record<string, string>) => { dir: string; env: Record<string, string> };
}

/**
 * A program of about 1,900 rows: with pages of 25, a whole read costs some 80 requests and an incremental one
 * a fifth of that, and a run takes seconds, long enough to be caught holding the lease, short enough for many runs.
 */
export const MODEST_PROGRAM = { customers: 300, orders: 400, activities: 500, transactions: 600, reviews: 40, unsubscribes: 80 };

/**
 * For one test file: a simulator and a store that enforces create-only writes, started before its
 * tests: a bucket on Swift behind the conditional-write proxy, or a folder on the local disk.
 */
export function useStateStore(simulator: SimulatorOptions, kind: StoreKind = 'bucket'): StateStore {
  const client = storeClient();
  let sim: SimulatorHandle;
  let proxy: ConditionalPutProxy | undefined;
  let bucket: string | undefined;
  let root = '';
  beforeAll(async () => {
    sim = await startSimulator(simulator);
    if (kind === 'bucket') {
      proxy = await startConditionalPutProxy(swift().endpoint, client);
      bucket = await newBucket(client);
    } else {
      root = tempDir('loyalty-state-folder-');
    }
  });
  afterAll(async () => {
    await sim.close();
    await proxy?.close();
    client.destroy();
  });
  const bucketOnly = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`a state kept in a ${kind} has no bucket`);
    return value;
  };
  const file = (key: string) => join(root, ...key.split('/'));
  const url = (prefix: string) => (kind === 'bucket' ? `s3://${bucketOnly(bucket)}/${prefix}` : pathToFileURL(join(root, prefix)).href);
  return {
    kind,
    sim: () => sim,
    endpoint: () => bucketOnly(proxy).endpoint,
    bucket: () => bucketOnly(bucket),
    client,
    url,
    processEnv: () => (kind === 'bucket' ? awsEnv(bucketOnly(proxy).endpoint) : {}),
    putText: async (key, text) => {
      if (kind === 'bucket') return putText(client, bucketOnly(bucket), key, text);
      mkdirSync(dirname(file(key)), { recursive: true });
      writeFileSync(file(key), text);
    },
    getBytes: async (key) => (kind === 'bucket' ? getBytes(client, bucketOnly(bucket), key) : readFileSync(file(key))),
    listKeys: async (prefix) => {
      if (kind === 'bucket') return listKeys(client, bucketOnly(bucket), prefix);
      const files = (readdirSync(root, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>).filter((entry) => entry.isFile());
      return files
        .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
        .filter((key) => key.startsWith(prefix) && !key.split('/').some((segment) => segment.startsWith('.')))
        .sort();
    },
    storeClock: () => bucketOnly(proxy).storeClock,
    storeAnswers: () => bucketOnly(proxy).answered,
    advanceStoreClock: (ms) => {
      if (kind === 'bucket') bucketOnly(proxy).storeClock.skewMs += ms;
      else moveLogBack(root, ms);
    },
    freshRun: (prefix, settings = {}) => {
      const dir = tempDir('loyalty-state-');
      return {
        dir,
        env: {
          ...(kind === 'bucket' ? awsEnv(bucketOnly(proxy).endpoint) : {}),
          LOYALTY_API_KEY: sim.keys.full,
          LOYALTY_BASE_URL: sim.url,
          LOYALTY_DB: join(dir, 'mirror.db'),
          LOYALTY_EXPORT_DIR: join(dir, 'exports'),
          LOYALTY_STATE_URL: url(prefix),
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

/** Every log entry under `root` written `ms` earlier, each replaced whole (a reader sees the old entry or the new). */
function moveLogBack(root: string, ms: number): void {
  const earlier = (iso: string) => new Date(Date.parse(iso) - ms).toISOString();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.') || !entry.parentPath.endsWith(`${sep}state${sep}log`)) continue;
    const file = join(entry.parentPath, entry.name);
    let value: { leaseUntil: string; writtenAt: string };
    try {
      value = JSON.parse(readFileSync(file, 'utf8')) as { leaseUntil: string; writtenAt: string };
    } catch (error) {
      // Removed by a retention sweep meanwhile.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const temp = join(entry.parentPath, `.${entry.name}.moved`);
    writeFileSync(temp, `${JSON.stringify({ ...value, leaseUntil: earlier(value.leaseUntil), writtenAt: earlier(value.writtenAt) }, null, 1)}\n`);
    renameSync(temp, file);
  }
}
