import { openMirror, type CommandContext } from '../context.js';
import { parseCommandArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { getJob } from '../../queue/getJob.js';
import { retryJob } from '../../queue/retryJob.js';

function retryUsage(): string {
  return [
    'Usage: loyalty-sync queue retry ID',
    '',
    'Puts a dead or unknown job back in the queue, due now, with a fresh attempt budget; the next',
    '"push" sends it. An unknown add_points or claim_reward job may already have been applied:',
    'check the customer first, since sending it again may apply it twice (a warning says so).',
    '',
    'Options:',
    '  --help   show this help',
    '',
  ].join('\n');
}

/**
 * The flags and job ID of `queue retry` or `queue cancel`, checked (UsageError), without I/O: run before the
 * state's lease is taken, and by the command.
 */
export function parseJobIdArgs(command: string, argv: string[]): { help: true } | { help: false; id: number } {
  const { values, positionals } = parseCommandArgs(command, argv, { help: { type: 'boolean' } }, true);
  if (values.help) return { help: true };
  return { help: false, id: jobIdArgument(command, positionals) };
}

export async function retryCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseJobIdArgs('queue retry', argv);
  if (args.help) {
    ctx.stdout.write(retryUsage());
    return 0;
  }
  const id = args.id;
  const db = openMirror(ctx);
  try {
    const before = getJob(db, id);
    if (before === undefined) throw new UsageError(`There is no job ${id}; see "loyalty-sync queue list".`);
    const job = retryJob(db, id, new Date());
    if (job === undefined) throw new UsageError(`Job ${id} is ${before.state}; only dead or unknown jobs can be retried.`);
    if (before.state === 'unknown' && (job.kind === 'add_points' || job.kind === 'claim_reward')) {
      ctx.stderr.write(`warning: job ${id} (${job.kind}) may already have been applied; sending it again may apply it twice.\n`);
    }
    ctx.stdout.write(`job ${id} queued again (was ${before.state})\n`);
    return 0;
  } finally {
    db.close();
  }
}

function jobIdArgument(command: string, positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError(`${command} takes one job ID, got ${positionals.length}; see "loyalty-sync ${command} --help".`);
  const [id] = positionals;
  // A positional argument, so the generic flag sentence ("--ID is …") would name a flag that does not exist.
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) < 1) {
    throw new UsageError(`${command}: the job ID is "${id}"; expected a job number (a whole number from 1), as "loyalty-sync queue list" shows.`);
  }
  return Number(id);
}
