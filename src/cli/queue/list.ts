import { readMirror, type CommandContext } from '../context.js';
import { parseCommandArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { KINDS } from '../../queue/kinds.js';
import { listJobs } from '../../queue/listJobs.js';
import { JOB_STATES, isJobState, type WriteJob } from '../../queue/types.js';

function listUsage(): string {
  return [
    'Usage: loyalty-sync queue list [--state STATE] [--json]',
    '',
    'Jobs of the write queue in queue order: id, state, kind, target, attempts, when, last error.',
    '"when" is the next attempt for queued jobs and the last change for the others.',
    '',
    'Options:',
    `  --state STATE   only jobs in this state: ${JOB_STATES.join(', ')}`,
    '  --json          one JSON array with every column (payload and response parsed)',
    '  --help          show this help',
    '',
  ].join('\n');
}

/** List's flags, checked (UsageError), without I/O: run before the state is restored, and by the command. */
export function parseListArgs(argv: string[]) {
  const { values } = parseCommandArgs('queue list', argv, { state: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } });
  const state = values.state;
  if (values.help !== true && state !== undefined && !isJobState(state)) throw new UsageError(`--state is "${state}"; expected one of ${JOB_STATES.join(', ')}.`);
  return { values, help: values.help === true, state: state !== undefined && isJobState(state) ? state : undefined };
}

export async function listCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, help, state } = parseListArgs(argv);
  if (help) {
    ctx.stdout.write(listUsage());
    return 0;
  }
  const db = readMirror(ctx);
  try {
    const jobs = listJobs(db, { state });
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify(jobs.map(toJson), null, 2)}\n`);
      return 0;
    }
    if (jobs.length === 0) {
      ctx.stdout.write(state ? `no ${state} jobs\n` : 'the queue is empty\n');
      return 0;
    }
    const rows = jobs.map((job) => [
      String(job.id),
      job.state,
      job.kind,
      KINDS[job.kind].target(job.payload),
      String(job.attempts),
      job.state === 'queued' ? job.nextAttemptAt : job.updatedAt,
      oneLine(job.lastError ?? ''),
    ]);
    ctx.stdout.write(table(['ID', 'STATE', 'KIND', 'TARGET', 'ATTEMPTS', 'WHEN', 'LAST ERROR'], rows));
    return 0;
  } finally {
    db.close();
  }
}

function toJson(job: WriteJob): Record<string, unknown> {
  return { ...job, response: job.response === null ? null : (JSON.parse(job.response) as unknown) };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 120);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return `${[header, ...rows].map(format).join('\n')}\n`;
}
