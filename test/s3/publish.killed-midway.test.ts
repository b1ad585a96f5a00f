import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/export/index.js';
import { parseDataFilePath } from '../../src/export/layout.js';
import { EXPORT_TABLES } from '../../src/export/schema.js';
import { bigTransactionsMirror } from '../export/bigMirror.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { tempDir } from '../helpers/tempDir.js';
import { startFaultProxy, type FaultProxy, type WriteSeen } from './faultProxy.js';
import { awsEnv, getJson, listKeys, newBucket, openUploads, storeClient, swift } from './helpers.js';

const PREFIX = 'exports/loyalty';

describe('an export killed at any moment of its upload', () => {
  const client = storeClient();
  const dir = tempDir();
  let bucket: string;
  let proxy: FaultProxy;
  let killWhen: ((write: WriteSeen) => boolean) | null = null;
  let kill: (() => void) | null = null;
  let killedAt: WriteSeen | null = null;
  let env: Record<string, string>;
  let previousRunId: string;

  beforeAll(async () => {
    // 40,000 transactions make a CSV of about 20 MB: four parts of 5 MiB.
    bigTransactionsMirror(join(dir, 'mirror.db'), 40_000).close();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ export: { s3: { partSizeMiB: 5 } } }));
    bucket = await newBucket(client);
    proxy = await startFaultProxy(swift().endpoint, {
      // A slow store, so that every moment of the upload can be hit.
      writeDelayMs: 150,
      onWrite: (write) => {
        if (killWhen?.(write)) {
          killWhen = null;
          killedAt = write;
          kill?.();
        }
      },
      // The write the process was killed at never reaches the store: it was still on its way.
      fault: (write) => (write === killedAt ? 'hold' : 'pass'),
    });
    env = { ...awsEnv(proxy.endpoint), LOYALTY_CONFIG: join(dir, 'config.json'), LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOYALTY_EXPORT_URL: `s3://${bucket}/${PREFIX}` };
    const first = await runCli(['export'], { env });
    expect(first.code, first.stderr).toBe(0);
    previousRunId = (await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest.json`)).runId;
  });
  afterAll(async () => {
    await proxy.close();
    client.destroy();
  });

  const isData = (write: WriteSeen): boolean => /\/dt=/.test(write.path);
  const dataWrites = (): number => proxy.writes.filter(isData).length;

  let left: Leftovers = { orphans: [], uploads: [] };

  it.each([
    ['after the first data file, during the second', 'orphans', () => { const start = dataWrites(); return (write: WriteSeen) => isData(write) && dataWrites() - start >= 2; }],
    ['in the middle of a multipart upload', 'uploads', () => { let parts = 0; return (write: WriteSeen) => /partNumber=/.test(write.path) && (parts += 1) === 2; }],
    ['as the run manifest goes up', 'orphans', () => (write: WriteSeen) => /manifests\/\d{8}T\d{6}Z-[0-9a-f]{4}\.json/.test(write.path)],
    ['after the run manifest, as latest.json goes up', null, () => (write: WriteSeen) => /manifests\/latest\.json/.test(write.path)],
  ] as const)('killed %s: latest.json stays on the previous complete run', async (_moment, leaves, predicate) => {
    const before = left;
    killWhen = predicate();
    const child = startCli(['export'], env);
    kill = () => child.child.kill('SIGKILL');
    const { signal } = await child.exited;
    expect(signal, child.stderr()).toBe('SIGKILL');
    const latest = await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest.json`);
    expect(latest.runId).toBe(previousRunId);
    // status tells the operator at once, before any later export settles the run.
    const status = await runCli(['status', '--json'], { env });
    expect(JSON.parse(status.stdout).lastPublication.status).toBe('interrupted');
    // This run began by removing what the previous killed run left; it left its own.
    left = await leftovers();
    for (const key of before.orphans) expect(left.orphans).not.toContain(key);
    for (const key of before.uploads) expect(left.uploads).not.toContain(key);
    if (leaves !== null) expect(left[leaves].length).toBeGreaterThan(0);
  });

  it('the next export completes and leaves no orphan object and no open multipart upload', async () => {
    const result = await runCli(['export'], { env });
    expect(result.code, result.stderr).toBe(0);
    const latest = await getJson<Manifest>(client, bucket, `${PREFIX}/manifests/latest.json`);
    expect(latest.runId).not.toBe(previousRunId);
    // Five stream tables and the ledger's three models, in CSV and Parquet.
    expect(latest.files).toHaveLength(16);
    const referenced = await referencedKeys();
    for (const file of latest.files) expect(referenced.has(`${PREFIX}/${file.path}`)).toBe(true);
    const orphans = (await listKeys(client, bucket, `${PREFIX}/`)).filter((key) => !key.includes('/manifests/') && !referenced.has(key));
    expect(orphans).toEqual([]);
    expect(await openUploads(client, bucket)).toEqual([]);

    const status = await runCli(['status', '--json'], { env });
    expect(JSON.parse(status.stdout).lastPublication).toMatchObject({ runId: latest.runId, target: `s3://${bucket}/${PREFIX}`, status: 'completed', files: 16 });
    const text = await runCli(['status'], { env });
    expect(text.stdout).toContain(`Last publication\ns3://${bucket}/${PREFIX} run ${latest.runId}: completed\n16 files`);
  });

  interface Leftovers {
    /** Data objects no manifest lists. */
    orphans: string[];
    /** Unfinished multipart uploads, as KEY#UPLOADID. */
    uploads: string[];
  }

  async function leftovers(): Promise<Leftovers> {
    const referenced = await referencedKeys();
    const keys = await listKeys(client, bucket, `${PREFIX}/`);
    return {
      orphans: keys.filter((key) => parseDataFilePath(key.slice(PREFIX.length + 1), EXPORT_TABLES) !== null && !referenced.has(key)),
      uploads: await openUploads(client, bucket),
    };
  }

  /** Every data key listed by a manifest in the bucket. */
  async function referencedKeys(): Promise<Set<string>> {
    const keys = await listKeys(client, bucket, `${PREFIX}/manifests/`);
    const referenced = new Set<string>();
    for (const key of keys.filter((name) => !name.endsWith('latest.json'))) {
      for (const file of (await getJson<Manifest>(client, bucket, key)).files) referenced.add(`${PREFIX}/${file.path}`);
    }
    return referenced;
  }
});
