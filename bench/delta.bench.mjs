// Delta Lake export on a mirror of 1,000,000 transactions, 50,000 customers, 100,000 orders, 200,000 activities
// and 5,000 unsubscribes (issue 18):
//   a full Delta export of the five tables next to the Parquet export of the same tables (target <= 1.2x its time);
//   after a day of typical change, the incremental Delta export's bytes and time next to the full one's
//   (targets < 15% of the bytes, < 25% of the time);
//   peak memory (maxRSS) of the full and the incremental export (target < 512 MB);
//   the active file count after 30 incremental exports (each after a smaller day) next to a fresh full export's.
// Each export runs in a child process. Each scenario starts from a copy of the built mirror (and of the tables a
// full export left), so reruns start clean; the built mirror stays in .bench-data/delta for the next run.
// Takes about 6 minutes on 2 cores, and 1.5 more on the first run, which builds the mirror: listed in
// bench/run.mjs's ALL, not its DEFAULT. Run after `npm run build`: BENCH=delta npm run bench, or node bench/delta.bench.mjs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildMirror, transactionRecord } from './transactionsMirror.mjs';

const ROOT = resolve('.bench-data/delta');
const WORK = join(ROOT, 'work');
const ROUNDS = Number(process.env.DELTA_ROUNDS ?? 3);
const DAYS = 30;
const SIZES = { customers: 50_000, orders: 100_000, activities: 200_000, transactions: 1_000_000, unsubscribes: 5_000 };
// A typical day: 1% new transactions, 2% of customers changed, refunds on the newest 1% of orders, the newest
// 1% of activities approved, a few addresses leaving the unsubscribe list.
const TYPICAL_DAY = { transactions: 10_000, customers: 1_000, orders: 1_000, activities: 2_000, unsubscribes: 5 };
// The 30 days of the file-count scenario are smaller, to keep the bench short.
const SMALL_DAY = { transactions: 1_000, customers: 200, orders: 100, activities: 200, unsubscribes: 2 };
// The mirror's records were synced at this instant; day N of change happens N days later.
const BUILT_AT = Date.UTC(2026, 2, 1, 12);

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  await main();
}

/** One export of the five tables in this process; prints its duration, output and peak memory as JSON. */
async function child(dbPath, exportDir, format) {
  const { openDatabase } = await import('../dist/db/open.js');
  const { loadConfig } = await import('../dist/config.js');
  const { createLogger } = await import('../dist/log.js');
  const { runExport } = await import('../dist/export/index.js');
  const config = loadConfig({ env: {}, overrides: { db: { path: dbPath }, export: { dir: exportDir, retainRuns: 1 } } });
  const db = openDatabase(dbPath);
  const start = performance.now();
  const report = await runExport({ db, config, logger: createLogger({ level: 'silent' }), formats: [format] });
  const ms = performance.now() - start;
  db.close();
  const usage = process.resourceUsage();
  const sum = (items, field) => items.reduce((total, item) => total + item[field], 0);
  const figures =
    format === 'delta'
      ? {
          bytes: sum(report.delta, 'bytesAdded'),
          byTable: Object.fromEntries(report.delta.map((table) => [table.table, table.bytesAdded])),
          files: sum(report.delta, 'files'),
          tableBytes: sum(report.delta, 'bytes'),
          committed: report.delta.filter((table) => table.committed).length,
        }
      : { bytes: sum(report.files, 'bytes'), files: report.files.length };
  process.stdout.write(JSON.stringify({ ms, maxRssMb: usage.maxRSS / 1024, ...figures }));
}

