import { STREAM_NAMES } from '../config.js';
import { withWorker } from '../runtime/worker.js';
import { describeStoppedSync, runSync } from '../sync/index.js';
import type { StreamReport } from '../sync/index.js';
import { parseCommandArgs, parseStreamName } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';

const USAGE = `Usage: loyalty-sync sync [--stream NAME]... [--full] [--refresh] [--deep] [--accept-removals]

Pull the streams incrementally into the SQLite mirror. Each page commits with its checkpoint,
so an interrupted sync resumes where it stopped.

A 429, a 5xx or a dropped connection is retried with backoff. An API that cannot be reached at all
(connection refused, no such host, TLS refused) gets a few seconds to come back; then the stream fails,
the remaining streams are skipped, and one line names the address. So are they when the API refuses the
credential (401, or 403 before any stream succeeded). Without LOYALTY_API_KEY nothing is sent: exit 2.

Options:
  --stream NAME  sync only this stream (repeatable): ${STREAM_NAMES.join(', ')}
  --full         forget the checkpoints and re-read everything
  --refresh      re-read the lookback windows (customers, activities, orders) now, even if not due
  --deep         after the passes of a plain sync (every stream's new rows, and the lookback refresh when
                 due; add --refresh to run it now), read orders and activities whole, to the end (a deep
                 refresh): the API cannot say which old ones changed, so this is how a refund or an
                 approval months on is seen, and rows the API no longer has (on no page of the refresh)
                 are marked removed. Orders and activities read whole cover their lookback windows, so
                 their lines say "refreshed". A deep refresh that an interrupted run left unfinished is
                 finished rather than begun again. Without --deep, a sync reads up to
                 sync.deepRefreshPagesPerRun pages of a deep refresh per stream when one is under way or
                 due (every sync.deepRefreshIntervalHours), going on from its checkpoint next time
  --accept-removals
                 confirm a mass removal: without it, an unsubscribe list or a deep refresh that comes back
                 empty, or would mark more than sync.maxRemovedShare of the stored rows removed, fails the
                 stream and marks nothing
  --help         show this help
`;

/** Sync's flags, checked (UsageError), without I/O: run before the state's lease is taken, and by the command. */
export function parseSyncArgs(argv: string[]) {
  const { values } = parseCommandArgs('sync', argv, {
    stream: { type: 'string', multiple: true },
    full: { type: 'boolean' },
    refresh: { type: 'boolean' },
    deep: { type: 'boolean' },
    'accept-removals': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  return { values, help: values.help === true, streams: values.stream?.map(parseStreamName) };
}

/** `sync`: exit 0 when every stream succeeded, else 1 with one line per stream that did not (one in all when the API was unreachable). */
export async function syncCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, streams } = parseSyncArgs(argv);
  if (values.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }

  // The first Ctrl-C (or SIGTERM) stops after the page in flight commits; the next run resumes there.
  const report = await withWorker(ctx, { command: 'sync', createsMirror: true, waitForLock: false }, (deps, signal) =>
    runSync({
      ...deps,
      streams,
      full: values.full === true,
      refresh: values.refresh === true,
      deep: values.deep === true,
      acceptRemovals: values['accept-removals'] === true,
      signal,
      progress: ctx.stderr,
    }),
  );
  for (const stream of report.streams) ctx.stdout.write(`${summary(stream)}\n`);
  const stopped = describeStoppedSync(report, ctx.config.api.baseUrl);
  if (stopped !== null) {
    ctx.stderr.write(`loyalty-sync: ${stopped}.\n`);
    return EXIT_FAILED;
  }
  for (const stream of report.streams) {
    if (stream.status !== 'succeeded') ctx.stderr.write(`loyalty-sync: sync of ${stream.stream} ${reason(stream)}\n`);
  }
  if (report.ledgerError !== undefined) ctx.stderr.write(`loyalty-sync: the points ledger could not be updated: ${report.ledgerError}\n`);
  return report.ok ? EXIT_OK : EXIT_FAILED;
}


function summary(stream: StreamReport): string {
  const removed = stream.removed === undefined ? '' : `, ${stream.removed} removed`;
  const refreshed = stream.refreshed ? ', refreshed' : '';
  const signalled = stream.signalled === undefined ? '' : `, ${stream.signalled.rows} re-read as signalled in ${stream.signalled.pages} pages`;
  const deep = stream.deep === undefined ? '' : `; deep refresh: ${stream.deep.pages} pages, ${stream.deep.updated} updated, ${stream.deep.completed ? `completed, ${stream.deep.removed} removed` : 'goes on at the next sync'}`;
  return `${stream.stream}: ${stream.status}, ${stream.rowsRead} rows read, ${stream.inserted} new, ${stream.updated} updated${removed}, ${stream.pages} pages${refreshed}${signalled}${deep}`;
}

function reason(stream: StreamReport): string {
  if (stream.status === 'interrupted') return 'was interrupted; the next sync resumes it';
  return `failed: ${stream.error ?? 'unknown error'}`;
}
