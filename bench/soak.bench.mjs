// Soak: a long-lived `run` keeps its memory small and flat. The built CLI runs `run` as a child process
// with fast schedules (sync and push every 5 s, export every 10 s) against the `medium` simulator, while
// this process queues a few points jobs every 5 s for the push to send, and, as Prometheus and the
// kubelet would, scrapes /metrics every 15 s and probes /healthz every 10 s. Every second or so it samples the
// child's RSS (/proc/PID/status VmRSS) and open file descriptors (/proc/PID/fd), then prints the curve,
// the peak and the growth over the last 10 minutes (the last third of a shorter run).
// Targets: growth over that window under 5%, peak RSS under 300 MB.
// SOAK_MINUTES sets the length (default 30); SOAK_SAMPLE_SECONDS the sampling interval (default 1.3: off
// the schedules' 5-second beat, so the samples fall on every phase of the jobs rather than on the same one).
// `run` gets the memory settings it has in the container (the MALLOC_* and NODE_OPTIONS of the
// Dockerfile's last stage and of the Deployment, read from them); SOAK_MALLOC=glibc runs it with none.
// The bench fails (exit 1) when a target is missed, `run` stops early or a scrape or probe fails.
// Run after `npm run build`: node bench/soak.bench.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const DOCKERFILE = fileURLToPath(new URL('../Dockerfile', import.meta.url));
const DEPLOYMENT = fileURLToPath(new URL('../deploy/kubernetes/deployment.yaml', import.meta.url));
const MINUTES = positiveNumber('SOAK_MINUTES', 30);
const SAMPLE_SECONDS = positiveNumber('SOAK_SAMPLE_SECONDS', 1.3);
const SCHEDULE = { timezone: 'UTC', sync: '*/5 * * * * *', push: '*/5 * * * * *', refresh: '0 3 * * *', export: '*/10 * * * * *' };
/** Points jobs queued per push interval: enough for every push to send something, few enough that the mirror barely grows. */
const JOBS_PER_INTERVAL = 3;
const TARGET_GROWTH = 0.05;
const TARGET_PEAK_MB = 300;
const GROWTH_WINDOW_SECONDS = Math.min(10 * 60, (MINUTES * 60) / 3);
/** Rows of the printed curve: one per stretch of the run, showing the highest and lowest sample in it. */
const CURVE_ROWS = 30;
const SCRAPE_SECONDS = 15;
const PROBE_SECONDS = 10;

if (process.argv[2] === '--simulator') await serveSimulator();
else await main();

function positiveNumber(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!(value > 0)) {
    console.error(`${name} is "${text}"; expected a positive number of ${name.endsWith('MINUTES') ? 'minutes' : 'seconds'}.`);
    process.exit(2);
  }
  return value;
}

