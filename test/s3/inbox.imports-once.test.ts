import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBucketClient, type BucketClient } from '../../src/bucket/client.js';
import type { Logger } from '../../src/log.js';
import { listJobs } from '../../src/queue/listJobs.js';
import { retryJob } from '../../src/queue/retryJob.js';
import { importInbox, writeOutbox } from '../../src/state/inbox/index.js';
import { BucketObjects } from '../../src/bucket/objects.js';
import { StoreClock } from '../../src/bucket/storeClock.js';
import { BucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { FolderStateStore } from '../../src/state/store/folderStateStore.js';
import type { StateStore } from '../../src/state/store/stateStore.js';
import { tempDir } from '../helpers/tempDir.js';
import { mirrorCustomers, pushUntilSettled, queue, startHarness, usableCustomers, type Harness } from '../queue/helpers.js';
import { startFaultProxy, type FaultProxy } from './faultProxy.js';
import { getBytes, listKeys, newBucket, putText, storeClient, swift, useAwsEnv } from './helpers.js';

/** The inbox's store as a test sees it: the state's place, what an operator puts there and finds, and the writes and reads that reached it. */
interface InboxStore {
  /** The state's store at a new place of its own, as the state opens it. */
  open(prefix: string, logger: Logger): StateStore;
  put(path: string, text: string): Promise<void>;
  read(path: string): Promise<string>;
  keys(): Promise<string[]>;
  /** Writes that reached the store (or were refused) for one path under the place, so far. */
  writesTo(path: string): number;
  writesUnderPrefix(): number;
  /** Objects read whole (listings are not counted). */
  readsUnderPrefix(): number;
  /** Makes the store refuse writes to `path` (null: none), as a store or filesystem may. */
  refuseWritesTo(path: string | null): void;
  /** What a refused write's error says. */
  refusal: RegExp;
}

/**
 * The bucket: Swift on loopback, through a proxy that counts (and can refuse) each write. Every request
 * is seen on the wire.
 */
function bucketInbox(): InboxStore {
  const s3 = storeClient();
  let bucket: string;
  let proxy: FaultProxy;
  let client: BucketClient;
  let refused: string | null = null;
  let prefix = '';
  /** A write's key, without the query the SDK adds. */
  const keyOf = (path: string): string => path.split('?')[0];
  beforeAll(async () => {
    useAwsEnv();
    bucket = await newBucket(s3);
    proxy = await startFaultProxy(swift().endpoint, { fault: (write) => (refused !== null && keyOf(write.path) === `${prefix}/${refused}` ? 'deny' : 'pass') });
    client = createBucketClient({ endpoint: proxy.endpoint, region: 'us-east-1', forcePathStyle: true, partSizeMiB: 5 }, {});
  });
  afterAll(async () => {
    client.s3.destroy();
    await proxy.close();
  });
  return {
    open: (at, logger) => {
      prefix = at;
      // The inbox never judges a lease: the clock is not listened to.
      return new BucketStateStore(new BucketObjects(client, { bucket, prefix, url: `s3://${bucket}/${prefix}` }, logger), new StoreClock(), 5 * 1024 * 1024);
    },
    put: (path, text) => putText(s3, bucket, `${prefix}/${path}`, text),
    read: async (path) => (await getBytes(s3, bucket, `${prefix}/${path}`)).toString('utf8'),
    keys: async () => (await listKeys(s3, bucket, `${prefix}/`)).map((key) => key.slice(prefix.length + 1)),
    writesTo: (path) => proxy.writes.filter((write) => keyOf(write.path) === `${prefix}/${path}`).length,
    writesUnderPrefix: () => proxy.writes.filter((write) => write.path.startsWith(`${prefix}/`)).length,
    readsUnderPrefix: () => proxy.reads.filter((key) => key.startsWith(`${prefix}/`)).length,
    refuseWritesTo: (path) => (refused = path),
    refusal: /PutObject/,
  };
}

/** The folder store, counting the operations the inbox asks of it; each one reaches the real filesystem. */
class CountedFolder extends FolderStateStore {
  readonly writes: string[] = [];
  readonly reads: string[] = [];

  override putBytes(path: string, body: Buffer): Promise<void> {
    this.writes.push(path);
    return super.putBytes(path, body);
  }

  override delete(paths: readonly string[]): Promise<void> {
    this.writes.push(...paths);
    return super.delete(paths);
  }

  override readBytes(path: string): Promise<Buffer | null> {
    this.reads.push(path);
    return super.readBytes(path);
  }
}

/**
 * A folder (state.url=file://): an operator's files are plain files. A write is refused by a folder
 * standing where the file should go, which no rename can replace.
 */
function folderInbox(): InboxStore {
  let root = '';
  let folder: CountedFolder;
  let refused: string | null = null;
  const file = (path: string) => join(root, ...path.split('/'));
  return {
    open: (prefix) => {
      root = join(tempDir('loyalty-inbox-'), prefix);
      folder = new CountedFolder(root, pathToFileURL(root).href);
      return folder;
    },
    put: async (path, text) => {
      mkdirSync(dirname(file(path)), { recursive: true });
      writeFileSync(file(path), text);
    },
    read: async (path) => readFileSync(file(path), 'utf8'),
    keys: async () => (readdirSync(root, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>)
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
      .sort(),
    writesTo: (path) => folder.writes.filter((written) => written === path).length,
    writesUnderPrefix: () => folder.writes.length,
    readsUnderPrefix: () => folder.reads.length,
    refuseWritesTo: (path) => {
      if (refused !== null) rmdirSync(file(refused));
      refused = path;
      if (path !== null) mkdirSync(file(path), { recursive: true });
    },
    refusal: /Could not write .*outbox\/add_points\/spend\.results\.csv of the state in folder .*: EISDIR/,
  };
}

/**
 * The write inbox against each kind of state.url: a bucket on an S3 server on loopback, and a folder;
 * the simulator over loopback records every write it applied in its ledger.
 */
describe.each([
  ['in a bucket', bucketInbox],
  ['in a folder', folderInbox],
] as const)('the write inbox %s: files under inbox/KIND/ are queued once, and their outcome lands in outbox/KIND/', (_where, makeStore) => {
  const store = makeStore();
  let h: Harness;
  let objects: StateStore;
  let test = 0;

  beforeEach(async () => {
    h = await startHarness();
    objects = store.open(`state-${++test}`, h.logger);
    store.refuseWritesTo(null);
  });
  afterEach(() => h.close());

  const { put, read, keys, writesTo, writesUnderPrefix, readsUnderPrefix } = store;

  it('pushes each row of a file once, then writes its results with every job id and state; the same bytes again, under any name, queue nothing', async () => {
    const customers = usableCustomers(h.sim).slice(0, 3);
    mirrorCustomers(h.db, customers);
    const reasons = ['inbox grant, first', 'inbox grant "second"', 'inbox grant third'];
    const rows = customers.map((customer, i) => [customer.merchant_id, String(10 + i), reasons[i]]);
    const text = ['customer_merchant_id,points,reason', `${rows[0][0]},${rows[0][1]},"inbox grant, first"`, `${rows[1][0]},${rows[1][1]},"inbox grant ""second"""`, `${rows[2].join(',')}`, ''].join('\n');
    await put('inbox/add_points/june.csv', text);

    expect(await importInbox(h.db, objects, h.logger, h.now())).toEqual({ imported: ['inbox/add_points/june.csv'], queued: 3, refused: [], repeated: [], ignored: [] });
    expect(await importInbox(h.db, objects, h.logger, h.now())).toEqual({ imported: [], queued: 0, refused: [], repeated: [], ignored: [] });
    await put('inbox/add_points/june-again.csv', text);
    expect(await importInbox(h.db, objects, h.logger, h.now())).toEqual({ imported: [], queued: 0, refused: [], repeated: ['inbox/add_points/june-again.csv'], ignored: [] });
    expect(listJobs(h.db)).toHaveLength(3);

    // Nothing is written while a row's write is still queued.
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 2 });
    await pushUntilSettled(h);
    const ledger = h.sim.ledger().filter((entry) => entry.kind === 'add_points');
    for (const reason of reasons) expect(ledger.filter((entry) => (entry.body as { reason?: unknown }).reason === reason), reason).toHaveLength(1);

    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: ['outbox/add_points/june.results.csv', 'outbox/add_points/june-again.results.csv'], waiting: 0 });
    const jobIds = listJobs(h.db).map((job) => String(job.id)).sort((a, b) => Number(a) - Number(b));
    const expected = [['customer_merchant_id', 'points', 'reason', 'job_id', 'state', 'message'], ...rows.map((row, i) => [...row, jobIds[i], 'succeeded', ''])];
    expect(parse(await read('outbox/add_points/june.results.csv'))).toEqual(expected);
    // The same jobs, each row saying that this name only repeated june.csv's bytes.
    const duplicated = expected.map((row, i) => (i === 0 ? row : [...row.slice(0, -1), 'duplicated inbox/add_points/june.csv, queued nothing']));
    expect(parse(await read('outbox/add_points/june-again.results.csv'))).toEqual(duplicated);

    // A run with nothing new lists the inbox, reads no file of it again, and writes nothing at all.
    const [writesBefore, readsBefore] = [writesUnderPrefix(), readsUnderPrefix()];
    expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0, repeated: [] });
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 0 });
    expect([writesUnderPrefix(), readsUnderPrefix()]).toEqual([writesBefore, readsBefore]);
  });

  it('refuses a bad file whole with its errors beside it, never retries the same bytes, and imports them once replaced with good ones', async () => {
    const [customer] = usableCustomers(h.sim);
    const bad = ['customer_merchant_id,points,reason', `${customer.merchant_id},5,ok row`, `${customer.merchant_id},ten,bad row`, ''].join('\n');
    await put('inbox/add_points/bad.csv', bad);
    await put('inbox/addpoints/typo.csv', 'customer_merchant_id,points,reason\n');
    await put('inbox/add_points/notes.txt', 'not a CSV file');

    expect(await importInbox(h.db, objects, h.logger, h.now())).toEqual({
      imported: [],
      queued: 0,
      refused: ['inbox/add_points/bad.csv', 'inbox/addpoints/typo.csv'],
      repeated: [],
      ignored: ['inbox/add_points/notes.txt'],
    });
    expect(listJobs(h.db)).toEqual([]);
    expect(await read('inbox/add_points/bad.errors.txt')).toBe('line 3: points: "ten" is not valid; expected a non-zero whole number\n');
    expect(await read('inbox/addpoints/typo.errors.txt')).toBe(
      'folder: "addpoints" is not a kind of write; expected inbox/KIND/typo.csv with KIND one of add_points, update_review, delete_review, create_order, claim_reward\n',
    );

    // The same bytes, even put again, are not tried again, and their errors are not written again.
    await put('inbox/add_points/bad.csv', bad);
    const writesBefore = writesUnderPrefix();
    expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: [], queued: 0, refused: [] });
    expect(writesUnderPrefix()).toBe(writesBefore);

    await put('inbox/add_points/bad.csv', bad.replace(',ten,', ',10,'));
    expect(await importInbox(h.db, objects, h.logger, h.now())).toMatchObject({ imported: ['inbox/add_points/bad.csv'], queued: 2, refused: [] });
    expect(listJobs(h.db).map((job) => job.payload.reason)).toEqual(['ok row', 'bad row']);
    // The errors of the bytes it no longer holds are gone.
    expect(await keys()).toEqual(['inbox/add_points/bad.csv', 'inbox/add_points/notes.txt', 'inbox/add_points/notes.txt.errors.txt', 'inbox/addpoints/typo.csv', 'inbox/addpoints/typo.errors.txt']);
  });

  it("rewrites a results file when a job's outcome changes (a dead write retried), only then, and retries a write the store refused", async () => {
    const [poor, other] = usableCustomers(h.sim);
    mirrorCustomers(h.db, [poor, other]);
    const tooMany = poor.points_approved + 1000;
    await put('inbox/add_points/spend.csv', ['customer_merchant_id,points,reason', `${poor.merchant_id},-${tooMany},spend`, `${other.merchant_id},3,bonus`, ''].join('\n'));
    await importInbox(h.db, objects, h.logger, h.now());
    await pushUntilSettled(h);
    const results = 'outbox/add_points/spend.results.csv';

    store.refuseWritesTo(results);
    await expect(writeOutbox(h.db, objects, h.logger)).rejects.toThrow(store.refusal);
    store.refuseWritesTo(null);
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [results], waiting: 0 });
    const [spend, bonus] = listJobs(h.db);
    const dead = parse(await read(results)) as string[][];
    expect(dead.slice(1).map((row) => row.slice(3))).toEqual([
      [String(spend.id), 'dead', spend.lastError],
      [String(bonus.id), 'succeeded', ''],
    ]);
    expect(dead[1][5]).toMatch(/cannot remove/);
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 0 });
    expect(writesTo(results)).toBe(2);

    // The customer gets the points, then the dead write is retried (`queue retry`): its row now says succeeded.
    queue(h, 'add_points', { customer_merchant_id: poor.merchant_id, points: String(tooMany), reason: 'top up' });
    await pushUntilSettled(h);
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 0 });
    retryJob(h.db, spend.id, h.now());
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 1 });
    await pushUntilSettled(h);
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [results], waiting: 0 });
    expect((parse(await read(results)) as string[][]).slice(1).map((row) => row.slice(3))).toEqual([
      [String(spend.id), 'succeeded', ''],
      [String(bonus.id), 'succeeded', ''],
    ]);
    expect(await writeOutbox(h.db, objects, h.logger)).toEqual({ written: [], waiting: 0 });
    expect(writesTo(results)).toBe(3);
  });
});