async function main() {
  mkdirSync(ROOT, { recursive: true });
  const sync = await syncWriters();
  const mirror = join(ROOT, 'mirror.db');
  await buildDeltaMirror(sync, mirror);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });

  // Full exports. Other processes share the machine: each figure is the best of ROUNDS, measured in alternation,
  // each export on a fresh copy of the mirror and into an empty folder.
  const parquetRuns = [];
  const deltaRuns = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    parquetRuns.push(exportFresh(mirror, 'parquet'));
    deltaRuns.push(exportFresh(mirror, 'delta'));
  }
  const parquet = fastest(parquetRuns);
  const full = fastest(deltaRuns);
  const fullRatio = full.ms / parquet.ms;
  console.log(
    `Full export of the five tables: Delta ${seconds(full.ms)} (${mb(full.bytes)}, ${full.files} files), Parquet ${seconds(parquet.ms)} (${mb(parquet.bytes)}); ` +
      `ratio ${fullRatio.toFixed(2)} (target <= 1.2: ${verdict(fullRatio <= 1.2)})`,
  );
  rmSync(join(WORK, 'parquet'), { recursive: true, force: true });
  // The last Delta round's mirror and tables are the state every incremental scenario starts from.
  const afterFull = { db: join(WORK, 'delta', 'mirror.db'), dir: join(WORK, 'delta', 'exports') };

  // A typical day of change, then an incremental export: best of ROUNDS, each from the state the full export left.
  const incrementalRuns = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const state = restore(afterFull, 'day');
    changeMirror(sync, state.db, 1, TYPICAL_DAY);
    incrementalRuns.push(runChild(state.db, state.dir, 'delta'));
  }
  const incremental = fastest(incrementalRuns);
  const bytesShare = incremental.bytes / full.bytes;
  const timeShare = incremental.ms / full.ms;
  console.log(
    `Incremental export after a day of change (${describeDay(TYPICAL_DAY)}): ${mb(incremental.bytes)} written in ${seconds(incremental.ms)}, ` +
      `${incremental.committed} tables committed`,
  );
  // Copy-on-write rewrites whole files: which tables the bytes went to says where a miss comes from.
  console.log(`  written by table: ${Object.entries(incremental.byTable).map(([table, bytes]) => `${table} ${mb(bytes)}`).join(', ')}`);
  console.log(`  bytes: ${percent(bytesShare)} of the full export's (target < 15%: ${verdict(bytesShare < 0.15)})`);
  console.log(`  time: ${percent(timeShare)} of the full export's (target < 25%: ${verdict(timeShare < 0.25)})`);
  const peak = Math.max(full.maxRssMb, incremental.maxRssMb);
  console.log(`Peak memory: full ${full.maxRssMb.toFixed(0)} MB, incremental ${incremental.maxRssMb.toFixed(0)} MB (target < 512 MB: ${verdict(peak < 512)})`);

  // Thirty days, each a smaller change and an incremental export; then a full export of the same mirror into an empty folder.
  const month = restore(afterFull, 'month');
  let last = null;
  for (let day = 1; day <= DAYS; day += 1) {
    changeMirror(sync, month.db, day, SMALL_DAY);
    last = runChild(month.db, month.dir, 'delta');
  }
  const fresh = runChild(month.db, join(WORK, 'month', 'fresh'), 'delta');
  console.log(
    `Active files after ${DAYS} incremental exports (each after ${describeDay(SMALL_DAY)}): ${last.files} (${mb(last.tableBytes)}); ` +
      `a fresh full export of the same mirror: ${fresh.files} (${mb(fresh.tableBytes)})`,
  );
  // The outputs are large; the built mirror stays for the next run.
  rmSync(WORK, { recursive: true, force: true });
}

/** Copies the mirror to WORK/FORMAT and exports it there into an empty folder. */
function exportFresh(mirror, format) {
  const folder = join(WORK, format);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  copyDatabase(mirror, join(folder, 'mirror.db'));
  return runChild(join(folder, 'mirror.db'), join(folder, 'exports'), format);
}

/** A copy of a mirror and its export folder at WORK/NAME. */
function restore(state, name) {
  const folder = join(WORK, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const copy = { db: join(folder, 'mirror.db'), dir: join(folder, 'exports') };
  copyDatabase(state.db, copy.db);
  cpSync(state.dir, copy.dir, { recursive: true });
  return copy;
}

function copyDatabase(from, to) {
  copyFileSync(from, to);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
    else rmSync(to + suffix, { force: true });
  }
}

function runChild(dbPath, exportDir, format) {
  const result = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dbPath, exportDir, format], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`${format} export child failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * The mirror, built once: transactions by direct inserts (bench/transactionsMirror.mjs), the other four tables
 * from the simulator's generated records through the real upserters, as a sync would store them.
 */
async function buildDeltaMirror(sync, path) {
  if (existsSync(path)) return;
  const { startSimulator } = await import('../dist/simulator/index.js');
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(building + suffix, { force: true });
  await buildMirror(building, SIZES.transactions);
  const start = performance.now();
  const db = sync.openDatabase(building);
  // The simulator's transactions are left out (the mirror's million come from above); reviews are not a stream.
  const sim = await startSimulator({ seed: 18, size: { customers: SIZES.customers, orders: SIZES.orders, activities: SIZES.activities, transactions: 0, reviews: 0, unsubscribes: SIZES.unsubscribes } });
  try {
    for (const stream of ['customers', 'orders', 'activities', 'unsubscribes']) sync.upsert(db, stream, sim.truth(stream), iso(BUILT_AT));
  } finally {
    await sim.close();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  renameSync(building, path);
  console.log(`filled customers, orders, activities and unsubscribes in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

