// What the state in the bucket (state.url) costs, on the 1,000,000-row transactions mirror, against a loopback
// OpenStack Swift given create-only writes by the tests' proxy (test/s3/conditionalPutProxy.ts), behind a proxy
// of its own that counts every request and every byte of request body a run sends:
//   1. the first save (a base), next to uploading the mirror file whole, which is what a design that ships the
//      file would pay on every run;
//   2. a run with nothing new: a session begun on the local mirror and ended (target: at most 1 MiB written);
//      then a sync run that found nothing, which still records its run and checkpoint rows;
//   3. a typical day (DAY below) saved by one run (target: at most 5% of the mirror file), then another day as
//      96 runs a quarter of an hour apart, each saving 1/96 of it, merges of segments included;
//   4. a restore into an empty folder, in a process of its own: seconds and peak memory (target: 2 minutes for
//      1M rows), extrapolated linearly to 10M; then the next run on the restored mirror, as a job without a
//      volume runs, and what it writes;
//   5. what the change-tracking triggers cost a sync: 100,000 rows upserted, then updated, with and without them.
// Each measured step runs in a child process (the store's proxies stay in this one). It takes a minute and a
// half, so it runs only when named: BENCH=state npm run bench. Needs scripts/install-swift.sh run once.
// STATE_ROWS=10000000 measures another size instead (the mirror is then built in .bench-data/state, ~590 bytes a
// row, and rebuilt on every run, since the run changes it).
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { startSwift } from '../scripts/swift-server.mjs';
import { measureInChild } from './childMeasure.mjs';
import { buildMirror, transactionRecord } from './transactionsMirror.mjs';

const BENCH_ROWS = 1_000_000;
const ROWS = Number(process.env.STATE_ROWS ?? BENCH_ROWS);
/** The export and publish benchmarks' mirror, copied, at the bench size. */
const SOURCE = resolve('.bench-data/export/tx-1m.db');
const ROOT = resolve('.bench-data/state');
const MIRROR = join(ROOT, 'mirror.db');
const BUCKET = 'bench-state';
const STATE_URL = `s3://${BUCKET}/program`;
const SELF = fileURLToPath(import.meta.url);
const MIB = 1024 * 1024;
const RUNS_PER_DAY = 96;
const TRIGGER_ROWS = 100_000;
const TRIGGER_ROUNDS = 3;
/** A sync writes a page of records per transaction. */
const PAGE = 500;
const STREAMS = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'];

/**
 * A typical day of a program of ROWS transactions, as the mirror sees it: 1% of the transactions new, 0.5% updated
 * in place (pending activities approved, scattered at random over transactions at least 30 days old, as
 * approvals after a return window are), the bookkeeping of 96 sync runs (a run and a checkpoint row per
 * stream each), and 192 queued writes pushed.
 */
const DAY = { newTransactions: ROWS / 100, approvals: ROWS / 200, syncRuns: RUNS_PER_DAY, writes: 2 * RUNS_PER_DAY };

