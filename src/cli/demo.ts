import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import type { Db } from '../db/open.js';
import { createLogger } from '../log.js';
import { deriveKey, enqueueJob, validatePayload, type JobKind } from '../queue/index.js';
import { runJob, type JobOutcome } from '../runtime/jobs.js';
import { withWorker } from '../runtime/worker.js';
import { currentHour, startSimulator } from '../simulator/index.js';
import { parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';

const HELP = `Usage: loyalty-sync demo [--dir DIR] [--size tiny|small|medium]

The zero-config main job: starts the built-in API simulator on a free loopback port, syncs every
stream into DIR/mirror.db, queues and pushes a few example writes, exports CSV and Parquet under
DIR/exports, and prints where everything is. Needs no key, no config and no network.
DIR defaults to ./demo-data; a second run reuses it (an incremental sync against fresh simulated data).
`;

const SIZES = ['tiny', 'small', 'medium'] as const;

export async function demoCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('demo', argv, {
    dir: { type: 'string', default: 'demo-data' },
    size: { type: 'string', default: 'medium' },
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

  const sim = await startSimulator({ size, seed: 2026, epoch: currentHour() });
  try {
    out(`simulator: ${sim.url} (size ${size})`);
    const config = loadConfig({
      env: { LOYALTY_API_KEY: sim.keys.full, LOG_LEVEL: ctx.config.log.level === 'info' ? 'warn' : ctx.config.log.level },
      // The simulator is local: no reason to hold the worker to a production rate limit.
      overrides: {
        api: { baseUrl: sim.url, requestsPerSecond: 1000, burst: 100 },
        db: { path: `${dir}/mirror.db` },
        export: { dir: `${dir}/exports` },
      },
    });
    const logger = createLogger({ level: config.log.level });
    const demoCtx: CommandContext = { ...ctx, config, logger };

    const outcomes = await withWorker(demoCtx, { command: 'demo', createsMirror: true, waitForLock: false }, async (deps, signal) => {
      const results: JobOutcome[] = [];
      const step = async (job: 'sync' | 'push' | 'export') => {
        const outcome = await runJob(job, deps, signal);
        out(`${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.summary}`);
        results.push(outcome);
      };
      await step('sync');
      out(`queued ${queueExampleWrites(deps.db)} example writes (points, a review approval, an order)`);
      await step('push');
      await step('export');
      return results;
    });

    const ok = outcomes.every((outcome) => outcome.ok);
    out('');
    out(`mirror:    ${config.db.path}`);
    out(`exports:   ${config.export.dir}/<table>/dt=YYYY-MM-DD/`);
    out(`manifest:  ${config.export.dir}/manifests/latest.json`);
    out('');
    out('try:');
    out(`  sqlite3 ${config.db.path} "SELECT tier_name, count(*), sum(points_approved) FROM customers GROUP BY 1 ORDER BY 2 DESC"`);
    out(`  duckdb -c "SELECT date_trunc('day', created_at) AS day, sum(points_approved) FROM '${config.export.dir}/transactions/*/*.parquet' GROUP BY 1 ORDER BY 1 DESC LIMIT 7"`);
    out(`  npx loyalty-sync status   (with LOYALTY_DB=${config.db.path})`);
    return ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await sim.close();
  }
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
