import { readFileSync } from 'node:fs';
import { createMirror, type CommandContext } from '../context.js';
import { parseCommandArgs } from '../args.js';
import { EXIT_USAGE, UsageError } from '../errors.js';
import { csvColumns, importCsv } from '../../queue/importCsv.js';
import { csvText } from '../../queue/csvText.js';
import { JOB_KINDS, isJobKind, type JobKind } from '../../queue/types.js';

function importUsage(): string {
  const headers = JOB_KINDS.map((kind) => {
    const { required, optional } = csvColumns(kind);
    return `  ${kind.padEnd(14)} ${required.join(',')}  [optional: ${optional.join(',')}]`;
  });
  return [
    'Usage: loyalty-sync queue import FILE.csv --kind KIND',
    '',
    'Queue one write per row of a CSV file (RFC 4180, UTF-8, header row). The header names the',
    "fields in snake_case, in any order; the values follow the same rules as the flags of",
    '"queue <kind>" (lists such as discount_codes are comma-separated inside one quoted cell).',
    '',
    'Columns per kind:',
    ...headers,
    '',
    'Every row is checked first. If any row is bad, nothing is queued and every bad row is printed as',
    '"line N: field: what is wrong" (N is the line in the file; the header is line 1), exit 2.',
    'A good file is queued in one transaction. A row without idempotency_key gets a key derived from',
    'its content, so importing the same file again queues nothing new.',
    '',
    'Options:',
    `  --kind KIND   one of ${JOB_KINDS.join(', ')}`,
    '  --help        show this help',
    '',
  ].join('\n');
}

/** Import's flags and FILE, checked (UsageError), without I/O: run before the state's lease is taken, and by the command. */
export function parseImportArgs(argv: string[]): { help: true } | { help: false; kind: JobKind; file: string } {
  const { values, positionals } = parseCommandArgs('queue import', argv, { kind: { type: 'string' }, help: { type: 'boolean' } }, true);
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw new UsageError(`queue import takes one FILE.csv, got ${positionals.length}; see "loyalty-sync queue import --help".`);
  const kind = values.kind;
  if (kind === undefined) throw new UsageError(`--kind is required; expected one of ${JOB_KINDS.join(', ')}.`);
  if (!isJobKind(kind)) throw new UsageError(`--kind is "${kind}"; expected one of ${JOB_KINDS.join(', ')}.`);
  return { help: false, kind, file: positionals[0] };
}

export async function importCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseImportArgs(argv);
  if (args.help) {
    ctx.stdout.write(importUsage());
    return 0;
  }
  const { kind, file } = args;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); expected a readable CSV file.`);
  }

  const decoded = csvText(bytes);
  if (!decoded.ok) {
    const { line, field, message } = decoded.problem;
    ctx.stderr.write(`line ${line}: ${field}: ${message}\n${file}: nothing queued; 1 problem to fix first.\n`);
    return EXIT_USAGE;
  }
  const db = createMirror(ctx);
  try {
    const result = importCsv(db, { kind, file, text: decoded.text, now: new Date() });
    if (!result.ok) {
      for (const problem of result.problems) ctx.stderr.write(`line ${problem.line}: ${problem.field}: ${problem.message}\n`);
      ctx.stderr.write(`${file}: nothing queued; ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} to fix first.\n`);
      return EXIT_USAGE;
    }
    ctx.stdout.write(`${file}: ${result.rows} rows: ${result.created} new, ${result.existing} already queued\n`);
    return 0;
  } finally {
    db.close();
  }
}
