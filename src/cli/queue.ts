import type { CommandContext } from './context.js';
import { EXIT_USAGE, UsageError } from './errors.js';
import { cancelCommand } from './queue/cancel.js';
import { commandOf, enqueueCommand, parseEnqueueArgs } from './queue/enqueue.js';
import { importCommand, parseImportArgs } from './queue/import.js';
import { listCommand, parseListArgs } from './queue/list.js';
import { parseJobIdArgs, retryCommand } from './queue/retry.js';
import { JOB_KINDS, type JobKind } from '../queue/types.js';

type Subcommand = (argv: string[], ctx: CommandContext) => Promise<number>;

interface SubcommandEntry {
  run: Subcommand;
  /** The subcommand's own flag check (its parse…Args), without I/O. */
  parse: (argv: string[]) => { help: boolean };
  summary: string;
}

const SUBCOMMANDS: Record<string, SubcommandEntry> = {
  ...Object.fromEntries(
    JOB_KINDS.map((kind: JobKind): [string, SubcommandEntry] => [
      commandOf(kind),
      { run: (argv, ctx) => enqueueCommand(kind, argv, ctx), parse: (argv) => parseEnqueueArgs(kind, argv), summary: `queue one ${kind} write` },
    ]),
  ),
  import: { run: importCommand, parse: parseImportArgs, summary: 'queue one write per row of a CSV file (all rows or none)' },
  list: { run: listCommand, parse: parseListArgs, summary: 'show the jobs, optionally of one state (--state S, --json)' },
  retry: { run: retryCommand, parse: (argv) => parseJobIdArgs('queue retry', argv), summary: 'put a dead or unknown job back in the queue' },
  cancel: { run: cancelCommand, parse: (argv) => parseJobIdArgs('queue cancel', argv), summary: 'cancel a queued job, or clear a dead one (or an unknown one you checked)' },
};

const ASKS_FOR_HELP = new Set(['--help', '-h', 'help']);

/**
 * The subcommand and its flags, checked (UsageError), without I/O: run before the state's lease is taken.
 * `help` when the command only prints a usage (asked for, or no subcommand given) and touches nothing.
 */
export function parseQueueArgs(argv: string[]): { help: boolean } {
  const [name, ...rest] = argv;
  if (name === undefined || ASKS_FOR_HELP.has(name)) return { help: true };
  return subcommandOf(name).parse(rest);
}

function subcommandOf(name: string): SubcommandEntry {
  const entry = SUBCOMMANDS[name];
  if (!entry) throw new UsageError(`Unknown queue subcommand "${name}"; expected one of: ${Object.keys(SUBCOMMANDS).join(', ')}.`);
  return entry;
}

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
  if (name !== undefined && ASKS_FOR_HELP.has(name)) {
    ctx.stdout.write(usage());
    return 0;
  }
  if (name === undefined) {
    ctx.stderr.write(usage());
    return EXIT_USAGE;
  }
  return subcommandOf(name).run(rest, ctx);
}
