import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketClient } from '../../src/bucket/client.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { LOG_FORMAT, type EntryKind, type LogEntry } from '../../src/state/leaseLog.js';
import { StateLog } from '../../src/state/stateLog.js';
import { bucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { recordingLogger } from '../helpers/sync.js';
import { startFaultProxy, type FaultProxy } from '../s3/faultProxy.js';
import { awsEnv, getBytes, listKeys } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

const LEASE_SECONDS = 30;

describe('the lease on the state, against lagging listings, pruned logs, wrong clocks and another program', () => {
  const store = useStateStore({ seed: 31, size: 'tiny' });
  let otherProgram: SimulatorHandle;
  /** The same store, with listings of the log that come back empty while `blankListings` is on. */
  let lagging: FaultProxy;
  let blankListings = false;

  beforeAll(async () => {
    otherProgram = await startSimulator({ seed: 31, size: 'tiny', programId: 9999 });
    lagging = await startFaultProxy(store.endpoint(), { emptyListing: (prefix) => blankListings && prefix.includes('/state/log/') });
  });
  afterAll(async () => {
    await otherProgram.close();
    await lagging.close();
  });

  const envFor = (prefix: string, settings: Record<string, string> = {}) =>
    store.freshRun(prefix, { LOYALTY_STATE__LEASE_SECONDS: String(LEASE_SECONDS), LOYALTY_API__REQUEST_TIMEOUT_MS: '10000', ...settings });
  const logKeys = async (prefix: string) => (await listKeys(store.client, store.bucket(), `${prefix}/state/log/`)).sort();
  /** Deletes every log entry but the newest, as a retention does once they are old enough. */
  const pruneAllButNewest = async (prefix: string) => {
    const keys = await logKeys(prefix);
    for (const Key of keys.slice(0, -1)) await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket(), Key }));
  };
  const logOf = (prefix: string) => {
    Object.assign(process.env, awsEnv(store.endpoint()));
    const client = createBucketClient({ endpoint: store.endpoint(), region: '', forcePathStyle: true, partSizeMiB: 5 });
    return new StateLog(bucketStateStore(client, { bucket: store.bucket(), prefix, url: `s3://${store.bucket()}/${prefix}` }, recordingLogger().logger, 5 * 1024 * 1024));
  };
  const entryBy = (holder: string, kind: EntryKind, leaseUntilMs: number): Omit<LogEntry, 'seq' | 'previous'> => ({
    format: LOG_FORMAT,
    kind,
    writeId: randomUUID(),
    holder: { id: holder, host: 'test', pid: 1, command: 'push' },
    leaseUntil: new Date(leaseUntilMs).toISOString(),
    writtenAt: new Date().toISOString(),
    manifest: null,
  });

  it('binds a state created without a program (by queue, which asks no whoami) to the first run that knows its program, and refuses another program after', async () => {
    const customer = (store.sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '5', '--reason', 'before any sync'], envFor('unbound'));
    expect(queued.code, queued.stderr).toBe(0);
    const record = JSON.parse((await getBytes(store.client, store.bucket(), 'unbound/state/state.json')).toString('utf8')) as { program: unknown };
    expect(record.program).toBeNull();

    const bound = await runCli(['sync'], { env: { ...envFor('unbound').env, LOG_LEVEL: 'info' } });
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.stderr).toMatch(/"msg":"bound the state at s3:\/\/\S+\/unbound, created without a program, to program 4242 \(account 1717\) of the API at http:\/\/127\.0\.0\.1:\d+"/);

    const seen = await startFaultProxy(store.endpoint());
    try {
      const refused = await runCli(['sync'], envFor('unbound', { ...awsEnv(seen.endpoint), LOYALTY_BASE_URL: otherProgram.url, LOYALTY_API_KEY: otherProgram.keys.full }));
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(/^loyalty-sync: The state at s3:\/\/\S+\/unbound mirrors program 4242 \(account 1717\) of the API at http:\/\/127\.0\.0\.1:\d+, but the API at http:\/\/127\.0\.0\.1:\d+ serves program 9999 /);
      expect(seen.writes).toEqual([]);
    } finally {
      await seen.close();
    }
  });

  it('announces a new state, and refuses a run against another program in one sentence, having read only the state record', async () => {
    const created = await runCli(['sync'], { env: { ...envFor('bound').env, LOG_LEVEL: 'info' } });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/"msg":"created a new state at s3:\/\/\S+\/bound, bound to program 4242 \(account 1717\) of the API at http:\/\/127\.0\.0\.1:\d+"/);
    const before = await listKeys(store.client, store.bucket(), 'bound/');

    const seen = await startFaultProxy(store.endpoint());
    try {
      const other = envFor('bound', { ...awsEnv(seen.endpoint), LOYALTY_BASE_URL: otherProgram.url, LOYALTY_API_KEY: otherProgram.keys.full });
      const refused = await runCli(['sync'], other);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toMatch(
        /^loyalty-sync: The state at s3:\/\/\S+\/bound mirrors program 4242 \(account 1717\) of the API at http:\/\/127\.0\.0\.1:\d+, but the API at http:\/\/127\.0\.0\.1:\d+ serves program 9999 \(account 1717\); this run writes nothing to it, so give this program a state\.url of its own\.$/,
      );
      expect(seen.writes).toEqual([]);
      expect(seen.reads).toEqual(['bound/state/state.json']);
    } finally {
      await seen.close();
    }
    expect(await listKeys(store.client, store.bucket(), 'bound/')).toEqual(before);
  });

  it('says, for status on a prefix where no state was ever saved, that there is none at that URL', async () => {
    const status = await runCli(['status'], envFor('never-saved'));
    expect(status.code).toBe(1);
    expect(status.stderr.trim()).toMatch(/^loyalty-sync: There is no state at s3:\/\/\S+\/never-saved: nothing was ever saved there \(state\.url\); the first sync, once or run there creates it\.$/);
  });

  it('never takes an empty listing for an empty log: a run whose listing lags neither starts the state over at entry 1 nor takes the lease', async () => {
    expect((await runCli(['sync'], envFor('blank'))).code).toBe(0);
    expect((await runCli(['sync'], envFor('blank'))).code).toBe(0);
    await pruneAllButNewest('blank');
    const entries = await logKeys('blank');
    expect(entries).toHaveLength(1);

    blankListings = true;
    try {
      const run = await runCli(['once'], envFor('blank', awsEnv(lagging.endpoint)));
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        /^loyalty-sync: The state at blank\/state\/state\.json in bucket "\S+" exists, but no entry of its log is listed under blank\/state\/log\/ nor found by number; the store's listing lags behind its writes \(or the state is being created right now\), so try again shortly\.$/,
      );
    } finally {
      blankListings = false;
    }
    expect(await logKeys('blank')).toEqual(entries);
    // Once the listing catches up, the next run goes on from the newest entry.
    expect((await runCli(['once'], envFor('blank'))).code).toBe(0);
  });

  it('lets no two writers hold the lease when a pruned log meets two runs held up past it (entry n exists again, written by the other)', async () => {
    const log = logOf('fork');
    const soon = Date.now() + LEASE_SECONDS * 1000;
    // One run writes entries 1 to 10 and releases; two others read entries 5 and 6 as the newest on the way, and are held up.
    let head: LogEntry | null = null;
    const read: LogEntry[] = [];
    for (let seq = 1; seq <= 10; seq += 1) {
      const written = await log.append(entryBy('steady', seq === 1 ? 'take' : seq === 10 ? 'release' : 'renew', seq === 10 ? Date.now() : soon), head);
      if (!written.written) throw new Error('the log should be this writer’s');
      head = written.entry;
      read.push(written.entry);
    }
    await pruneAllButNewest('fork');

    // The run held up since entry 5 writes entry 6 again: its entry 5 is gone, so it knows it was overtaken.
    const late = await log.append(entryBy('late', 'take', soon), read[4]);
    expect(late.written).toBe(false);
    // The run held up since entry 6 finds an entry 6 there, but not the one it read: overtaken too.
    const later = await log.append(entryBy('later', 'take', soon), read[5]);
    expect(later.written).toBe(false);
    // A run that reads the log now takes the lease after entry 10: the only holder.
    const now = await log.head(true);
    expect(now?.seq).toBe(10);
    const next = await log.append(entryBy('next', 'take', soon), now);
    expect(next.written).toBe(true);
  });

  it("judges the lease by the store's clock: with the store's Date 10 minutes behind, a second run skips a lease the local clock would call run out", async () => {
    store.storeClock().skewMs -= 10 * 60_000;
    const holder = startCli(['run'], envFor('behind').env);
    try {
      await holder.waitForLine((line) => line.msg === 'took the lease on the state');
      const second = await runCli(['once'], envFor('behind'));
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/^once: skipped: the state at s3:\/\/\S+\/behind is leased to run on /m);
    } finally {
      holder.child.kill('SIGTERM');
      await holder.exited;
      store.storeClock().skewMs += 10 * 60_000;
    }
  });

  it('takes no lease that only looks run out when the store sends no Date, and says why in one sentence', async () => {
    expect((await runCli(['sync'], envFor('clockless'))).code).toBe(0);
    // A holder that is gone left a lease that ran out a minute ago by this machine's clock.
    const log = logOf('clockless');
    const gone = await log.append(entryBy('gone', 'take', Date.now() - 60_000), await log.head(true));
    expect(gone.written).toBe(true);
    const before = await logKeys('clockless');

    store.storeClock().dropDate = true;
    try {
      const run = await runCli(['once'], envFor('clockless'));
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        /^loyalty-sync: The lease on the state at s3:\/\/\S+\/clockless of push on test \(pid 1\) looks run out \(until \S+\), but the store sends no Date header, so this run cannot tell and takes no lease; fix the clock, or wait for the holder to release it\.$/,
      );
    } finally {
      store.storeClock().dropDate = false;
    }
    expect(await logKeys('clockless')).toEqual(before);
  });
});
