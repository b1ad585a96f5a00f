// verify --full of 1,000,000 transactions against the same simulator (no rate limit) as a full sync of them:
// its time beside the sync's, and its peak RSS. Targets (issue 14): within 1.5x of the sync's time, under 512 MB.
// Each sync and verify runs in its own child process (clean RSS high-water mark); the simulator in another.
// Run after `npm run build`: node bench/verify.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureInChild } from './childMeasure.mjs';
import { startSimulatorChild } from './simulatorChild.mjs';

const SELF = fileURLToPath(import.meta.url);
// 'large' holds 1,000,000 transactions.
const SIZE = 'large';
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 512;
// Other processes share the machine: times are the best of ROUNDS, sync and verify in alternation.
const ROUNDS = 2;

const [mode, ...args] = process.argv.slice(2);
if (mode === '--measure') await measure(args[0], args[1], args[2], args[3]);
else await main();

/** Child: `sync` of transactions into the mirror at `dbPath`, or `verify` --full of them against it; printed as JSON. */
async function measure(kind, url, key, dbPath) {
  const { loadConfig } = await import('../dist/config.js');
  const { createLogger } = await import('../dist/log.js');
  const { createApiClient } = await import('../dist/api/client.js');
  const { openDatabase } = await import('../dist/db/open.js');
  const config = loadConfig({
    env: { LOYALTY_BASE_URL: url, LOYALTY_API_KEY: key, LOYALTY_DB: dbPath, LOG_LEVEL: 'warn' },
    overrides: { api: { requestsPerSecond: 1_000_000, burst: 1_000 } },
  });
  const logger = createLogger({ level: 'warn' });
  const client = createApiClient(config.api, logger);
  const db = openDatabase(dbPath);
  let rows = 0;
  let clean = true;
  const started = performance.now();
  try {
    if (kind === 'sync') {
      const { runSync } = await import('../dist/sync/index.js');
      const report = await runSync({ db, client, config, logger, streams: ['transactions'] });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report.streams)}`);
      rows = report.streams[0].rowsRead;
    } else {
      const { runVerify } = await import('../dist/verify/index.js');
      const report = await runVerify({ db, client, config, logger, streams: ['transactions'], mode: 'full', requests: 0, repair: false });
      const [stream] = report.streams;
      if (stream.error) throw new Error(`verify failed: ${stream.error}`);
      rows = stream.compared + stream.unsynced;
      clean = report.ok;
    }
  } finally {
    await client.close();
    db.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ kind, rows, clean, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}

async function main() {
  const sim = await startSimulatorChild(SIZE);
  try {
    const syncRuns = [];
    const verifyRuns = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = mkdtempSync(join(tmpdir(), 'loyalty-verify-bench-'));
      try {
        const dbPath = join(dir, 'mirror.db');
        syncRuns.push(await runMeasure('sync', sim, dbPath));
        verifyRuns.push(await runMeasure('verify', sim, dbPath));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const fastest = (runs) => runs.reduce((best, run) => (run.seconds < best.seconds ? run : best));
    const sync = fastest(syncRuns);
    const verify = { ...fastest(verifyRuns), maxRssMb: Math.max(...verifyRuns.map((run) => run.maxRssMb)) };
    const ratio = verify.seconds / sync.seconds;
    const n = (value) => Math.round(value).toLocaleString('en-US');
    const all = (runs) => runs.map((run) => run.seconds.toFixed(1)).join(', ');
    const perRow = (m) => ((m.cpuSeconds / m.rows) * 1e6).toFixed(1);
    console.log(`verify bench: full sync        ${n(sync.rows)} transactions in ${sync.seconds.toFixed(1)} s (rounds: ${all(syncRuns)} s), CPU ${perRow(sync)} µs/row, peak RSS ${n(Math.max(...syncRuns.map((run) => run.maxRssMb)))} MB`);
    console.log(`verify bench: verify --full    ${n(verify.rows)} transactions in ${verify.seconds.toFixed(1)} s (rounds: ${all(verifyRuns)} s), CPU ${perRow(verify)} µs/row, found ${verifyRuns.every((run) => run.clean) ? 'no differences' : 'DIFFERENCES'}`);
    console.log(`verify bench: ratio verify/sync ${ratio.toFixed(2)} (target <= ${TARGET_RATIO})`);
    console.log(`verify bench: peak RSS verify  ${n(verify.maxRssMb)} MB (target < ${TARGET_RSS_MB} MB)`);
    if (ratio > TARGET_RATIO || verify.maxRssMb >= TARGET_RSS_MB || !verifyRuns.every((run) => run.clean)) {
      console.log('verify bench: below target');
      process.exitCode = 1;
    }
  } finally {
    sim.stop();
  }
}


function runMeasure(kind, sim, dbPath) {
  return measureInChild(SELF, [kind, sim.url, sim.key, dbPath]);
}