/** Child: the `medium` simulator, its address, key and some customers printed as one JSON line; stops when stdin closes. */
async function serveSimulator() {
  const { startSimulator } = await import('../dist/simulator/index.js');
  const sim = await startSimulator({ seed: 1, size: 'medium', rateLimit: null });
  const customers = sim.truth('customers').slice(0, 50).map((customer) => customer.merchant_id);
  process.stdout.write(`${JSON.stringify({ url: sim.url, key: sim.keys.full, customers })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void sim.close().then(() => process.exit(0)));
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-soak-'));
  const sim = await startSimulatorChild();
  const configFile = join(dir, 'soak.json');
  writeFileSync(configFile, JSON.stringify({ schedule: SCHEDULE, export: { retainRuns: 3 } }));
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MALLOC_') && name !== 'NODE_OPTIONS')),
    LOYALTY_CONFIG: configFile,
    LOYALTY_BASE_URL: sim.url,
    LOYALTY_API_KEY: sim.key,
    LOYALTY_DB: join(dir, 'mirror.db'),
    LOYALTY_EXPORT_DIR: join(dir, 'exports'),
    LOG_LEVEL: 'info',
    // As in the image, which serves the metrics; port 0 takes a free one, read from the log.
    LOYALTY_METRICS_LISTEN: '127.0.0.1:0',
    ...memoryEnv(),
  };
  const run = spawn(process.execPath, [CLI, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { jobs, served } = readLog(run);
  const http = { scrapes: 0, probes: 0, failures: 0, lastFailure: '' };
  const poll = (path, everySeconds, count) =>
    setInterval(() => {
      served.then(async (base) => {
        try {
          const response = await fetch(`${base}${path}`);
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
          http[count] += 1;
        } catch (error) {
          http.failures += 1;
          http.lastFailure = error.message;
        }
      });
    }, everySeconds * 1000);
  const pollers = [poll('/metrics', SCRAPE_SECONDS, 'scrapes'), poll('/healthz', PROBE_SECONDS, 'probes')];
  // run logs to stderr: keep only its tail, to say why it exited.
  let stderr = '';
  run.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
  const exited = new Promise((resolve) => run.on('exit', (code, signal) => resolve(code ?? signal)));

  const samples = [];
  const started = Date.now();
  const end = started + MINUTES * 60_000;
  let queue = null;
  let queued = 0;
  let earlyExit = null;
  exited.then((code) => {
    if (!run.killed) earlyExit = code;
  });
  const settings = Object.entries(memoryEnv()).map(([name, value]) => `${name}=${value}`).join(' ') || 'none (defaults)';
  console.log(`soak: run (sync and push every 5 s, export every 10 s, /metrics scraped every ${SCRAPE_SECONDS} s) against the medium simulator for ${MINUTES} min, sampling every ${SAMPLE_SECONDS} s; memory settings: ${settings}`);
  try {
    while (Date.now() < end && earlyExit === null) {
      const sample = sampleProcess(run.pid);
      if (sample === null) break;
      const seconds = (Date.now() - started) / 1000;
      samples.push({ seconds, ...sample });
      // The mirror exists once `run` has started; queue through it from here on, as `queue add-points` would.
      if (seconds >= 10) {
        queue ??= await openQueue(env.LOYALTY_DB);
        // JOBS_PER_INTERVAL every 5 s on average, whatever the sampling interval.
        queued += queue.add(sim.customers, Math.floor(((seconds - 10) / 5) * JOBS_PER_INTERVAL) - queued);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_SECONDS * 1000, Math.max(0, end - Date.now()))));
    }
  } finally {
    pollers.forEach(clearInterval);
    queue?.close();
    run.kill('SIGTERM');
    const code = await exited;
    sim.stop();
    rmSync(dir, { recursive: true, force: true });
    if (code !== 0) console.log(`soak: run exited with ${code}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
    if (earlyExit !== null) process.exitCode = 1;
  }
  report(samples, jobs, queued, http);
}

/**
 * The memory settings a `run` in the container gets: the MALLOC_* variables and NODE_OPTIONS of the
 * image's runtime stage (its last FROM) and of the Deployment; none with SOAK_MALLOC=glibc.
 */
function memoryEnv() {
  if (process.env.SOAK_MALLOC === 'glibc') return {};
  const runtimeStage = readFileSync(DOCKERFILE, 'utf8').split(/^FROM /m).at(-1);
  const image = [...runtimeStage.matchAll(/\b(MALLOC_\w+|NODE_OPTIONS)=(\S+)/g)].map((match) => [match[1], match[2]]);
  const deployment = [...readFileSync(DEPLOYMENT, 'utf8').matchAll(/- name: (MALLOC_\w+|NODE_OPTIONS)\s+value: "?([^"\n]+)"?/g)].map((match) => [match[1], match[2].trim()]);
  return Object.fromEntries([...image, ...deployment]);
}

/** RSS in MB and the number of open file descriptors of the process `pid`; null once it is gone. */
function sampleProcess(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
    return { rssMb: rssKb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Reads `run`'s JSON log lines (on its stderr): each job's runs counted by outcome, and the metrics server's address
 * (`served`, a promise) once it is listening.
 */
function readLog(child) {
  const counts = {};
  let listening;
  const served = new Promise((resolve) => (listening = resolve));
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const record = JSON.parse(line);
    if (typeof record.port === 'number' && typeof record.host === 'string') listening(`http://${record.host}:${record.port}`);
    // A job in flight when the bench stops `run` ends as failed ("received SIGTERM"): not a finding.
    if (child.signalCode !== null || child.killed) return;
    if (typeof record.job !== 'string' || typeof record.ok !== 'boolean' || record.finishedAt === undefined) return;
    const entry = (counts[record.job] ??= { ok: 0, failed: 0, lastFailure: '' });
    if (record.ok) entry.ok += 1;
    else {
      entry.failed += 1;
      entry.lastFailure = record.msg;
    }
  });
  return { jobs: counts, served };
}

/** Queues points jobs straight into the mirror's write queue, round-robin over `customers`. */
async function openQueue(dbPath) {
  const { openDatabase } = await import('../dist/db/open.js');
  const { enqueueJob } = await import('../dist/queue/index.js');
  const db = openDatabase(dbPath);
  let next = 0;
  return {
    add(customers, count) {
      for (let i = 0; i < count; i += 1, next += 1) {
        const payload = { customer_merchant_id: customers[next % customers.length], points: 1, reason: 'soak' };
        enqueueJob(db, { kind: 'add_points', payload, idempotencyKey: `soak-${process.pid}-${next}`, source: 'soak bench' }, new Date());
      }
      return count;
    },
    close: () => db.close(),
  };
}

