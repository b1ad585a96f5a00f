import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { beginStateSession } from '../../src/state/session.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { mirrorDiffAll, recordingLogger } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';
import { startConditionalPutProxy } from '../s3/conditionalPutProxy.js';
import { startFaultProxy, type FaultProxy } from '../s3/faultProxy.js';
import { awsEnv, listKeys, newBucket, storeClient, swift } from '../s3/helpers.js';

describe('the state on a store that misbehaves', () => {
  const client = storeClient();
  let sim: SimulatorHandle;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29, size: 'tiny' });
  });
  afterAll(async () => {
    await sim.close();
    for (const close of closers) await close();
    client.destroy();
  });

  const runIn = (endpoint: string, bucket: string, args: string[]) => {
    const dir = tempDir();
    const env = {
      ...awsEnv(endpoint),
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: join(dir, 'mirror.db'),
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
      LOYALTY_STATE_URL: `s3://${bucket}/state-here`,
    };
    return { dir, result: runCli(args, { env }) };
  };

  it('refuses a store that accepts create-only writes but ignores them, in one sentence, writing nothing but the probe', async () => {
    const bucket = await newBucket(client);
    const ignoring = await startConditionalPutProxy(swift().endpoint, client, { ignoreConditions: true });
    const seen: FaultProxy = await startFaultProxy(ignoring.endpoint);
    closers.push(ignoring.close, seen.close);

    const { result } = runIn(seen.endpoint, bucket, ['sync']);
    const { code, stderr } = await result;
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(
      /^loyalty-sync: The object store at http:\/\/127\.0\.0\.1:\d+ accepts create-only writes \(If-None-Match: \*\) but ignores them, so a lease on s3:\/\/\S+\/state-here could not keep two runs apart; state\.url needs AWS S3, GCS, R2, MinIO, Ceph, or Swift 2\.36 or newer\.$/,
    );
    const written = new Set(seen.writes.filter((write) => write.method === 'PUT').map((write) => write.path.split('?')[0]));
    expect([...written]).toEqual(['state-here/.loyalty-sync-create-only-probe']);
    expect((await listKeys(client, bucket)).filter((key) => key !== 'state-here/.loyalty-sync-create-only-probe')).toEqual([]);
    // Nothing was synced either: the refusal comes before the API is asked anything.
    expect(sim.ledger()).toHaveLength(0);
  });

  it('keeps its lease when a renewal was applied but went unanswered and its retry refused: the next renewal finds its own entry and goes on after it', async () => {
    const bucket = await newBucket(client);
    const enforcing = await startConditionalPutProxy(swift().endpoint, client);
    let armed = false;
    let lostKey: string | null = null;
    const faulty = await startFaultProxy(enforcing.endpoint, {
      fault: (write) => {
        const key = write.path.split('?')[0];
        if (armed && write.method === 'PUT' && key.includes('/state/log/')) {
          armed = false;
          lostKey = key;
          return 'drop-after-apply';
        }
        if (key === lostKey) {
          lostKey = null;
          return 'deny';
        }
        return 'pass';
      },
    });
    closers.push(enforcing.close, faulty.close);
    Object.assign(process.env, awsEnv(faulty.endpoint));
    const dir = tempDir();
    const config = loadConfig({ env: { LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_STATE_URL: `s3://${bucket}/renewals`, LOYALTY_STATE__LEASE_SECONDS: '30', LOYALTY_API__REQUEST_TIMEOUT_MS: '10000' } });
    const { logger, records } = recordingLogger();
    const begun = await beginStateSession({ config, logger, command: 'push', mode: 'wait' });
    if (!('session' in begun)) throw new Error('the lease should be free');
    const session = begun.session;

    // Renewals come every 10 s: the first is applied and unanswered, its retry refused; the next ones must go on.
    armed = true;
    await sleep(21_000);
    expect(faulty.drops).toBe(1);
    expect(records.some((record) => record.msg === 'could not renew the lease on the state; trying again')).toBe(true);
    expect(session.lostSignal.aborted, String(session.lostSignal.reason)).toBe(false);
    await session.end();
  });

  it('saves and restores through SlowDown answers and writes applied whose answers were lost', async () => {
    const bucket = await newBucket(client);
    const enforcing = await startConditionalPutProxy(swift().endpoint, client);
    let writes = 0;
    // Every third write is answered 503 SlowDown, every fifth is applied and its answer dropped.
    const faulty = await startFaultProxy(enforcing.endpoint, { fault: () => (++writes % 5 === 0 ? 'drop-after-apply' : writes % 3 === 0 ? 'slowdown' : 'pass') });
    closers.push(enforcing.close, faulty.close);

    const first = await runIn(faulty.endpoint, bucket, ['sync']).result;
    expect(first.code, first.stderr).toBe(0);
    const customer = (sim.truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const queued = await runIn(faulty.endpoint, bucket, ['queue', 'add-points', '--customer', customer.merchant_id, '--points', '7', '--reason', 'faulty store']).result;
    expect(queued.code, queued.stderr).toBe(0);
    const once = await runIn(faulty.endpoint, bucket, ['once']).result;
    expect(once.code, once.stderr).toBe(0);
    const last = runIn(faulty.endpoint, bucket, ['sync']);
    expect((await last.result).code).toBe(0);

    expect(faulty.drops).toBeGreaterThan(0);
    expect(faulty.slowdowns).toBeGreaterThan(0);
    // The dropped answers included log entries: the writer recognised its own entry and went on.
    expect(faulty.writes.some((write, index) => (index + 1) % 5 === 0 && write.path.includes('/state/log/'))).toBe(true);
    expect(sim.ledger().filter((entry) => entry.kind === 'add_points' && entry.target === customer.merchant_id)).toHaveLength(1);
    const db = openDatabase(join(last.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim)).toEqual([]);
      expect(db.prepare('SELECT state FROM write_jobs').all()).toEqual([{ state: 'succeeded' }]);
    } finally {
      db.close();
    }
  });
  it('appends through 409 ConditionalRequestConflict answers to its log entries, as S3 gives while another create of the key is in flight', async () => {
    const bucket = await newBucket(client);
    let conflicts = 0;
    // The first two tries of every log entry are answered 409 without being applied.
    const tries = new Map<string, number>();
    const conflicting = await startConditionalPutProxy(swift().endpoint, client, {
      conflict: (key) => {
        if (!key.includes('/state/log/')) return false;
        const seen = (tries.get(key) ?? 0) + 1;
        tries.set(key, seen);
        if (seen > 2) return false;
        conflicts += 1;
        return true;
      },
    });
    closers.push(conflicting.close);
    const first = runIn(conflicting.endpoint, bucket, ['sync']);
    expect((await first.result).code).toBe(0);
    const second = runIn(conflicting.endpoint, bucket, ['sync']);
    const result = await second.result;
    expect(result.code, result.stderr).toBe(0);

    expect(conflicts).toBeGreaterThan(0);
    // Each entry was created once, in order, after its conflicts: the second run restored the first's state.
    const created = conflicting.answers.filter((answer) => answer.key.includes('/state/log/') && answer.status === 200).map((answer) => answer.key);
    expect(new Set(created).size).toBe(created.length);
    expect(created).toEqual([...created].sort());
    const db = openDatabase(join(second.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
