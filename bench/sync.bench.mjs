// Sync throughput and memory: how fast `sync` stores 1,000,000 transactions compared with merely
// fetching and parsing the same pages (and how much of it the points ledger's full build at its end takes),
// and peak RSS at 100,000 and 1,000,000 rows; and what the schema
// drift check costs: the same sync with the check switched off (runSync's checkDrift: false), and the check
// alone, timed over the same pages (its cost to a sync can be no more than its own time, even were nothing
// beside it; the with/without pair shows the rest, but on a shared machine its noise exceeds the effect).
// Each measurement runs in its own child process (clean RSS high-water mark); each simulator runs
// in another child, so it does not share the measured process's CPU.
// Run after `npm run build`: node bench/sync.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureInChild } from './childMeasure.mjs';
import { startSimulatorChild } from './simulatorChild.mjs';

const SELF = fileURLToPath(import.meta.url);
// The 'large' preset holds 1,000,000 transactions; the small data set is the same shape at a tenth.
const LARGE = 'large';
const SMALL = JSON.stringify({ customers: 5_000, orders: 10_000, activities: 90_000, transactions: 100_000, reviews: 500, rewards: 20, unsubscribes: 500 });
const TARGET_RATIO = 0.8;
// Other processes share the machine: speeds are the best of ROUNDS, fetch and sync measured in alternation;
// peak memory is the highest of the rounds.
const ROUNDS = 3;
const TARGET_MEMORY_GROWTH = 1.3;
/** The schema drift check may cost the sync at most this share of its time (issue 14). */
const TARGET_DRIFT_COST = 0.05;
const NO_DRIFT_CHECK = 'sync-without-drift-check';
const CHECK_ONLY = 'drift-check-only';

const [mode, ...args] = process.argv.slice(2);
if (mode === '--measure') await measure(args[0], args[1], args[2]);
else await main();

/**
 * Child: one measurement, printed as JSON: `sync` into a fresh mirror (with or without the drift check),
 * `fetch` pages and parse them only, or fetch them and time the drift check alone on each page.
 */
