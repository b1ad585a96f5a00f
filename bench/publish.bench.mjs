// Publishing to object storage, and the CSV export, each measured as a whole `loyalty-sync export` process
// on the 1,000,000-row transactions mirror:
//   export --format csv,parquet --table transactions, local only, next to the same with --to s3://… on a
//   loopback OpenStack Swift (target: export plus publication within 1.5x of the local export; peak memory
//   under 512 MB);
//   export --format csv --table transactions next to `sqlite3 -csv -header` of the same table (target >= 0.6).
// Each figure is the best of ROUNDS, measured in alternation. Needs scripts/install-swift.sh run once.
// Run after `npm run build`: node bench/publish.bench.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startSwift } from '../scripts/swift-server.mjs';
import { buildMirror, timeSqliteCsv } from './transactionsMirror.mjs';

const ROOT = resolve('.bench-data/export');
const ROWS = 1_000_000;
const ROUNDS = 3;
const CLI = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));

if (process.argv[2] === '--child') {
  // The CLI as a user runs it, in this process, reporting its own peak memory when it exits.
  const [report, ...args] = process.argv.slice(3);
  process.on('exit', (code) => writeFileSync(report, JSON.stringify({ code, maxRssMb: process.resourceUsage().maxRSS / 1024 })));
  process.argv = [process.argv[0], CLI, ...args];
  await import(CLI);
} else {
  await main();
}

async function main() {
  mkdirSync(ROOT, { recursive: true });
  const mirror = join(ROOT, 'tx-1m.db');
  await buildMirror(mirror, ROWS);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const swift = await startSwift();
  try {
    const s3 = new S3Client({ endpoint: swift.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey } });
    await s3.send(new CreateBucketCommand({ Bucket: 'bench-exports' }));
    s3.destroy();
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'warn',
      LOYALTY_DB: mirror,
      AWS_ACCESS_KEY_ID: swift.accessKeyId,
      AWS_SECRET_ACCESS_KEY: swift.secretAccessKey,
      AWS_ENDPOINT_URL_S3: swift.endpoint,
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const local = [];
    const published = [];
    const csv = [];
    const sqlite = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      local.push(runExport(env, ['--format', 'csv,parquet']));
      published.push(runExport(env, ['--format', 'csv,parquet', '--to', 's3://bench-exports/loyalty']));
      csv.push(runExport(env, ['--format', 'csv']));
      sqlite.push(timeSqliteCsv(mirror, join(ROOT, 'sqlite3-publish.csv')));
    }
    const best = (runs) => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
    const [l, p, c] = [best(local), best(published), best(csv)];
    const ratio = p.ms / l.ms;
    const peak = Math.max(...published.map((run) => run.maxRssMb));
    console.log(`export csv+parquet, local only: ${s(l.ms)} s (${rate(l.ms)} rows/s), peak ${l.maxRssMb.toFixed(0)} MB`);
    console.log(`export csv+parquet, published to Swift on loopback: ${s(p.ms)} s (${rate(p.ms)} rows/s), peak ${p.maxRssMb.toFixed(0)} MB (highest of ${ROUNDS}: ${peak.toFixed(0)} MB)`);
    console.log(`  export plus publication / local export: x${ratio.toFixed(2)} (target <= 1.5: ${ratio <= 1.5 ? 'met' : 'NOT met'}); peak memory target < 512 MB: ${peak < 512 ? 'met' : 'NOT met'}`);
    console.log(`  all runs, local: ${local.map((run) => s(run.ms)).join(', ')} s; published: ${published.map((run) => s(run.ms)).join(', ')} s`);
    const sqliteMs = Math.min(...sqlite);
    const csvRatio = sqliteMs / c.ms;
    console.log(`CSV, whole process: loyalty-sync export --format csv ${rate(c.ms)} rows/s, sqlite3 -csv -header ${rate(sqliteMs)} rows/s; ratio ${csvRatio.toFixed(2)} (target >= 0.6: ${csvRatio >= 0.6 ? 'met' : 'NOT met'})`);
    console.log(`  all runs, loyalty-sync: ${csv.map((run) => s(run.ms)).join(', ')} s; sqlite3: ${sqlite.map((ms) => s(ms)).join(', ')} s`);
  } finally {
    swift.stop();
    rmSync(join(ROOT, 'out-publish'), { recursive: true, force: true });
    rmSync(join(ROOT, 'sqlite3-publish.csv'), { force: true });
  }
}

function runExport(env, args) {
  const exportDir = join(ROOT, 'out-publish');
  rmSync(exportDir, { recursive: true, force: true });
  const report = join(ROOT, 'child-report.json');
  const start = performance.now();
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', report, 'export', '--table', 'transactions', ...args], {
    env: { ...env, LOYALTY_EXPORT_DIR: exportDir },
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  const { code, maxRssMb } = JSON.parse(readFileSync(report, 'utf8'));
  if (result.status !== 0 || code !== 0) throw new Error(`export ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return { ms, maxRssMb };
}

function rate(ms) {
  return Math.round(ROWS / (ms / 1000)).toLocaleString('en-US');
}

function s(ms) {
  return (ms / 1000).toFixed(2);
}