/** The sync's own writers: each upsert takes a change sequence number, as a sync page does. */
async function syncWriters() {
  const { openDatabase } = await import('../dist/db/open.js');
  const { STREAMS } = await import('../dist/streams/index.js');
  const { createUpserter, createUnsubscribeUpserter, nextChangeSeq } = await import('../dist/db/upsertRecords.js');
  const { tombstoneUnseen } = await import('../dist/sync/tombstones.js');
  const upsert = (db, stream, records, now) => {
    const write = stream === 'unsubscribes' ? createUnsubscribeUpserter(db, STREAMS[stream]) : createUpserter(db, STREAMS[stream]);
    db.transaction(() => write(records, nextChangeSeq(db), now))();
  };
  return { openDatabase, upsert, tombstoneUnseen, nextChangeSeq };
}

/**
 * Day `day` of change, written as a sync would: new transactions after the newest; customers' balances (spread
 * over all customers); refunds on the newest orders not yet refunded; the newest pending activities approved;
 * a walk of the unsubscribe list that no longer sees a few addresses.
 */
function changeMirror(sync, dbPath, day, counts) {
  const { openDatabase, upsert, tombstoneUnseen, nextChangeSeq } = sync;
  const db = openDatabase(dbPath);
  const dayStart = BUILT_AT + day * 86_400_000;
  const now = iso(dayStart + 3_600_000);

  const newest = db.prepare('SELECT max(id) FROM transactions').pluck().get();
  const transactions = [];
  for (let i = 1; i <= counts.transactions; i += 1) transactions.push(transactionRecord(newest + i, iso(dayStart + i * 1_000)));
  upsert(db, 'transactions', transactions, now);

  const customerIds = db.prepare('SELECT id FROM customers ORDER BY id').pluck().all();
  const random = seeded(day);
  const picked = new Set();
  while (picked.size < counts.customers) picked.add(customerIds[Math.floor(random() * customerIds.length)]);
  const readCustomer = db.prepare('SELECT raw FROM customers WHERE id = ?').pluck();
  const customers = [...picked].map((id) => {
    const record = JSON.parse(readCustomer.get(id));
    return { ...record, points_approved: record.points_approved + 10 * day, updated_at: now };
  });
  upsert(db, 'customers', customers, now);

  const orders = db
    .prepare("SELECT raw FROM orders WHERE refund_status IS NOT 'refunded' ORDER BY id DESC LIMIT ?")
    .pluck()
    .all(counts.orders)
    .map((raw) => JSON.parse(raw))
    .map((order) => ({ ...order, total_refunded: order.total, refund_status: 'refunded', updated_at: now }));
  upsert(db, 'orders', orders, now);

  const activities = db
    .prepare("SELECT raw FROM activities WHERE state = 'pending' ORDER BY id DESC LIMIT ?")
    .pluck()
    .all(counts.activities)
    .map((raw) => ({ ...JSON.parse(raw), state: 'approved' }));
  upsert(db, 'activities', activities, now);

  const listed = db.prepare('SELECT raw FROM unsubscribes WHERE removed_at IS NULL ORDER BY id').pluck().all();
  const walkStartedAt = now;
  upsert(db, 'unsubscribes', listed.slice(counts.unsubscribes).map((raw) => JSON.parse(raw)), now);
  db.transaction(() => tombstoneUnseen(db, walkStartedAt, now, nextChangeSeq(db)))();
  db.close();
}

/** A small deterministic generator (mulberry32), so every run changes the same customers. */
function seeded(seed) {
  let state = seed * 0x9e3779b9;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function describeDay(counts) {
  return `${counts.transactions.toLocaleString('en-US')} new transactions, ${counts.customers.toLocaleString('en-US')} customers, ${counts.orders.toLocaleString('en-US')} orders refunded, ${counts.activities.toLocaleString('en-US')} activities approved, ${counts.unsubscribes} unsubscribes removed`;
}

function fastest(runs) {
  return runs.reduce((best, run) => (run.ms < best.ms ? run : best));
}

function iso(ms) {
  return new Date(ms).toISOString();
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function percent(share) {
  return `${(share * 100).toFixed(1)}%`;
}

function verdict(met) {
  return met ? 'met' : 'NOT met';
}