async function measure(kind, url, key) {
  const { loadConfig } = await import('../dist/config.js');
  const { createLogger } = await import('../dist/log.js');
  const { createApiClient } = await import('../dist/api/client.js');
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-bench-'));
  const config = loadConfig({
    env: { LOYALTY_BASE_URL: url, LOYALTY_API_KEY: key, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'warn' },
    // No rate limit: the comparison is storage against the network, not against a throttle.
    overrides: { api: { requestsPerSecond: 1_000_000, burst: 1_000 } },
  });
  const logger = createLogger({ level: 'warn' });
  const client = createApiClient(config.api, logger);
  let rows = 0;
  let checkSeconds = 0;
  let ledgerSeconds = 0;
  const started = performance.now();
  try {
    if (kind === 'fetch') {
      for await (const page of client.pages('transactions', { since_id: 0 })) rows += page.items.length;
    } else if (kind === CHECK_ONLY) {
      const { createDriftDetector } = await import('../dist/drift/index.js');
      const { getStream } = await import('../dist/streams/index.js');
      const detect = createDriftDetector(getStream('transactions'));
      for await (const page of client.pages('transactions', { since_id: 0 })) {
        rows += page.items.length;
        const before = performance.now();
        detect(page.items);
        checkSeconds += (performance.now() - before) / 1000;
      }
    } else {
      const { openDatabase } = await import('../dist/db/open.js');
      const { runSync } = await import('../dist/sync/index.js');
      const db = openDatabase(config.db.path);
      const report = await runSync({ db, client, config, logger, streams: ['transactions'], checkDrift: kind !== NO_DRIFT_CHECK });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report.streams)}`);
      rows = report.streams[0].rowsRead;
      // The points ledger is brought up to date at the end of every sync: here, a first sync, a full build.
      ledgerSeconds = (db.prepare('SELECT build_ms FROM ledger_state WHERE id = 1').pluck().get() ?? 0) / 1000;
      db.close();
    }
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(`${JSON.stringify({ kind, rows, seconds, cpuSeconds, checkSeconds, ledgerSeconds, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}

async function main() {
  const large = await startSimulatorChild(LARGE);
  const small = await startSimulatorChild(SMALL);
  try {
    const fetchRuns = [];
    const syncRuns = [];
    const uncheckedRuns = [];
    const smallRuns = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      fetchRuns.push(await runMeasure('fetch', large));
      syncRuns.push(await runMeasure('sync', large));
      uncheckedRuns.push(await runMeasure(NO_DRIFT_CHECK, large));
      smallRuns.push(await runMeasure('sync', small));
    }
    const checkOnly = await runMeasure(CHECK_ONLY, large);
    const fastest = (runs) => runs.reduce((best, run) => (run.seconds < best.seconds ? run : best));
    const fetchLarge = fastest(fetchRuns);
    const syncLarge = { ...fastest(syncRuns), maxRssMb: Math.max(...syncRuns.map((run) => run.maxRssMb)) };
    const syncSmall = { ...fastest(smallRuns), maxRssMb: Math.max(...smallRuns.map((run) => run.maxRssMb)) };
    const unchecked = fastest(uncheckedRuns);
    // The pair in time, and in CPU (both threads), which leaves out the waiting but not other processes' cache and scheduling effects.
    const driftCost = syncLarge.seconds / unchecked.seconds - 1;
    const leastCpu = (runs) => Math.min(...runs.map((run) => run.cpuSeconds));
    const driftCpuCost = leastCpu(syncRuns) / leastCpu(uncheckedRuns) - 1;
    const fetchRate = fetchLarge.rows / fetchLarge.seconds;
    const syncRate = syncLarge.rows / syncLarge.seconds;
    const ratio = syncRate / fetchRate;
    const growth = syncLarge.maxRssMb / syncSmall.maxRssMb;
    const n = (value) => Math.round(value).toLocaleString('en-US');
    const all = (runs) => runs.map((run) => run.seconds.toFixed(1)).join(', ');
    console.log(`sync bench: fetch+parse only   ${n(fetchLarge.rows)} transactions in ${fetchLarge.seconds.toFixed(1)} s = ${n(fetchRate)} rows/s (rounds: ${all(fetchRuns)} s)`);
    console.log(`sync bench: sync (store)       ${n(syncLarge.rows)} transactions in ${syncLarge.seconds.toFixed(1)} s = ${n(syncRate)} rows/s (rounds: ${all(syncRuns)} s)`);
    console.log(`sync bench: ratio sync/fetch   ${ratio.toFixed(2)} (target >= ${TARGET_RATIO})`);
    // Not a target of its own: what the points ledger's full build at the end of this first sync adds to it.
    const storing = syncLarge.seconds - syncLarge.ledgerSeconds;
    console.log(`sync bench: of which the ledger ${syncLarge.ledgerSeconds.toFixed(1)} s (its full build after a first sync); storing alone ${storing.toFixed(1)} s, ratio ${(fetchLarge.seconds / storing).toFixed(2)}`);
    // CPU per row tells storage cost apart from a busy machine's scheduling noise.
    const perRow = (m) => ((m.cpuSeconds / m.rows) * 1e6).toFixed(1);
    console.log(`sync bench: CPU per row        fetch+parse ${perRow(fetchLarge)} µs, sync ${perRow(syncLarge)} µs (storage ${((syncLarge.cpuSeconds / syncLarge.rows - fetchLarge.cpuSeconds / fetchLarge.rows) * 1e6).toFixed(1)} µs)`);
    console.log(`sync bench: peak RSS of sync   ${n(syncSmall.maxRssMb)} MB at ${n(syncSmall.rows)} rows, ${n(syncLarge.maxRssMb)} MB at ${n(syncLarge.rows)} rows`);
    console.log(`sync bench: memory growth      ${growth.toFixed(2)}x from 100k to 1M rows (target <= ${TARGET_MEMORY_GROWTH}x); fetch-only peak ${n(fetchLarge.maxRssMb)} MB`);
    const percent = (share) => `${(share * 100).toFixed(1)}%`;
    const checkShare = checkOnly.checkSeconds / syncLarge.seconds;
    console.log(`sync bench: drift check alone  ${checkOnly.checkSeconds.toFixed(2)} s over ${n(checkOnly.rows)} transactions = ${((checkOnly.checkSeconds / checkOnly.rows) * 1e6).toFixed(2)} µs/row, ${percent(checkShare)} of the sync's ${syncLarge.seconds.toFixed(1)} s (target < ${percent(TARGET_DRIFT_COST)})`);
    console.log(`sync bench: without drift check ${n(unchecked.rows)} transactions in ${unchecked.seconds.toFixed(1)} s = ${n(unchecked.rows / unchecked.seconds)} rows/s (rounds: ${all(uncheckedRuns)} s)`);
    console.log(`sync bench: with/without check time ${percent(driftCost)} (${syncLarge.seconds.toFixed(1)} s with, ${unchecked.seconds.toFixed(1)} s without), CPU ${percent(driftCpuCost)} (${leastCpu(syncRuns).toFixed(1)} s with, ${leastCpu(uncheckedRuns).toFixed(1)} s without)`);
    if (ratio < TARGET_RATIO || growth > TARGET_MEMORY_GROWTH || checkShare >= TARGET_DRIFT_COST) {
      console.log('sync bench: below target');
      process.exitCode = 1;
    }
  } finally {
    large.stop();
    small.stop();
  }
}


function runMeasure(kind, sim) {
  return measureInChild(SELF, [kind, sim.url, sim.key]);
}
