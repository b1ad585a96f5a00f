// How loyalty-sync holds against a hostile API (issue 20): each case serves a broken answer on loopback,
// runs the real CLI against it in a child process, and prints its figures beside their targets.
// Cases are a list: add one as { name, run } where run() returns the lines to print.
// BENCH_CASES=name1,name2 runs a subset. Run after `npm run build`: node bench/hostile.bench.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const MEMORY_AND_LOOPS = fileURLToPath(new URL('./hostileMemory.bench.mjs', import.meta.url));
const CPU_AT_EXIT = fileURLToPath(new URL('./cpuAtExit.mjs', import.meta.url));
// /proc counts CPU in clock ticks: 100 a second on Linux (getconf CLK_TCK).
const CLOCK_TICKS_PER_SECOND = 100;

const TEN_YEARS = '315360000';

const CASES = [
  {
    // A gateway that answers every request 429 with Retry-After: 315360000 (ten years), with the default
    // config (retry budget api.retry.maxElapsedMs 5 minutes). Before issue 20 the sync never ended: the
    // limiter waited ten years, waking every millisecond (a timer past 2^31-1 ms fires after 1 ms).
    name: 'retry-after-ten-years',
    async run() {
      const sync = await syncAgainst429(TEN_YEARS, ['sync']);
      return [
        `sync against a ten-year Retry-After on every request: exit ${sync.code} after ${sync.seconds.toFixed(1)} s (target < 120 s); ` +
          `${sync.cpuSecondsAfterFirst429.toFixed(2)} CPU s from the first 429 to its exit (target < 1 s), ${sync.cpuSeconds.toFixed(2)} s with startup`,
        `  ${sentenceOf(sync.stderr)}`,
      ];
    },
  },
  {
    // Retry-After: 250 fits the 300 s budget but not api.retry.maxDelayMs (30 s): one stream waits 30 s
    // twice, then gives up once the 250 s asked no longer fit what is left. Shows a real wait costs no CPU.
    name: 'retry-after-capped-waits',
    async run() {
      const sync = await syncAgainst429('250', ['sync', '--stream', 'customers']);
      return [
        `sync --stream customers against Retry-After: 250 on every request: exit ${sync.code} after ${sync.seconds.toFixed(1)} s (two capped 30 s waits); ` +
          `${sync.cpuSecondsAfterFirst429.toFixed(2)} CPU s from the first 429 to its exit (target < 1 s)`,
        `  ${sentenceOf(sync.stderr)}`,
      ];
    },
  },
  {
    // A 400 MiB page and an endless cursor: hostileMemory.bench.mjs measures each sync in a child of its own.
    name: 'memory-and-loops',
    async run() {
      const child = spawn(process.execPath, [MEMORY_AND_LOOPS], { stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
      await new Promise((resolve) => child.on('close', resolve));
      return output.trimEnd().split('\n');
    },
  },
];

/** The command's own sentence among its stderr lines (the JSON lines beside it are logs). */
function sentenceOf(stderr) {
  return stderr.split('\n').find((line) => line.startsWith('loyalty-sync:')) ?? '';
}

/** `loyalty-sync ARGS` against a server answering every request 429 with this Retry-After. */
async function syncAgainst429(retryAfter, args) {
  let cpuAtFirst429;
  let child;
  const server = await serve((_req, res) => {
    cpuAtFirst429 ??= cpuSecondsOf(child.pid);
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter });
    res.end(JSON.stringify({ error: { message: 'Too many requests', code: 'rate_limited' } }));
  });
  try {
    const result = await runCli(args, server.url, (started) => (child = started));
    return { ...result, cpuSecondsAfterFirst429: result.cpuSeconds - (cpuAtFirst429 ?? NaN) };
  } finally {
    await server.close();
  }
}

/** A running process's CPU seconds (user + system) from /proc; NaN where there is no /proc. */
function cpuSecondsOf(pid) {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

const chosen = process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',').map((name) => name.trim()) : CASES.map((c) => c.name);
const unknown = chosen.filter((name) => !CASES.some((c) => c.name === name));
if (unknown.length > 0) {
  console.error(`BENCH_CASES names ${unknown.join(', ')}; expected some of ${CASES.map((c) => c.name).join(', ')}.`);
  process.exit(2);
}
for (const testCase of CASES.filter((c) => chosen.includes(c.name))) {
  console.log(`${testCase.name}:`);
  for (const line of await testCase.run()) console.log(`  ${line}`);
}

/** A loopback HTTP server answering every request with `handler`; resolves to { url, close }. */
async function serve(handler) {
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

/**
 * `loyalty-sync ARGS` against `baseUrl` with the default config and a fresh mirror: its exit code,
 * wall seconds, CPU seconds (user + system, reported by the child itself on fd 3) and stderr.
 * `onSpawn` gets the child process as soon as it is started.
 */
function runCli(args, baseUrl, onSpawn) {
  const dir = mkdtempSync(join(tmpdir(), 'ls-bench-hostile-'));
  const env = { PATH: process.env.PATH, LOYALTY_API_KEY: 'bench', LOYALTY_BASE_URL: baseUrl, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'error' };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CPU_AT_EXIT, CLI, ...args], { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    onSpawn(child);
    let stderr = '';
    let usage = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.stdio[3].setEncoding('utf8').on('data', (chunk) => (usage += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      const cpu = usage === '' ? { user: NaN, system: NaN } : JSON.parse(usage);
      resolve({ code, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, stderr: stderr.trim() });
    });
  });
}