async function main() {
  mkdirSync(ROOT, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${MIRROR}${suffix}`, { force: true });
  if (ROWS === BENCH_ROWS) {
    await buildMirror(SOURCE, ROWS);
    // A copy, since the day's changes and the triggers alter it; the export and publish benchmarks keep theirs.
    copyFileSync(SOURCE, MIRROR);
  } else {
    await buildMirror(MIRROR, ROWS);
  }
  const swift = await startSwift();
  const { startConditionalPutProxy } = await import('../test/s3/conditionalPutProxy.ts');
  const store = new S3Client({
    endpoint: swift.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
  const conditional = await startConditionalPutProxy(swift.endpoint, store);
  const counter = await startCountingProxy(conditional.endpoint);
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: swift.accessKeyId,
    AWS_SECRET_ACCESS_KEY: swift.secretAccessKey,
    AWS_ENDPOINT_URL_S3: counter.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  });
  const { BASE_REWRITE_SHARE } = await import('../dist/state/planSave.js');
  const fresh = mkdtempSync(join(ROOT, 'restore-'));
  try {
    await store.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const step = async (name, ...args) => {
      const before = { ...counter.counts };
      const result = await measureInChild(SELF, [name, ...args]);
      const sent = { bytes: counter.counts.bodyBytes - before.bodyBytes, writes: counter.counts.writes - before.writes, reads: counter.counts.reads - before.reads };
      return { ...result, sent };
    };

    const base = await step('base');
    const mirrorBytes = base.mirrorBytes;
    console.log(`mirror file: ${mb(mirrorBytes)} (${ROWS.toLocaleString('en-US')} transactions, ${(mirrorBytes / ROWS).toFixed(0)} bytes a row)`);
    console.log(`1. first save (a base): ${mb(base.sent.bytes)} written in ${base.sent.writes} requests (${percent(base.sent.bytes / mirrorBytes)} of the mirror file), ${secs(base.seconds)} (the dump and its upload: ${secs(base.save.seconds)}), peak ${base.maxRssMb.toFixed(0)} MB`);
    const whole = await step('whole');
    console.log(`   (a) the mirror file uploaded whole instead, as every run would under that design: ${mb(whole.sent.bytes)} in ${secs(whole.seconds)}; a base on every run: ${mb(base.save.bytes)} in ${secs(base.save.seconds)}`);

    const idle = await step('idle');
    console.log(`2. a run with nothing new: ${kb(idle.sent.bytes)} written in ${idle.sent.writes} writes (and ${idle.sent.reads} reads), ${secs(idle.seconds)}; saved: ${idle.save.kind} (target <= 1 MiB: ${verdict(idle.sent.bytes <= MIB)})`);
    const idleSync = await step('idle-sync');
    console.log(`   a sync run that found nothing (its ${STREAMS.length} run rows and checkpoints): ${kb(idleSync.sent.bytes)} written in ${idleSync.sent.writes} writes, ${secs(idleSync.seconds)}; saved: ${idleSync.save.kind} of ${kb(idleSync.save.bytes)} (target <= 1 MiB: ${verdict(idleSync.sent.bytes <= MIB)})`);

    const day = await step('day', '1');
    console.log(`3. a typical day (${describeDay()}), saved by one run: ${mb(day.sent.bytes)} written in ${day.sent.writes} writes, ${percent(day.sent.bytes / day.mirrorBytes)} of the ${mb(day.mirrorBytes)} mirror file (target <= 5%: ${verdict(day.sent.bytes <= 0.05 * day.mirrorBytes)}); the save took ${secs(day.save.seconds)}, applying the day ${secs(day.applySeconds)}`);
    const runs = await step('day96', '2');
    const merges = runs.saves.filter((save) => save.level > 0);
    const largest = runs.saves.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    console.log(`   the next day as ${RUNS_PER_DAY} runs, each saving 1/${RUNS_PER_DAY} of it: ${mb(runs.sent.bytes)} written in all (${percent(runs.sent.bytes / runs.mirrorBytes)} of the mirror file; ${kb(runs.sent.bytes / RUNS_PER_DAY)} a run on average), ${runs.sent.writes} writes, saves ${secs(runs.saveSeconds)} in all`);
    console.log(`     of which ${merges.length} saves were merges (${merges.map((save) => `level ${save.level}: ${kb(save.bytes)}`).join(', ') || 'none'}); largest save ${kb(largest.bytes)}; a new base ${runs.bases > 0 ? `was written ${runs.bases} time(s)` : 'was not needed'}`);
    // Two days of changes are in the segments now (the day saved at once, and the day of runs).
    const daysToRewrite = (BASE_REWRITE_SHARE * runs.manifest.baseBytes) / (runs.manifest.segmentBytes / 2);
    const amortised = runs.sent.bytes + runs.manifest.baseBytes / daysToRewrite;
    console.log(`     the state now: a base of ${mb(runs.manifest.baseBytes)} and ${runs.manifest.segments} segments of ${mb(runs.manifest.segmentBytes)} in all; at this rate the segments outgrow ${BASE_REWRITE_SHARE} of the base after about ${daysToRewrite.toFixed(0)} days and a new base is written`);
    console.log(`     a day of ${RUNS_PER_DAY} runs with that base rewrite spread over its days: ${mb(amortised)} a day (${percent(amortised / runs.mirrorBytes)} of the mirror file)`);

    const restore = await step('restore', join(fresh, 'mirror.db'));
    const same = sameMirror(MIRROR, join(fresh, 'mirror.db'));
    console.log(`4. restore into an empty folder (a base and ${restore.report.dumps - 1} segments, ${mb(restore.report.bytes)} fetched, ${restore.report.rows.toLocaleString('en-US')} rows): ${secs(restore.report.seconds)} (with the lease and probe: ${secs(restore.seconds)}), peak ${restore.maxRssMb.toFixed(0)} MB (target <= 120 s for 1M rows: ${ROWS === BENCH_ROWS ? verdict(restore.report.seconds <= 120) : 'measured at another size'}); restored mirror equals the saved one: ${same}`);
    const next = await step('after-restore', join(fresh, 'mirror.db'));
    console.log(`   the next run on the restored mirror (1/${RUNS_PER_DAY} of a day): ${kb(next.sent.bytes)} written in ${next.sent.writes} writes, a ${next.saves[0].kind} (level ${next.saves[0].level}) of ${kb(next.saves[0].bytes)}: a restore does not make the next save ship the mirror again`);
    const toTenMillion = 10_000_000 / ROWS;
    if (toTenMillion > 1) {
      console.log(`   at 10M transactions, linearly (rows parsed and inserted; index builds grow a little faster): about ${secs(restore.report.seconds * toTenMillion)} and ${mb(restore.report.bytes * toTenMillion)} fetched; memory does not grow with rows (5,000-row transactions, a streamed dump)`);
      console.log(`   a base at 10M, linearly: about ${mb(base.save.bytes * toTenMillion)} and ${secs(base.save.seconds * toTenMillion)}`);
    }

    const triggers = await step('triggers');
    console.log(`5. change tracking on a sync's writes (${TRIGGER_ROWS.toLocaleString('en-US')} rows, pages of ${PAGE}, best of ${TRIGGER_ROUNDS}): inserts ${secs(triggers.insert.plain)} without, ${secs(triggers.insert.tracked)} with (x${(triggers.insert.tracked / triggers.insert.plain).toFixed(2)}); updates ${secs(triggers.update.plain)} without, ${secs(triggers.update.tracked)} with (x${(triggers.update.tracked / triggers.update.plain).toFixed(2)})`);
  } finally {
    await counter.close();
    await conditional.close();
    store.destroy();
    swift.stop();
    rmSync(fresh, { recursive: true, force: true });
  }
}

