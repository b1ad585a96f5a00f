import { openMirror, type CommandContext } from '../context.js';
import { parseCommandArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { cancelJob } from '../../queue/cancelJob.js';
import { getJob } from '../../queue/getJob.js';
import { jobIdArgument } from './retry.js';
import type { JobState } from '../../queue/types.js';

const WHY_NOT: Record<Exclude<JobState, 'cancelled'>, string> = {
  queued: 'it changed state while being cancelled; try again',
  running: 'it is being sent right now',
  succeeded: 'it has already been applied',
  dead: 'it will not be sent again anyway',
  unknown: 'it may already have been applied; it stays for a person to check',
};

function cancelUsage(): string {
  return ['Usage: loyalty-sync queue cancel ID', '', 'Cancels a queued job so it is never sent. Only queued jobs can be cancelled.', '', 'Options:', '  --help   show this help', ''].join('\n');
}

export async function cancelCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs('queue cancel', argv, { help: { type: 'boolean' } }, true);
  if (values.help) {
    ctx.stdout.write(cancelUsage());
    return 0;
  }
  const id = jobIdArgument('queue cancel', positionals);
  const db = openMirror(ctx);
  try {
    const job = cancelJob(db, id, new Date());
    if (job === undefined) {
      const existing = getJob(db, id);
      if (existing === undefined) throw new UsageError(`There is no job ${id}; see "loyalty-sync queue list".`);
      if (existing.state === 'cancelled') throw new UsageError(`Job ${id} is already cancelled.`);
      throw new UsageError(`Job ${id} is ${existing.state}, so it cannot be cancelled: ${WHY_NOT[existing.state]}.`);
    }
    ctx.stdout.write(`job ${id} cancelled\n`);
    return 0;
  } finally {
    db.close();
  }
}
