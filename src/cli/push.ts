import { parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { withWorker } from '../runtime/worker.js';
import { summarizePush } from '../queue/push/pushDueJobs.js';
import { pushQueue } from '../runtime/jobs.js';

function pushUsage(): string {
  return [
    'Usage: loyalty-sync push',
    '',
    'Sends the due jobs of the write queue once, then prints one line:',
    '  push: sent N, succeeded N, retried N, dead N, unknown N',
    '',
    'Jobs go out config push.concurrency at a time, through the shared rate limiter, one at a time and',
    'in queue order per customer and per review. A job waits while an earlier job of the same customer',
    'or review is queued (even in backoff) or running; earlier dead, cancelled or unknown jobs do not hold it.',
    '',
    'Outcomes: 2xx succeeded. 429, 5xx and failures before sending: back to the queue with exponential',
    'backoff (push.backoffBaseMs doubling up to push.backoffMaxMs, jittered, at least Retry-After up to',
    'api.retry.maxDelayMs). After push.maxAttempts a 5xx makes the job dead; a 429 or an unreachable API',
    'is not counted: the job waits.',
    '400/403/404/422: dead at once, with the API\'s message and code.',
    'No answer after sending: reviews are resent (idempotent); an order is looked up by merchant_id and',
    'resent only if absent; points and reward claims are never resent: they become unknown, and are',
    'marked succeeded only when the customer\'s transactions prove they landed. Jobs a killed push left',
    'running are handled the same way at the next start. See "loyalty-sync queue list --state unknown".',
    '',
    'SIGTERM or SIGINT: stop claiming jobs; jobs in flight finish and are recorded; a second signal kills.',
    '',
    'Exit codes: 0 the push ran and no job went dead in it (unknown jobs wait for proof, retried ones for',
    'the next push); 1 a job went dead in this push (the line above names each: id, kind and the API\'s',
    'answer), or the push itself failed (the API refused the credential or could not be reached at all, the',
    'database failed, or another loyalty-sync holds the mirror); 2 bad usage. An API that cannot be reached at all',
    '(connection refused, no such host, TLS refused) stops the push at once: the jobs stay queued, with no',
    'attempt counted.',
    '',
  ].join('\n');
}

/** Push's flags, checked (UsageError), without I/O: run before the state's lease is taken, and by the command. */
export function parsePushArgs(argv: string[]) {
  const { values } = parseCommandArgs('push', argv, { help: { type: 'boolean' } });
  return { help: values.help === true };
}

/** `push`: one pass over the due jobs. */
export async function pushCommand(argv: string[], ctx: CommandContext): Promise<number> {
  if (parsePushArgs(argv).help) {
    ctx.stdout.write(pushUsage());
    return 0;
  }
  const report = await withWorker(ctx, { command: 'push', createsMirror: false, waitForLock: false }, (deps, signal) => pushQueue(deps, signal));
  ctx.stdout.write(`${summarizePush(report)}\n`);
  if (report.unreachable !== null) {
    ctx.stderr.write(`loyalty-sync: the API at ${ctx.config.api.baseUrl} could not be reached (${report.unreachable}); the remaining jobs stay queued for the next push.\n`);
    return 1;
  }
  if (report.deadJobs.length > 0) {
    const count = report.deadJobs.length === 1 ? '1 job' : `${report.deadJobs.length} jobs`;
    ctx.stderr.write(`loyalty-sync: ${count} went dead in this push (named above); fix the cause and "loyalty-sync queue retry ID", or "loyalty-sync queue cancel ID".\n`);
    return 1;
  }
  return 0;
}
