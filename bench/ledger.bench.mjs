// The points ledger on the 1,000,000-row transactions mirror (the export bench's, built once in .bench-data), with
// the 50,000 customers its transactions name added as a sync stores them, 9 in 10 enrolled (a program's members:
// program_metrics_daily counts them, and without them a build skips that work):
//   a full build of the three model tables next to one `sqlite3` GROUP BY of the transactions by day (target <= 3x);
//   the floor of any build: the build's own connection writing one row per customer and day into a table keyed by
//   day and customer, in that order, as many rows as customer_points_daily holds (there, every transaction is its
//   own customer-day), without the zone's days, the running balances or the day's movements, then rolling it back;
//   the update after a typical day's sync (a day's worth of new transactions) next to the full build (target <= 5%);
//   the floor of any update: the build's connection reading a day's new transactions and writing one new row per
//   customer of theirs into the built customer_points_daily (keyed by day and customer: the rows of a new day append
//   to it), then committing; no zone, running balances, earlier days, movements or other tables;
//   peak memory (maxRSS of a child process running the full build) at 250k and 1M transactions (target: flat);
//   the reconciliation verify --ledger runs (no target: its sums over every transaction, by customer);
//   balances --as-of the day halfway through the transactions' days, for every customer and for one (no target: the table is kept
//   by day, so one customer's balance reads the days up to the date);
//   customer_points_daily's Delta table: the export after a day's update next to the first export, which writes it whole.
// Times are the best of three rounds: on a shared machine a round can run a third slower than the next.
// Run after `npm run build`: BENCH=ledger npm run bench, or node bench/ledger.bench.mjs
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildMirror, COLUMNS, transactionRecord } from './transactionsMirror.mjs';

const ROOT = resolve('.bench-data/ledger');
const LARGE = 1_000_000;
const SMALL = 250_000;
/** The bench mirror spreads one transaction every 7 s: a day holds about 12,300 of them. */
const DAY_OF_TRANSACTIONS = Math.round(86_400 / 7);
/** The customers transactionRecord spreads the transactions over. */
const CUSTOMERS = 50_000;
const SETTINGS = { timeZone: 'America/New_York', pointValue: '0.01' };

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4]);
} else {
  await main();
}

/**
 * In this process: `floor` times a build's least work; `full` builds the tables whole; `update` adds a day of
 * transactions, then updates them; `updateFloor` adds a day of transactions, then times an update's least work.
 */
