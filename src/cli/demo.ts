import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from '../config.js';
import type { Db } from '../db/open.js';
import { listDrift, type DriftEntry } from '../drift/index.js';
import { LATEST_MANIFEST, MANIFEST_DIR } from '../export/layout.js';
import { readManifest } from '../export/manifest.js';
import { createLogger, type Logger } from '../log.js';
import { deriveKey, enqueueJob, validatePayload, type JobKind } from '../queue/index.js';
import { runJob, type JobOutcome } from '../runtime/jobs.js';
import { withWorker } from '../runtime/worker.js';
import type { StateMetricsFacts } from '../metrics/facts.js';
import { currentHour, startSimulator, type SimulatorHandle } from '../simulator/index.js';
import type { RestoreReport } from '../state/restoreMirror.js';
import { parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { runWithState } from './withState.js';

const HELP = `Usage: loyalty-sync demo [--dir DIR] [--size tiny|small|medium] [--stateless]

The zero-config main job: starts the built-in API simulator on a free loopback port, syncs every
stream into DIR/mirror.db, queues and pushes a few example writes, exports CSV and Parquet under
DIR/exports, and prints where everything is. Needs no key, no config and no network.
DIR defaults to ./demo-data; a second run reuses it (an incremental sync against fresh simulated data).

--stateless  tries the mode of jobs without a volume on this machine: the state is kept in the
             folder DIR/state (state.url=file://DIR/state), and the job runs twice, each time in
             a fresh folder (DIR/run-1, DIR/run-2) as a container gets one. The second run restores
             the mirror from the state and syncs only what changed since the first.

The demo ignores state.url (LOYALTY_STATE_URL) and every other setting: its program is a simulator
that lives as long as the demo does. Only --stateless keeps a state, a new one in DIR/state each time.
`;

const SIZES = ['tiny', 'small', 'medium'] as const;
/** Every simulated program has rewards 1 to 5; reward 1 costs 100 points. */
const EXAMPLE_REWARD_ID = 1;
/**
 * The claim's cost with room to spare, so the example customer can pay for it; low enough that a `tiny`
 * program, where order points are still pending for months, has such a customer.
 */
const EXAMPLE_POINTS_NEEDED = 400;
/** `simulate --seed` with this seed serves the demo's program again, with the same merchant ids and keys. */
const DEMO_SEED = 2026;
/** Simulated hours between the two runs of `--stateless`: enough for new customers, orders and points to sync. */
const HOURS_BETWEEN_RUNS = 6;

interface DemoRun {
  ok: boolean;
  writer: ExampleCustomer | undefined;
}

export async function demoCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('demo', argv, {
    dir: { type: 'string', default: 'demo-data' },
    size: { type: 'string', default: 'medium' },
    stateless: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  const size = SIZES.find((name) => name === values.size);
  if (!size) {
    ctx.stderr.write(`loyalty-sync: --size is "${values.size}"; expected one of ${SIZES.join(', ')}.\n`);
    return 2;
  }
  const dir = resolve(values.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const out = (line: string) => ctx.stdout.write(`${line}\n`);

  const sim = await startSimulator({ size, seed: DEMO_SEED, epoch: currentHour(), clock: Date.now });
  try {
    out(`simulator: ${sim.url} (size ${size})`);
    if (values.stateless) return await statelessDemo(ctx, sim, dir, out);
    const config = demoConfig(ctx, sim, dir);
    const { ok, writer } = await demoRun({ ...ctx, config, logger: demoLogger(ctx, config) }, out);
    out('');
    out(`mirror:    ${config.db.path}`);
    out(`exports:   ${config.export.dir}/<table>/dt=YYYY-MM-DD/`);
    out(`manifest:  ${config.export.dir}/manifests/latest.json`);
    out('');
    out('try:');
    out(`  sqlite3 ${config.db.path} "SELECT tier_name, count(*), sum(points_approved) FROM customers GROUP BY 1 ORDER BY 2 DESC"`);
    // One run's file, never a glob over dt=*: every retained run holds every row again, and CSV shares the folder.
    const transactions = await completeRunFile(config.export.dir, 'transactions', 'parquet');
    if (transactions !== null) out(`  duckdb -c "SELECT date_trunc('day', created_at) AS day, sum(points_approved) FROM '${transactions}' GROUP BY 1 ORDER BY 1 DESC LIMIT 7"`);
    out(`  npx loyalty-sync status   (with LOYALTY_DB=${config.db.path})`);
    if (writer !== undefined) {
      out('');
      out('queue writes of your own, against the same simulated program (start it first, in another terminal):');
      for (const line of exampleWriteCommands(writer, config.db.path, size, sim.keys.full)) out(`  ${line}`);
    }
    return ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await sim.close();
  }
}

/** The demo's own settings: the simulator, the mirror and exports in `dir`, and a state at `stateUrl` when given. */
function demoConfig(ctx: CommandContext, sim: SimulatorHandle, dir: string, stateUrl = ''): Config {
  return loadConfig({
    env: { LOYALTY_API_KEY: sim.keys.full, LOG_LEVEL: ctx.config.log.level === 'info' ? 'warn' : ctx.config.log.level },
    // The simulator is local: no reason to hold the worker to a production rate limit.
    overrides: {
      api: { baseUrl: sim.url, requestsPerSecond: 1000, burst: 100 },
      db: { path: `${dir}/mirror.db` },
      export: { dir: `${dir}/exports` },
      state: { url: stateUrl },
    },
  });
}

/**
 * Left at its default, the demo's log shows warnings only, and no schema drift: the simulator's program drifts
 * from the spec on purpose, and a newcomer took the warning, the first line on the screen, for an error.
 * demoRun says it in a sentence instead.
 */
function demoLogger(ctx: CommandContext, config: Config): Logger {
  const quiet = ctx.config.log.level === 'info';
  return createLogger({ level: config.log.level, mute: quiet ? (fields) => 'drift' in fields : undefined });
}

/** One run of the main job: sync, the example writes queued and pushed, an export; each step's line printed, then any new schema drift. */
async function demoRun(ctx: CommandContext, out: (line: string) => void): Promise<DemoRun> {
  const startedAt = new Date().toISOString();
  const { results, writer, drift } = await withWorker(ctx, { command: 'demo', createsMirror: true, waitForLock: false }, async (deps, signal) => {
    const outcomes: JobOutcome[] = [];
    const step = async (job: 'sync' | 'push' | 'export') => {
      const outcome = await runJob(job, deps, signal);
      out(`${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.summary}`);
      outcomes.push(outcome);
    };
    await step('sync');
    out(`queued ${queueExampleWrites(deps.db)} example writes (points, a review approval, an order)`);
    await step('push');
    await step('export');
    return { results: outcomes, writer: exampleCustomer(deps.db), drift: listDrift(deps.db).filter((entry) => entry.first_seen_at >= startedAt) };
  });
  if (drift.length > 0) out(describeDrift(drift));
  return { ok: results.every((outcome) => outcome.ok), writer };
}

/** What the sync met that the spec does not list, in one sentence that says it is expected and where it went. */
function describeDrift(entries: readonly DriftEntry[]): string {
  const what = entries.map(({ stream, kind, path, example }) => (kind === 'field' ? `${stream} field ${path}` : kind === 'enum_value' ? `${stream} ${path} value ${example}` : `${stream} ${path} values of another type`));
  const listed = what.length > 3 ? `${what.slice(0, 3).join(', ')} and ${what.length - 3} more` : what.join(', ');
  return `note: the simulated API sends what its spec does not list (${listed}), as live APIs do; the mirror keeps it in raw and schema_drift, and \`status\` lists it: nothing failed.`;
}

/**
 * `--stateless`: the job twice, each time in a fresh folder, with its state in a folder of the demo
 * (state.url=file://), as a scheduled container keeps it in a bucket. The figures show the second run
 * restoring the first's mirror and syncing incrementally.
 */
async function statelessDemo(ctx: CommandContext, sim: SimulatorHandle, dir: string, out: (line: string) => void): Promise<number> {
  const stateFolder = join(dir, 'state');
  const stateUrl = pathToFileURL(stateFolder).href;
  // A new state each time: the simulator of an earlier demo, on another port, was another program.
  for (const old of [stateFolder, join(dir, 'run-1'), join(dir, 'run-2')]) rmSync(old, { recursive: true, force: true });
  out(`state:     ${stateUrl} (state.url); each run starts in a fresh folder, as a container does`);
  const requests: number[] = [];
  for (const run of [1, 2]) {
    if (run === 2) sim.tick(HOURS_BETWEEN_RUNS);
    const runDir = join(dir, `run-${run}`);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const config = demoConfig(ctx, sim, runDir, stateUrl);
    out('');
    out(`run ${run}: ${runDir}`);
    const heard = new HeardState();
    const before = sim.stats().requests;
    const runCtx: CommandContext = { ...ctx, config, logger: demoLogger(ctx, config) };
    let ok = false;
    await runWithState(
      'demo',
      'wait',
      async (stateCtx) => {
        stateCtx.stateFacts?.attach(heard);
        ok = (await demoRun(stateCtx, out)).ok;
        return ok ? EXIT_OK : EXIT_FAILED;
      },
      runCtx,
      true,
    );
    if (!ok) return EXIT_FAILED;
    requests.push(sim.stats().requests - before);
    const restored = heard.restore === null ? 'started with no mirror and no state: a whole first sync' : `restored the mirror from the state (${heard.restore.rows} rows from ${heard.restore.bytes} bytes in ${heard.restore.dumps} dump(s))`;
    out(`run ${run}: ${restored}; ${requests[run - 1]} requests to the API; saved ${heard.savedBytes} bytes to the state`);
  }
  out('');
  out(`the second run sent ${requests[1]} requests to the API, the first ${requests[0]}: it carried on where the first stopped.`);
  out(`state:     ${stateFolder} (its log under state/log/, its dumps under state/dumps/)`);
  out(`try:       LOYALTY_STATE_URL=${stateUrl} LOYALTY_DB=${join(dir, 'run-2', 'mirror.db')} npx loyalty-sync status`);
  return EXIT_OK;
}

/** What the state told during one run: its restore and the bytes of its saves. */
class HeardState implements StateMetricsFacts {
  restore: RestoreReport | null = null;
  savedBytes = 0;

  restored(report: RestoreReport): void {
    this.restore = report;
  }

  saved(save: { bytes: number }): void {
    this.savedBytes += save.bytes;
  }

  leaseSkipped(): void {}

  lastSaveRead(): void {}
}

/** The file of `table` in `format` that manifests/latest.json (the newest complete run) lists; null when there is none. */
async function completeRunFile(exportDir: string, table: string, format: string): Promise<string | null> {
  const manifest = await readManifest(join(exportDir, MANIFEST_DIR, LATEST_MANIFEST)).catch(() => null);
  const file = manifest?.files.find((entry) => entry.table === table && entry.format === format);
  return file === undefined ? null : join(exportDir, file.path);
}

/** A few writes a user of the queue would make, keyed so that a second demo run queues nothing twice. */
function queueExampleWrites(db: Db): number {
  const customer = db.prepare('SELECT merchant_id FROM customers WHERE blocked = 0 ORDER BY id LIMIT 1').pluck().get() as string | undefined;
  const email = db.prepare('SELECT email FROM customers WHERE blocked = 0 ORDER BY id LIMIT 1').pluck().get() as string | undefined;
  const writes: Array<[JobKind, Record<string, unknown>]> = [];
  if (customer) writes.push(['add_points', { customer_merchant_id: customer, points: 250, reason: 'demo: goodwill credit' }]);
  writes.push(['update_review', { platform: 'custom', merchant_id: 'rev-1000', status: 'approved' }]);
  if (customer && email) {
    writes.push([
      'create_order',
      { merchant_id: 'demo-order-1', customer_id: customer, customer_email: email, total: '42.50', total_shipping: '4.90', total_paid: '42.50', payment_status: 'paid' },
    ]);
  }
  let queued = 0;
  for (const [kind, raw] of writes) {
    const validation = validatePayload(kind, raw);
    if (!validation.ok) throw new Error(`demo write ${kind} is invalid: ${JSON.stringify(validation.problems)}`);
    const { created } = enqueueJob(db, { kind, payload: validation.payload, idempotencyKey: deriveKey(kind, validation.payload), source: 'demo' }, new Date());
    if (created) queued += 1;
  }
  return queued;
}

interface ExampleCustomer {
  merchantId: string;
  email: string;
}

/** A customer of the mirror the simulator lets earn and spend points, with enough of them for the example claim. */
function exampleCustomer(db: Db): ExampleCustomer | undefined {
  return db
    .prepare('SELECT merchant_id AS merchantId, email FROM customers WHERE blocked = 0 AND email IS NOT NULL AND points_approved >= ? ORDER BY id LIMIT 1')
    .get(EXAMPLE_POINTS_NEEDED) as ExampleCustomer | undefined;
}

/**
 * Shell lines that queue and push one write of each common kind for `customer`, so a newcomer's first
 * writes succeed. They go to `simulate` with the demo's seed and size: the same customers, reviews,
 * rewards and keys as the simulator the demo ran, which stopped when it ended. The key printed is that
 * simulator's, not a credential of any real program.
 */
function exampleWriteCommands(customer: ExampleCustomer, dbPath: string, size: string, simulatorKey: string): string[] {
  const cli = 'npx loyalty-sync';
  return [
    `${cli} simulate --seed ${DEMO_SEED} --size ${size}   # in another terminal: serves it on http://127.0.0.1:8787`,
    `export LOYALTY_BASE_URL=http://127.0.0.1:8787 LOYALTY_API_KEY=${simulatorKey} LOYALTY_DB=${dbPath}`,
    `${cli} queue add-points --customer ${customer.merchantId} --points 100 --reason "Goodwill for late delivery"`,
    `${cli} queue claim-reward --customer ${customer.merchantId} --reward-id ${EXAMPLE_REWARD_ID}`,
    `${cli} queue update-review --platform custom --merchant-id rev-1001 --status approved`,
    `${cli} queue create-order --merchant-id demo-order-2 --customer-id ${customer.merchantId} --customer-email ${customer.email} --total 19.90 --total-shipping 0.00 --total-paid 19.90 --payment-status paid`,
    `${cli} push`,
    `${cli} queue list`,
  ];
}