function report(samples, jobs, queued, http) {
  if (samples.length < 3) {
    console.log('soak: too few samples to report');
    process.exitCode = 1;
    return;
  }
  printCurve(samples);
  const last = samples.at(-1).seconds;
  const window = samples.filter((sample) => sample.seconds >= last - GROWTH_WINDOW_SECONDS);
  const growth = trendGrowth(window);
  const peak = samples.reduce((best, sample) => (sample.rssMb > best.rssMb ? sample : best));
  const fds = samples.map((sample) => sample.fds);
  const windowFds = window.map((sample) => sample.fds);
  const jobLine = Object.entries(jobs)
    .map(([job, c]) => `${job} ${c.ok} ok${c.failed ? `, ${c.failed} failed (last: ${c.lastFailure})` : ''}`)
    .join('; ');
  console.log(`soak: jobs finished          ${jobLine || 'none'}; ${queued} points jobs queued`);
  console.log(`soak: served                 ${http.scrapes} scrapes of /metrics, ${http.probes} probes of /healthz${http.failures ? `, ${http.failures} failed (last: ${http.lastFailure})` : ', none failed'}`);
  console.log(`soak: RSS first sample       ${samples[0].rssMb.toFixed(0)} MB; last ${samples.at(-1).rssMb.toFixed(0)} MB`);
  console.log(`soak: peak RSS               ${peak.rssMb.toFixed(0)} MB at ${formatTime(peak.seconds)} (target < ${TARGET_PEAK_MB} MB)`);
  console.log(
    `soak: growth, last ${formatTime(GROWTH_WINDOW_SECONDS)}   ${(growth * 100).toFixed(1)}% (least-squares trend of ${window.length} samples; window mean ${mean(window.map((s) => s.rssMb)).toFixed(0)} MB, min ${Math.min(...window.map((s) => s.rssMb)).toFixed(0)}, max ${Math.max(...window.map((s) => s.rssMb)).toFixed(0)}; target < ${TARGET_GROWTH * 100}%)`,
  );
  console.log(`soak: open file descriptors  ${Math.min(...fds)}-${Math.max(...fds)} over the run, ${Math.min(...windowFds)}-${Math.max(...windowFds)} in the last ${formatTime(GROWTH_WINDOW_SECONDS)}`);
  const met = growth < TARGET_GROWTH && peak.rssMb < TARGET_PEAK_MB;
  console.log(`soak: targets ${met ? 'met' : 'NOT met'}`);
  if (!met || http.failures > 0) process.exitCode = 1;
}

/**
 * Growth of RSS across the window, from the least-squares line through its samples: the jobs make RSS
 * swing between runs, and a line through all of them tells a drift apart from where the last swing ended.
 */
function trendGrowth(window) {
  const xs = window.map((sample) => sample.seconds);
  const ys = window.map((sample) => sample.rssMb);
  const mx = mean(xs);
  const my = mean(ys);
  const slope = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i] - my), 0) / xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  const first = my + slope * (xs[0] - mx);
  const lastValue = my + slope * (xs.at(-1) - mx);
  return (lastValue - first) / first;
}

/** The curve as rows of time, RSS range and descriptors, with a bar for the stretch's highest RSS. */
function printCurve(samples) {
  const perRow = Math.max(1, Math.ceil(samples.length / CURVE_ROWS));
  const top = Math.max(...samples.map((sample) => sample.rssMb));
  console.log('soak: time    RSS MB (min-max)  fds  peak RSS of the stretch');
  for (let i = 0; i < samples.length; i += perRow) {
    const stretch = samples.slice(i, i + perRow);
    const low = Math.min(...stretch.map((s) => s.rssMb));
    const high = Math.max(...stretch.map((s) => s.rssMb));
    const fds = Math.max(...stretch.map((s) => s.fds));
    const bar = '#'.repeat(Math.max(1, Math.round((high / top) * 40)));
    console.log(`soak: ${formatTime(stretch[0].seconds).padStart(6)}  ${`${low.toFixed(0)}-${high.toFixed(0)}`.padStart(16)}  ${String(fds).padStart(3)}  ${bar}`);
  }
}

function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function formatTime(seconds) {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

function startSimulatorChild() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--simulator'], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`simulator child exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ ...JSON.parse(line), stop: () => child.stdin.end() }));
  });
}