/** The measured steps, each run in a child process: `node state.bench.mjs --measure STEP ...args`. */
const STEPS = {
  /** The first save: a session on the mirror with no state in the bucket yet writes a base. */
  async base() {
    const started = performance.now();
    const session = await beginSession(MIRROR);
    const save = await session.end();
    return { seconds: elapsed(started), save, mirrorBytes: statSync(MIRROR).size };
  },

  /** The mirror file in one upload, in parts, as a design that ships the file whole would do on every run. */
  async whole() {
    const { loadConfig } = await import('../dist/config.js');
    const { createBucketClient } = await import('../dist/bucket/client.js');
    const { BucketObjects } = await import('../dist/bucket/objects.js');
    const { parseBucketPlace } = await import('../dist/bucket/place.js');
    const { StreamingUpload } = await import('../dist/bucket/streamingUpload.js');
    const config = loadConfig({ env: {} });
    const objects = new BucketObjects(createBucketClient(config.export.s3), parseBucketPlace(`s3://${BUCKET}/whole-mirror`, 'bench'), await logger());
    const started = performance.now();
    const upload = new StreamingUpload(objects, 'mirror.db', 'db', config.export.s3.partSizeMiB * MIB);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(MIRROR, { highWaterMark: MIB })) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      await upload.write(chunk);
    }
    await upload.finish({ bytes, sha256: hash.digest('hex') });
    const seconds = elapsed(started);
    await objects.delete(['mirror.db']);
    return { seconds };
  },

  /** A run with nothing new: begun on the local mirror, which is the state's newest, and ended. */
  async idle() {
    const started = performance.now();
    const session = await beginSession(MIRROR);
    const save = await session.end();
    return { seconds: elapsed(started), save };
  },

  /** A sync run that found nothing new still records its run and checkpoint per stream. */
  async 'idle-sync'() {
    const started = performance.now();
    const session = await beginSession(MIRROR);
    const db = await openMirror(MIRROR);
    await recordSyncRuns(db, 1, new Date());
    db.close();
    const save = await session.end();
    return { seconds: elapsed(started), save };
  },

  /**
   * Day `dayNumber` of DAY's changes cut in `parts`, of which `runs` (all, by default) are applied to the
   * mirror at `dbPath`, each by a session that applies its part and saves it.
   */
  async day(dayNumber, parts = '1', runs = parts, dbPath = MIRROR) {
    const count = Number(parts);
    const { applyDayPart } = await dayWriters(Number(dayNumber));
    let applySeconds = 0;
    let saveSeconds = 0;
    const saves = [];
    let bases = 0;
    let head = null;
    for (let part = 0; part < Number(runs); part += 1) {
      const session = await beginSession(dbPath);
      // Opened after the session began: the change-tracking triggers are in place.
      const db = await openMirror(dbPath);
      const applied = performance.now();
      await applyDayPart(db, part, count);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      applySeconds += elapsed(applied);
      const saved = performance.now();
      const save = await session.end();
      saveSeconds += elapsed(saved);
      head = session.newest?.manifest ?? null;
      const last = head?.segments.at(-1);
      if (save.kind === 'base') bases += 1;
      saves.push({ kind: save.kind, bytes: save.bytes, level: save.kind === 'segment' ? last.level : 0 });
    }
    const manifest = { baseBytes: head.base.bytes, segments: head.segments.length, segmentBytes: head.segments.reduce((sum, segment) => sum + segment.bytes, 0) };
    return { applySeconds, saveSeconds, save: { seconds: saveSeconds, kind: saves[0].kind }, saves, bases, manifest, mirrorBytes: statSync(dbPath).size };
  },

  async day96(dayNumber) {
    return STEPS.day(dayNumber, String(RUNS_PER_DAY));
  },

  /** The next run of a job without a volume, on the mirror a restore just made: a quarter-hour's share of a day. */
  async 'after-restore'(dbPath) {
    return STEPS.day('3', String(RUNS_PER_DAY), '1', dbPath);
  },

  /** A run in an empty folder: the session restores the mirror from the base and its segments. */
  async restore(dbPath) {
    let report = null;
    const started = performance.now();
    const session = await beginSession(dbPath, { restored: (restored) => (report = restored), saved: () => undefined, leaseSkipped: () => undefined });
    const seconds = elapsed(started);
    await session.end();
    return { seconds, report };
  },

  /** The sync's upserts of TRIGGER_ROWS new rows, then of the same rows changed, with and without the triggers. */
  async triggers() {
    const { openDatabase } = await import('../dist/db/open.js');
    const { STREAMS: DEFINITIONS } = await import('../dist/streams/index.js');
    const { createUpserter, nextChangeSeq } = await import('../dist/db/upsertRecords.js');
    const { installChangeTracking } = await import('../dist/state/changeTracking.js');
    const dir = mkdtempSync(join(ROOT, 'triggers-'));
    const timings = { insert: { plain: Infinity, tracked: Infinity }, update: { plain: Infinity, tracked: Infinity } };
    const created = new Date(Date.UTC(2026, 0, 1)).toISOString();
    const inserted = Array.from({ length: TRIGGER_ROWS }, (_, index) => transactionRecord(index + 1, created));
    const updated = inserted.map((record) => ({ ...record, points_pending: record.points_pending + 1 }));
    try {
      for (let round = 0; round < TRIGGER_ROUNDS; round += 1) {
        for (const mode of ['plain', 'tracked']) {
          const path = join(dir, `${mode}-${round}.db`);
          const db = openDatabase(path);
          if (mode === 'tracked') installChangeTracking(db);
          const write = createUpserter(db, DEFINITIONS.transactions);
          const upsertAll = (records) => {
            const started = performance.now();
            for (let offset = 0; offset < records.length; offset += PAGE) db.transaction(() => write(records.slice(offset, offset + PAGE), nextChangeSeq(db), created))();
            return performance.now() - started;
          };
          timings.insert[mode] = Math.min(timings.insert[mode], upsertAll(inserted) / 1000);
          timings.update[mode] = Math.min(timings.update[mode], upsertAll(updated) / 1000);
          db.close();
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return timings;
  },
};

async function logger() {
  const { createLogger } = await import('../dist/log.js');
  return createLogger({ level: 'warn' });
}

/** A session on the state at STATE_URL for the mirror at `dbPath`, as a command with `state.url` set begins one. */
async function beginSession(dbPath, facts) {
  const { loadConfig } = await import('../dist/config.js');
  const { beginStateSession } = await import('../dist/state/session.js');
  const config = loadConfig({ env: { LOYALTY_DB: dbPath, LOYALTY_STATE_URL: STATE_URL } });
  const begun = await beginStateSession({ config, logger: await logger(), command: 'bench', mode: 'wait' }, facts);
  return begun.session;
}

async function openMirror(path) {
  const { openDatabase } = await import('../dist/db/open.js');
  return openDatabase(path, { mustExist: true });
}

/** `runs` sync runs' bookkeeping, as the sync writes it: per stream, a run row opened and closed, and its checkpoint completed. */
async function recordSyncRuns(db, runs, at) {
  const { createRunLog } = await import('../dist/sync/runs.js');
  const { createCheckpointStore } = await import('../dist/sync/checkpoint.js');
  const runLog = createRunLog(db);
  const checkpoints = createCheckpointStore(db);
  for (let run = 0; run < runs; run += 1) {
    const when = new Date(at.getTime() + run * 1000).toISOString();
    for (const stream of STREAMS) {
      const id = runLog.start(`bench-${when}`, stream, when);
      checkpoints.complete(stream, { watermark: when, refreshed: false, at: when });
      runLog.finish(id, { stream, status: 'succeeded', rowsRead: 0, inserted: 0, updated: 0, pages: 1, refreshed: false }, { requests: 1, retries: 0, rateLimited: 0, failures: 0 }, when);
    }
  }
}

/** The writers of day `dayNumber`: part `part` of `parts` of DAY, written as the sync and the queue write it. */
async function dayWriters(dayNumber) {
  const { STREAMS: DEFINITIONS } = await import('../dist/streams/index.js');
  const { createUpserter, nextChangeSeq } = await import('../dist/db/upsertRecords.js');
  const { enqueueJob, deriveKey, validatePayload } = await import('../dist/queue/index.js');
  const random = seeded(dayNumber);
  const share = (total, part, parts) => Math.floor(((part + 1) * total) / parts) - Math.floor((part * total) / parts);

  const applyDayPart = async (db, part, parts) => {
    const write = createUpserter(db, DEFINITIONS.transactions);
    const upsert = (records, now) => {
      for (let offset = 0; offset < records.length; offset += PAGE) db.transaction(() => write(records.slice(offset, offset + PAGE), nextChangeSeq(db), now))();
    };
    const newest = db.prepare('SELECT id, created_at FROM transactions ORDER BY id DESC LIMIT 1').get();
    const now = new Date(Date.parse(newest.created_at) + 60_000);

    const fresh = [];
    for (let i = 1; i <= share(DAY.newTransactions, part, parts); i += 1) fresh.push(transactionRecord(newest.id + i, new Date(now.getTime() + i * 7_000).toISOString()));
    upsert(fresh, now.toISOString());

    // Approvals land on transactions created at least 30 days before: random ids below that line.
    const monthAgo = new Date(now.getTime() - 30 * 86_400_000).toISOString();
    const oldest = db.prepare('SELECT max(id) FROM transactions WHERE created_at <= ?').pluck().get(monthAgo) ?? 0;
    const pendingRaw = db.prepare("SELECT raw FROM transactions WHERE id = ? AND activity_state = 'pending'").pluck();
    const approved = [];
    // A small mirror (STATE_ROWS) may hold fewer month-old pending rows than a day approves: then it approves them all.
    const eligible = db.prepare("SELECT count(*) FROM transactions WHERE id <= ? AND activity_state = 'pending'").pluck().get(oldest);
    const wanted = Math.min(share(DAY.approvals, part, parts), eligible);
    while (approved.length < wanted) {
      const raw = pendingRaw.get(1 + Math.floor(random() * oldest));
      if (raw === undefined) continue;
      const record = JSON.parse(raw);
      if (approved.some((other) => other.id === record.id)) continue;
      approved.push({ ...record, activity: { ...record.activity, state: 'approved' } });
    }
    upsert(approved, now.toISOString());

    await recordSyncRuns(db, share(DAY.syncRuns, part, parts), now);

    const pushed = db.prepare("UPDATE write_jobs SET state = 'succeeded', attempts = 1, first_attempt_at = ?, last_status = 200, response = ?, updated_at = ? WHERE id = ?");
    for (let i = 0; i < share(DAY.writes, part, parts); i += 1) {
      const customer = 1 + Math.floor(random() * 50_000);
      const checked = validatePayload('add_points', { customer_merchant_id: `cust-${customer}`, points: '5', reason: `day ${dayNumber} part ${part} write ${i}` });
      const { job } = enqueueJob(db, { kind: 'add_points', payload: checked.payload, idempotencyKey: deriveKey('add_points', checked.payload), source: 'bench' }, now);
      pushed.run(now.toISOString(), JSON.stringify({ id: 9_000_000 + job.id, points: 5 }), now.toISOString(), job.id);
    }
  };
  return { applyDayPart };
}

function describeDay() {
  const n = (value) => value.toLocaleString('en-US');
  return `${n(DAY.newTransactions)} new transactions, ${n(DAY.approvals)} approved in place, ${DAY.syncRuns} sync runs' bookkeeping, ${DAY.writes} writes queued and pushed`;
}

/** Whether every saved table of the two mirrors holds the same rows (the state's own tables and the local lock aside). */
function sameMirror(left, right) {
  const db = new Database(left, { readonly: true });
  try {
    db.prepare('ATTACH DATABASE ? AS restored').run(right);
    const tables = db
      .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT IN ('state_changes', 'state_epoch', 'state_local', 'instance_lock')")
      .pluck()
      .all();
    const differing = tables.filter((table) => {
      const quoted = `"${table.replaceAll('"', '""')}"`;
      const count = (schema) => db.prepare(`SELECT count(*) FROM ${schema}.${quoted}`).pluck().get();
      if (count('main') !== count('restored')) return true;
      return db.prepare(`SELECT count(*) FROM (SELECT * FROM main.${quoted} EXCEPT SELECT * FROM restored.${quoted})`).pluck().get() !== 0;
    });
    return differing.length === 0 ? `yes (${tables.length} tables)` : `NO: ${differing.join(', ')} differ`;
  } finally {
    db.close();
  }
}

/**
 * A loopback proxy that forwards every request byte for byte (SigV4 signatures still verify) and counts
 * writes (PUT, POST, DELETE), reads (GET, HEAD) and the bytes of every request body.
 */
async function startCountingProxy(upstream) {
  const { forward } = await import('../test/s3/forward.ts');
  const target = new URL(upstream);
  const counts = { writes: 0, reads: 0, bodyBytes: 0 };
  const server = createServer((req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') counts.reads += 1;
    else counts.writes += 1;
    req.on('data', (chunk) => (counts.bodyBytes += chunk.byteLength));
    forward(req, res, target);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    counts,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A small deterministic generator (mulberry32), so every run changes the same rows. */
function seeded(seed) {
  let state = seed * 0x9e3779b9;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function elapsed(started) {
  return (performance.now() - started) / 1000;
}

function secs(seconds) {
  return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function kb(bytes) {
  return `${(bytes / 1e3).toFixed(1)} KB`;
}

function percent(share) {
  return `${(share * 100).toFixed(2)}%`;
}

function verdict(met) {
  return met ? 'target met' : 'target MISSED';
}

if (process.argv[2] === '--measure') {
  // The process ends by itself, as a command does: what a session leaves running (the log's pruning) is counted too.
  const [step, ...args] = process.argv.slice(3);
  const result = await STEPS[step](...args);
  process.on('exit', () => console.log(JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 })));
} else {
  await main();
}
