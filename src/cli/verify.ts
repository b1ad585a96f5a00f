import { STREAM_NAMES } from '../config.js';
import { createApiClient } from '../api/client.js';
import { openDatabase } from '../db/open.js';
import { installShutdown } from '../runtime/shutdown.js';
import { withWorker } from '../runtime/worker.js';
import { runVerify, type VerifyOptions, type VerifyReport } from '../verify/index.js';
import { renderLedgerCheck, renderVerifyReport } from '../verify/renderReport.js';
import { reconcileAndRecord } from '../ledger/reconcileAndRecord.js';
import { parseCommandArgs, parseIntegerFlag, parseStreamName } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';

/** Sampled mode's budget when --requests is not given. */
export const DEFAULT_VERIFY_REQUESTS = 50;

const USAGE = `Usage: loyalty-sync verify [--stream NAME]... [--full | --requests N] [--repair [--accept-removals]] [--json]
       loyalty-sync verify --ledger [--json]

Show that the mirror equals the API, and repair it where it does not. Per stream, rows are
missing (the API has them, the mirror does not), extra (the mirror has them, the API does not)
or stale (the stored record differs). A difference is pending when the row changed upstream after
the last pass of the sync that re-reads it: the report names that pass (next sync, next refresh or
next deep refresh) and when it is due. Every other difference is a defect, and only defects fail.

By default a sample is compared within a budget of requests (through the same rate limit as
the sync): the newest page of each stream, the whole unsubscribe list when it fits, and random
id windows; each stream reports an upper bound of the share of rows missing, at 95% confidence.

Options:
  --stream NAME  verify only this stream (repeatable): ${STREAM_NAMES.join(', ')}
  --full         compare every row of the API with the mirror (no budget)
  --requests N   sampled mode's budget of requests, retries included (default ${DEFAULT_VERIFY_REQUESTS})
  --repair       store missing and stale rows as the sync does (defects and pending ones alike,
                 except rows the next sync reads as new), mark extras with _removed_at (never
                 deleted), and correct a watermark that extras had pushed up;
                 takes the writer lock, so it fails while another loyalty-sync holds the mirror;
                 extras that are all of a table's rows, or more than sync.maxRemovedShare of them,
                 are not marked (the stream fails) unless --accept-removals confirms them
  --accept-removals
                 with --repair: confirm a mass removal
  --ledger       only reconcile the mirror: for every customer, their transactions must add up to the
                 points_approved and points_pending the customers stream reports (no request is sent);
                 a difference a read in flight explains is pending (the next sync brings it, such as a
                 transaction the API counts but lists only later), any other is a defect; customers known
                 only from transactions are checked too; every verify runs this after its streams
  --json         print one JSON document instead of the table
  --help         show this help

Exit codes: 0 no defect remains (none found, or all repaired; pending differences do not count);
1 defects remain, or the API failed; 2 bad usage.
`;

type VerifySettings = Pick<VerifyOptions, 'streams' | 'mode' | 'requests' | 'repair' | 'acceptRemovals'>;

/** Verify's flags, checked (UsageError), without I/O: run before the state's lease is taken, and by the command. */
export function parseVerifyArgs(argv: string[]): { help: true } | { help: false; json: boolean; ledger: true } | { help: false; json: boolean; ledger: false; settings: VerifySettings } {
  const { values } = parseCommandArgs('verify', argv, {
    stream: { type: 'string', multiple: true },
    full: { type: 'boolean' },
    requests: { type: 'string' },
    repair: { type: 'boolean' },
    'accept-removals': { type: 'boolean' },
    json: { type: 'boolean' },
    ledger: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  const json = values.json === true;
  if (values.help) return { help: true };
  if (values.ledger) {
    const other = (['stream', 'full', 'requests', 'repair', 'accept-removals'] as const).find((name) => values[name] !== undefined);
    if (other !== undefined) throw new UsageError(`verify: --ledger reconciles the mirror alone and takes no --${other}; give --ledger [--json].`);
    return { help: false, json, ledger: true };
  }
  if (values.full && values.requests !== undefined) {
    throw new UsageError('verify: --full compares every row and takes no budget; give either --full or --requests N, not both.');
  }
  if (values['accept-removals'] && !values.repair) {
    throw new UsageError('verify: --accept-removals confirms what --repair marks removed; give it with --repair.');
  }
  const requests = values.requests === undefined ? DEFAULT_VERIFY_REQUESTS : parseIntegerFlag('requests', values.requests, 1);
  const streams = values.stream?.map(parseStreamName);
  const settings: VerifySettings = { streams, mode: values.full ? 'full' : 'sample', requests, repair: values.repair === true, acceptRemovals: values['accept-removals'] === true };
  return { help: false, json, ledger: false, settings };
}

export async function verifyCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseVerifyArgs(argv);
  if (args.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }
  const json = args.json;
  if (args.ledger) return verifyLedger(ctx, json);
  const settings = args.settings;

  // Logs go to stderr, so with --json stdout holds the document alone.
  const report = settings.repair
    ? await withWorker(ctx, { command: 'verify --repair', createsMirror: false, waitForLock: false }, (deps, signal) => runVerify({ ...deps, ...settings, signal }))
    : await verifyWithoutLock(ctx, settings);
  ctx.stdout.write(json ? `${JSON.stringify(report)}\n` : renderVerifyReport(report));
  return report.ok ? EXIT_OK : EXIT_FAILED;
}

/** `verify --ledger`: the reconciliation alone, from the mirror, recorded for `status` and the metric. */
function verifyLedger(ctx: CommandContext, json: boolean): number {
  const db = openDatabase(ctx.config.db.path, { mustExist: true });
  try {
    const check = reconcileAndRecord(db, ctx.config.sync, new Date(), ctx.logger);
    ctx.stdout.write(json ? `${JSON.stringify({ ledger: check })}\n` : renderLedgerCheck(check));
    return check.defects.length === 0 ? EXIT_OK : EXIT_FAILED;
  } finally {
    db.close();
  }
}

/** A plain verify only reads the mirror (and records its run), so it runs beside \`run\` without the writer lock. */
async function verifyWithoutLock(ctx: CommandContext, settings: VerifySettings): Promise<VerifyReport> {
  const shutdown = installShutdown(ctx.logger, ctx.config.runtime.shutdownDeadlineSeconds * 1000);
  const db = openDatabase(ctx.config.db.path, { mustExist: true });
  const client = createApiClient(ctx.config.api, ctx.logger);
  try {
    return await runVerify({ db, client, config: ctx.config, logger: ctx.logger, ...settings, signal: shutdown.signal });
  } finally {
    await client.close();
    db.close();
    shutdown.dispose();
  }
}
