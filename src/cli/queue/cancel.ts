import { openMirror, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { cancelJob } from '../../queue/cancelJob.js';
import { KINDS } from '../../queue/kinds.js';
import type { WriteJob } from '../../queue/types.js';
import { parseJobIdArgs } from './retry.js';

function cancelUsage(): string {
  return [
    'Usage: loyalty-sync queue cancel ID',
    '',
    'Cancels a job so it is never sent:',
    '  queued    stopped before it goes out; one answered unclearly before (an order, a review) may already',
    '            have been applied: the message names what to check;',
    '  dead      cleared: "status --check" and the LoyaltyDeadJobs alert no longer count it;',
    '  unknown   it may already have been applied, so check the customer, order or review in the loyalty',
    '            program first; cancelling stops it being sent or looked up again and clears it the same way.',
    'A running or succeeded job cannot be cancelled. A cancelled job keeps its key, so queueing or importing',
    'the same write again adds nothing; "queue retry ID" sends a dead or unknown job again instead.',
    '',
    'Options:',
    '  --help   show this help',
    '',
  ].join('\n');
}

export async function cancelCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseJobIdArgs('queue cancel', argv);
  if (args.help) {
    ctx.stdout.write(cancelUsage());
    return 0;
  }
  const id = args.id;
  const db = openMirror(ctx);
  try {
    const result = cancelJob(db, id, new Date());
    if (result === undefined) throw new UsageError(`There is no job ${id}; see "loyalty-sync queue list".`);
    if (!result.cancelled) throw new UsageError(whyNot(result.before));
    ctx.stdout.write(`job ${id} cancelled${whatItCleared(result.before)}\n`);
    return 0;
  } finally {
    db.close();
  }
}

function whatItCleared(before: WriteJob): string {
  switch (before.state) {
    case 'dead':
      return ` (it was dead${lastAnswer(before)}); it will not be sent, and status --check no longer counts it`;
    case 'unknown':
      return ` (it was unknown${lastAnswer(before)}: it may have been applied, as checked by hand); it will not be sent or looked up again, and status --check no longer counts it`;
    case 'queued':
      // An order or review answered unclearly waits in the queue in doubt: cancelling does not undo an attempt that landed.
      return before.inDoubt
        ? ` (an earlier attempt may have been applied${lastAnswer(before)}); check ${KINDS[before.kind].target(before.payload)} in the loyalty program: it will not be sent or looked up again`
        : '';
    default:
      return '';
  }
}

function lastAnswer(job: WriteJob): string {
  const answer = [job.lastStatus, job.lastError].filter((part) => part !== null).join(' ');
  return answer === '' ? '' : `: ${answer}`;
}

function whyNot(job: WriteJob): string {
  switch (job.state) {
    case 'cancelled':
      return `Job ${job.id} is already cancelled.`;
    case 'succeeded':
      return `Job ${job.id} has already succeeded (the API applied it), so it cannot be cancelled; undo it with a new write (for points, queue add-points with the opposite amount).`;
    default:
      // The only state left: cancellable ones were cancelled in the same transaction that read them.
      return `Job ${job.id} is being sent right now, so it cannot be cancelled; see how it ended with "loyalty-sync queue list".`;
  }
}
