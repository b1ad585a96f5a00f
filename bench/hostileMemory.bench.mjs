// Memory and loops against a hostile API (issue 20): peak RSS of a sync while it refuses a 400 MiB orders
// page (target under 512 MB; before api.maxResponseBytes it read the page whole, 1,700 MB, and reported
// success), and the time a sync takes to stop a list that hands out a fresh cursor on every page over the
// same 500 rows (target under 120 s; before, only the request timeout could stop it, and it never fired).
// The hostile server runs in a child process of its own, on loopback, and makes the page as it sends it;
// each sync runs in another child with the default config, so its peak RSS is its own.
// Run by hostile.bench.mjs (BENCH=hostile), or after `npm run build`: node bench/hostileMemory.bench.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { measureInChild } from './childMeasure.mjs';

const SELF = fileURLToPath(import.meta.url);
const MiB = 1024 * 1024;
const HUGE_PAGE_BYTES = 400 * MiB;
const TARGET_PEAK_RSS_MB = 512;
const TARGET_STOP_SECONDS = 120;
const API_KEY = 'sk_bench_hostile_memory';

const [mode, ...args] = process.argv.slice(2);
if (mode === '--serve') await serve();
else if (mode === '--measure') await measure(args[0], args[1]);
else await main();

async function main() {
  const server = await startServerChild();
  try {
    const page = await measureInChild(SELF, ['orders', server.url]);
    console.log(
      `400 MiB orders page: refused after ${page.seconds.toFixed(1)} s, peak RSS ${page.peakRssMb} MB (target < ${TARGET_PEAK_RSS_MB}); ` +
        `exit ${page.ok ? 0 : 1}: ${page.error}`,
    );
    const cursor = await measureInChild(SELF, ['transactions', server.url]);
    console.log(
      `fresh cursors over the same rows: stopped after ${cursor.seconds.toFixed(1)} s and ${cursor.pages} pages (target < ${TARGET_STOP_SECONDS} s), ` +
        `peak RSS ${cursor.peakRssMb} MB; exit ${cursor.ok ? 0 : 1}: ${cursor.error}`,
    );
    const met = page.peakRssMb < TARGET_PEAK_RSS_MB && !page.ok && cursor.seconds < TARGET_STOP_SECONDS && !cursor.ok;
    console.log(met ? 'targets met' : 'TARGETS MISSED');
  } finally {
    server.stop();
  }
}

/** Child: one sync of `stream` against the hostile server with the default config, printed as JSON. */
async function measure(stream, url) {
  const { loadConfig } = await import('../dist/config.js');
  const { createLogger } = await import('../dist/log.js');
  const { createApiClient } = await import('../dist/api/client.js');
  const { openDatabase } = await import('../dist/db/open.js');
  const { runSync } = await import('../dist/sync/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-bench-hostile-'));
  const config = loadConfig({ env: { LOYALTY_BASE_URL: url, LOYALTY_API_KEY: API_KEY, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'silent' } });
  const logger = createLogger({ level: 'silent' });
  const client = createApiClient(config.api, logger);
  const db = openDatabase(config.db.path);
  const started = performance.now();
  let report;
  try {
    report = await runSync({ db, client, config, logger, streams: [stream] });
  } finally {
    await client.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  const [result] = report.streams;
  // resourceUsage().maxRSS is in kilobytes.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify({ seconds, peakRssMb, ok: report.ok, pages: result.pages, error: result.error ?? 'none' })}\n`);
}

/** Starts the hostile server in a child process; resolves to { url, stop }. */
function startServerChild() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`hostile server exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), stop: () => child.stdin.end() }));
  });
}

/**
 * Child: the hostile API on loopback. GET /v2/orders answers a well-formed page holding no orders, padded
 * to 400 MiB, written chunk by chunk as the client reads it (never held whole); GET /v2/transactions answers
 * the same 500 rows every time, each time with a cursor never handed out before.
 */
async function serve() {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const rows = Array.from({ length: 500 }, (_, i) => ({
    id: i + 1,
    customer: { id: 1, merchant_id: 'c1', email: 'c1@example.com' },
    points_approved: 1,
    points_pending: 0,
    created_at: '2026-03-01T12:00:00.000Z',
    resource: 'activity',
  }));
  let cursors = 0;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v2/transactions') {
      cursors += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ transactions: rows, cursor: { prev: null, next: `fresh-${cursors}` } }));
      return;
    }
    if (path !== '/v2/orders') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not here","code":"not_found"}}');
      return;
    }
    void sendHugePage(res, chunk);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

async function sendHugePage(res, chunk) {
  const head = '{"orders":[],"cursor":{"prev":null,"next":null},"padding":"';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(head);
  let closed = false;
  res.once('close', () => (closed = true));
  for (let left = HUGE_PAGE_BYTES - head.length - 2; left > 0 && !closed; left -= chunk.length) {
    if (!res.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) {
      await new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!closed) res.end('"}');
}