async function child(dbPath, mode) {
  const { openDatabase } = await import('../dist/db/open.js');
  const { updateLedger } = await import('../dist/ledger/updateLedger.js');
  const db = openDatabase(dbPath);
  // A real build runs in a process that has used Intl already: loading the config checks program.timeZone with it
  // (validateTimezone in src/config.ts). Its first use costs 20-30 ms whatever the zone, which a child that skips the
  // config would charge to the build it times.
  new Intl.DateTimeFormat('en-US', { timeZone: SETTINGS.timeZone });
  let ms;
  let rebuiltFrom;
  if (mode === 'floor') {
    // A build's least work: each customer's sums by (UTC) day written into a table of the mirror, by the same
    // connection a build uses, then rolled back.
    db.exec('BEGIN IMMEDIATE');
    const start = performance.now();
    db.exec(`CREATE TABLE ledger_floor (customer_id INTEGER NOT NULL, day TEXT NOT NULL, approved INTEGER NOT NULL, pending INTEGER NOT NULL, transactions INTEGER NOT NULL, PRIMARY KEY (day, customer_id));
             INSERT INTO ledger_floor SELECT customer_id, substr(created_at, 1, 10) AS day, sum(points_approved), sum(points_pending), count(*)
             FROM transactions NOT INDEXED WHERE customer_id IS NOT NULL AND _removed_at IS NULL GROUP BY day, customer_id ORDER BY day, customer_id`);
    ms = performance.now() - start;
    db.exec('ROLLBACK');
  } else if (mode === 'full') {
    // The mirror was filled by direct inserts: its change counter must cover their _change_seq, as a sync's does.
    db.prepare('UPDATE change_counter SET value = max(value, (SELECT coalesce(max(_change_seq), 0) FROM transactions)) WHERE id = 1').run();
    db.prepare('DELETE FROM ledger_state').run();
    const start = performance.now();
    rebuiltFrom = updateLedger(db, SETTINGS, new Date()).rebuiltFrom;
    ms = performance.now() - start;
  } else if (mode === 'reconcile') {
    const { checkLedger } = await import('../dist/ledger/reconcile.js');
    const start = performance.now();
    checkLedger(db, { idOverlapHours: 2, updatedAtOverlapMinutes: 10 });
    ms = performance.now() - start;
  } else if (mode === 'balances') {
    const { balancesAsOf } = await import('../dist/ledger/balancesAsOf.js');
    // Halfway through the days with a movement.
    const span = db.prepare('SELECT min(day) AS first, max(day) AS last FROM customer_points_daily').get();
    const day = new Date((Date.parse(span.first) + Date.parse(span.last)) / 2).toISOString().slice(0, 10);
    const start = performance.now();
    const every = balancesAsOf(db, day).length;
    ms = performance.now() - start;
    const oneStart = performance.now();
    balancesAsOf(db, day, 7);
    rebuiltFrom = { day, customers: every, oneCustomerMs: performance.now() - oneStart };
  } else if (mode === 'updateFloor') {
    // An update's least work: the new day's rows, one per customer of its transactions, written into the table and
    // its key and committed. The day is one after every day there, so no row exists already.
    const seq = addDay(db);
    const lastDay = db.prepare('SELECT max(day) FROM customer_points_daily').pluck().get();
    const day = new Date(Date.parse(`${lastDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const start = performance.now();
    db.transaction(() => {
      db.prepare(
        `INSERT INTO customer_points_daily (customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions)
         SELECT customer_id, ?, sum(points_approved), sum(points_pending), sum(points_approved), sum(points_pending), count(*)
         FROM transactions WHERE _change_seq = ? GROUP BY customer_id`,
      ).run(day, seq);
    })();
    ms = performance.now() - start;
  } else if (mode === 'delta') {
    // customer_points_daily's Delta table: written whole by a first export, then the export after a day's update.
    const { loadConfig } = await import('../dist/config.js');
    const { createLogger } = await import('../dist/log.js');
    const { runExport } = await import('../dist/export/index.js');
    const exportDir = `${dbPath}.exports`;
    rmSync(exportDir, { recursive: true, force: true });
    const config = loadConfig({ env: {}, overrides: { db: { path: dbPath }, export: { dir: exportDir, retainRuns: 1 } } });
    const exportTable = async () => {
      const started = performance.now();
      const report = await runExport({ db, config, logger: createLogger({ level: 'silent' }), tables: ['customer_points_daily'], formats: ['delta'] });
      const [table] = report.delta;
      return { ms: performance.now() - started, rowsAdded: table.rowsAdded, rowsRemoved: table.rowsRemoved, mb: table.bytesAdded / 1e6, files: table.files };
    };
    const whole = await exportTable();
    addDay(db);
    updateLedger(db, SETTINGS, new Date());
    const daily = await exportTable();
    rmSync(exportDir, { recursive: true, force: true });
    ms = daily.ms;
    rebuiltFrom = { whole, daily };
  } else {
    addDay(db);
    const start = performance.now();
    rebuiltFrom = updateLedger(db, SETTINGS, new Date()).rebuiltFrom;
    ms = performance.now() - start;
  }
  const rows = db.prepare('SELECT (SELECT count(*) FROM points_ledger_daily) AS days, (SELECT count(*) FROM customer_points_daily) AS customerDays').get();
  db.close();
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, rebuiltFrom, ...rows }));
}

/**
 * A typical day's sync: the day after the newest transaction brings DAY_OF_TRANSACTIONS new ones, in one change,
 * whose number it returns.
 */
function addDay(db) {
  const last = db.prepare('SELECT max(id) AS id, max(created_at) AS at FROM transactions').get();
  const seq = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get();
  const insert = db.prepare(`INSERT INTO transactions (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  const base = Date.parse(last.at);
  db.transaction(() => {
    for (let i = 1; i <= DAY_OF_TRANSACTIONS; i += 1) {
      const id = last.id + i;
      const record = transactionRecord(id, new Date(base + i * 7_000).toISOString());
      const { customer, activity } = record;
      insert.run(id, customer.id, customer.merchant_id, customer.email, record.points_approved, record.points_pending, record.resource, activity?.id ?? null, activity?.state ?? null, activity?.value ?? null, record.created_at, JSON.stringify(record), new Date().toISOString(), seq);
    }
    // Each of their customers' balances changed, and the same sync stores those customers again.
    db.prepare(
      `UPDATE customers SET points_approved = points_approved + 1, updated_at = ?, _change_seq = ?
       WHERE id IN (SELECT customer_id FROM transactions WHERE _change_seq = ?)`,
    ).run(new Date(base + DAY_OF_TRANSACTIONS * 7_000).toISOString(), seq, seq);
  })();
  return seq;
}

/**
 * The customers the transactions name (ids 1 to 50,000), as a sync stores them: 9 in 10 enrolled, on a day
 * spread over the month before the first transaction and the transactions' first weeks, in three tiers, each row
 * with its record's JSON. Stored in the first change, as by a first sync.
 */
async function addCustomers(dbPath) {
  const { openDatabase } = await import('../dist/db/open.js');
  const db = openDatabase(dbPath);
  const insert = db.prepare(
    `INSERT INTO customers (id, merchant_id, email, points_approved, points_pending, points_spent, rewards_claimed, blocked, guest, enrolled, enrolled_at,
       tier_id, tier_name, tier_number, created_at, updated_at, raw, _synced_at, _change_seq)
     VALUES (@id, @merchant_id, @email, @points_approved, @points_pending, @points_spent, 0, 0, 0, @enrolled, @enrolled_at, @tier_id, @tier_name, @tier_number,
       @created_at, @updated_at, @raw, '2026-03-01T12:00:00.000Z', 1)`,
  );
  const tiers = ['Bronze', 'Silver', 'Gold'];
  const start = Date.UTC(2025, 11, 1);
  db.transaction(() => {
    for (let id = 1; id <= CUSTOMERS; id += 1) {
      const enrolled = id % 10 !== 0;
      const createdAt = new Date(start + ((id * 7919) % (60 * 86_400)) * 1000).toISOString();
      const tier = tiers[id % tiers.length];
      const record = {
        id, merchant_id: `cust-${id}`, email: `customer.${id}@example.com`, points_approved: 1000, points_pending: 0, points_spent: 200, rewards_claimed: 0,
        blocked: false, guest: false, enrolled, enrolled_at: enrolled ? createdAt : null, referral_id: `ref-${id}`,
        loyalty_tier_membership: { started_at: createdAt, expires_at: '9999-12-31T23:59:59Z', manual: false, loyalty_tier: { id: 1 + (id % 3), name: tier, number: 1 + (id % 3), default: id % 3 === 0 } },
        created_at: createdAt, updated_at: createdAt,
      };
      insert.run({
        id, merchant_id: record.merchant_id, email: record.email, points_approved: 1000, points_pending: 0, points_spent: 200, enrolled: enrolled ? 1 : 0,
        enrolled_at: record.enrolled_at, tier_id: 1 + (id % 3), tier_name: tier, tier_number: 1 + (id % 3), created_at: createdAt, updated_at: createdAt, raw: JSON.stringify(record),
      });
    }
  })();
  db.close();
}

function runChild(dbPath, mode) {
  const result = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', dbPath, mode], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`ledger child (${mode}) failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Milliseconds `sqlite3` takes for one GROUP BY of the transactions by (UTC) day. */
function timeSqliteGroupBy(dbPath) {
  return timeSqlite(dbPath, 'SELECT substr(created_at, 1, 10) AS day, sum(points_approved), sum(points_pending), count(*) FROM transactions GROUP BY day');
}

function timeSqlite(dbPath, sql) {
  const start = performance.now();
  const result = spawnSync('sqlite3', [dbPath, sql], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`sqlite3 failed: ${result.stderr}`);
  return ms;
}

/** The fastest of `rounds` runs of `run`, which returns a result with `ms`. */
function best(rounds, run) {
  let fastest;
  for (let round = 0; round < rounds; round++) {
    const result = run();
    if (fastest === undefined || result.ms < fastest.ms) fastest = result;
  }
  return fastest;
}

async function main() {
  mkdirSync(ROOT, { recursive: true });
  const source = resolve('.bench-data/export/tx-1m.db');
  mkdirSync(resolve('.bench-data/export'), { recursive: true });
  await buildMirror(source, LARGE);
  const small = join(ROOT, 'transactions-250k.db');
  await buildMirror(small, SMALL);

  const work = join(ROOT, 'ledger-1m.db');
  rmSync(work, { force: true });
  copyFileSync(source, work);
  await addCustomers(work);
  const smallWork = join(ROOT, 'ledger-250k.db');
  rmSync(smallWork, { force: true });
  copyFileSync(small, smallWork);
  await addCustomers(smallWork);
  const query = best(3, () => ({ ms: timeSqliteGroupBy(work) })).ms;
  const floor = best(3, () => runChild(work, 'floor')).ms;
  const full = best(3, () => runChild(work, 'full'));
  const update = best(3, () => runChild(work, 'update'));
  const updateFloor = best(3, () => runChild(work, 'updateFloor')).ms;
  const smallFull = runChild(smallWork, 'full');
  const reconcile = best(3, () => runChild(work, 'reconcile')).ms;
  const balances = best(3, () => runChild(work, 'balances'));
  const delta = runChild(work, 'delta').rebuiltFrom;

  const ratio = full.ms / query;
  const share = update.ms / full.ms;
  console.log(`sqlite3 GROUP BY day over ${LARGE.toLocaleString('en-US')} transactions: ${query.toFixed(0)} ms`);
  console.log(`floor: the build's connection writing each customer's sums by day (as many rows as customer_points_daily, keyed by day and customer; no zone, running balances or movements): ${floor.toFixed(0)} ms = ${(floor / query).toFixed(2)}x the query`);
  console.log(`full build (${full.days} days, ${full.customerDays.toLocaleString('en-US')} customer-days): ${full.ms.toFixed(0)} ms = ${ratio.toFixed(2)}x the query (target <= 3x) ${ratio <= 3 ? 'ok' : 'MISSED'}, ${(full.ms / floor).toFixed(2)}x the floor`);
  console.log(`update after a day of ${DAY_OF_TRANSACTIONS.toLocaleString('en-US')} transactions (from ${JSON.stringify(update.rebuiltFrom)}): ${update.ms.toFixed(0)} ms = ${(share * 100).toFixed(1)}% of the full build (target <= 5%) ${share <= 0.05 ? 'ok' : 'MISSED'}`);
  console.log(`update floor: the build's connection reading a day's ${DAY_OF_TRANSACTIONS.toLocaleString('en-US')} new transactions, writing their customer-days into the built customer_points_daily and committing (no zone, running balances, earlier days or other tables): ${updateFloor.toFixed(0)} ms = ${((updateFloor / full.ms) * 100).toFixed(1)}% of the full build`);
  console.log(`peak memory of a full build: ${smallFull.maxRssMb.toFixed(0)} MB at ${SMALL.toLocaleString('en-US')}, ${full.maxRssMb.toFixed(0)} MB at ${LARGE.toLocaleString('en-US')} (${(full.maxRssMb / smallFull.maxRssMb).toFixed(2)}x; target: flat)`);
  console.log(`reconciliation (verify --ledger's check) over ${LARGE.toLocaleString('en-US')} transactions of 50,000 customers: ${reconcile.toFixed(0)} ms`);
  console.log(`balances --as-of ${balances.rebuiltFrom.day} for every customer (${balances.rebuiltFrom.customers.toLocaleString('en-US')}): ${balances.ms.toFixed(0)} ms; for one: ${balances.rebuiltFrom.oneCustomerMs.toFixed(0)} ms`);
  const exported = (run) => `${(run.ms / 1000).toFixed(1)} s, ${run.rowsAdded.toLocaleString('en-US')} rows and ${run.mb.toFixed(1)} MB written, ${run.rowsRemoved.toLocaleString('en-US')} rows' files removed`;
  console.log(`Delta export of customer_points_daily after a day's update: ${exported(delta.daily)} (${((delta.daily.mb / delta.whole.mb) * 100).toFixed(1)}% of the bytes of the table written whole: ${exported(delta.whole)}; ${delta.whole.files} files)`);
  rmSync(work, { force: true });
  rmSync(smallWork, { force: true });
}
