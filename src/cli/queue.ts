import type { CommandContext } from './context.js';
import { EXIT_USAGE, UsageError } from './errors.js';
import { cancelCommand } from './queue/cancel.js';
import { commandOf, enqueueCommand } from './queue/enqueue.js';
import { importCommand } from './queue/import.js';
import { listCommand } from './queue/list.js';
import { retryCommand } from './queue/retry.js';
import { JOB_KINDS, type JobKind } from '../queue/types.js';

type Subcommand = (argv: string[], ctx: CommandContext) => Promise<number>;

const SUBCOMMANDS: Record<string, { run: Subcommand; summary: string }> = {
  ...Object.fromEntries(
    JOB_KINDS.map((kind: JobKind) => [commandOf(kind), { run: (argv: string[], ctx: CommandContext) => enqueueCommand(kind, argv, ctx), summary: `queue one ${kind} write` }]),
  ),
  import: { run: importCommand, summary: 'queue one write per row of a CSV file (all rows or none)' },
  list: { run: listCommand, summary: 'show the jobs, optionally of one state (--state S, --json)' },
  retry: { run: retryCommand, summary: 'put a dead or unknown job back in the queue' },
  cancel: { run: cancelCommand, summary: 'cancel a queued job, or clear a dead one (or an unknown one you checked)' },
};

function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  return [
    'Usage: loyalty-sync queue <subcommand> [options]',
    '',
    'The write queue (outbox): writes are queued here and sent by "loyalty-sync push", each exactly once.',
    'Without --key, a write\'s key is derived from its content, so the same command twice queues one job.',
    '',
    'Subcommands:',
    ...Object.entries(SUBCOMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    '',
    'Run "loyalty-sync queue <subcommand> --help" for its options.',
    'Exit codes: 0 done; 1 the job failed (I/O); 2 bad usage or a bad value (nothing queued).',
    '',
  ].join('\n');
}

/** `queue …`: dispatches to one subcommand. */
export async function queueCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(usage());
    return 0;
  }
  if (name === undefined) {
    ctx.stderr.write(usage());
    return EXIT_USAGE;
  }
  const entry = SUBCOMMANDS[name];
  if (!entry) throw new UsageError(`Unknown queue subcommand "${name}"; expected one of: ${Object.keys(SUBCOMMANDS).join(', ')}.`);
  return entry.run(rest, ctx);
}
