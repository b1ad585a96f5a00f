import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createMirror, type CommandContext } from '../context.js';
import { parseCommandArgs } from '../args.js';
import { UsageError } from '../errors.js';
import { enqueueJob, KeyConflictError } from '../../queue/enqueueJob.js';
import { deriveKey } from '../../queue/idempotencyKey.js';
import { KINDS, validatePayload, type FieldProblem, type FieldSpec } from '../../queue/kinds.js';
import type { JobKind, JobPayload } from '../../queue/types.js';

/** Flags are the API's field names in kebab-case, except the customer's merchant id, which DESIGN.md calls --customer. */
const FLAG_NAMES: Record<string, string> = { customer_merchant_id: 'customer' };
/** Set by being present, not by a value. */
const SWITCHES = new Set(['guest']);

const SUMMARIES: Record<JobKind, string> = {
  add_points: 'Queue points for a customer (POST /v2/customers/{merchant_id}/points). Points are never sent twice.',
  update_review: 'Queue a review update (PUT /v2/reviews/{platform}/{merchant_id}).',
  delete_review: 'Queue a review deletion (DELETE /v2/reviews/{platform}/{merchant_id}); deleting a deleted review is success.',
  create_order: 'Queue an order (POST /v2/orders), from flags or from a JSON file with the same fields in snake_case.',
  claim_reward: 'Queue a reward claim for a customer (POST /v2/customers/{merchant_id}/claimed_rewards). Never sent twice.',
};

function flagOf(field: string): string {
  return FLAG_NAMES[field] ?? field.replaceAll('_', '-');
}

export function commandOf(kind: JobKind): string {
  return kind.replaceAll('_', '-');
}

function enqueueUsage(kind: JobKind): string {
  const fields = KINDS[kind].fields;
  const line = (field: FieldSpec): string => {
    const flag = SWITCHES.has(field.name) ? `--${flagOf(field.name)}` : `--${flagOf(field.name)} VALUE`;
    const expected = SWITCHES.has(field.name) ? 'given without a value to set it true' : field.parser.expected;
    return `  ${flag.padEnd(30)} ${field.required ? 'required' : 'optional'}: ${expected}`;
  };
  const file = kind === 'create_order' ? ['  --file ORDER.json              instead of the flags above: a JSON object with the fields in snake_case'] : [];
  return [
    `Usage: loyalty-sync queue ${commandOf(kind)} ${fields.filter((f) => f.required).map((f) => `--${flagOf(f.name)} VALUE`).join(' ')} [options]`,
    '',
    SUMMARIES[kind],
    '',
    'Options:',
    ...fields.map(line),
    ...file,
    '  --key KEY                      idempotency key; by default derived from the kind and the fields,',
    '                                 so the same command twice queues one job',
    '  --help                         show this help',
    '',
    'Nothing is sent here: "loyalty-sync push" sends due jobs. Exit codes: 0 queued (or already queued); 2 bad value.',
    '',
  ].join('\n');
}

type EnqueueArgs = { help: true } | { help: false; key: string | undefined; payload: JobPayload; file?: undefined } | { help: false; key: string | undefined; file: string };

/**
 * The flags of one kind of write, checked (UsageError), without I/O: run before the state's lease is taken,
 * and by the command. The fields of a --file are checked when the command reads it.
 */
export function parseEnqueueArgs(kind: JobKind, argv: string[]): EnqueueArgs {
  const options: Record<string, { type: 'string' | 'boolean' }> = { key: { type: 'string' }, help: { type: 'boolean' } };
  for (const field of KINDS[kind].fields) options[flagOf(field.name)] = { type: SWITCHES.has(field.name) ? 'boolean' : 'string' };
  if (kind === 'create_order') options.file = { type: 'string' };
  const { values } = parseCommandArgs(`queue ${commandOf(kind)}`, argv, options);
  if (values.help) return { help: true };
  if (typeof values.file === 'string') {
    const mixed = KINDS[kind].fields.map((f) => flagOf(f.name)).filter((flag) => values[flag] !== undefined);
    if (mixed.length > 0) throw new UsageError(`--file cannot be combined with ${mixed.map((f) => `--${f}`).join(', ')}; expected the fields in the file only.`);
    return { help: false, key: keyOf(values.key), file: values.file };
  }
  const payload = payloadFromFlags(kind, values);
  return { help: false, key: keyOf(values.key), payload };
}

function keyOf(value: unknown): string | undefined {
  const key = typeof value === 'string' ? value : undefined;
  if (key !== undefined && key.trim() === '') throw new UsageError('--key is empty; expected a non-empty key, or no --key to derive one.');
  return key;
}

/** `queue add-points|update-review|delete-review|create-order|claim-reward`: validate, then queue once. */
export async function enqueueCommand(kind: JobKind, argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseEnqueueArgs(kind, argv);
  if (args.help) {
    ctx.stdout.write(enqueueUsage(kind));
    return 0;
  }
  const payload = args.file === undefined ? args.payload : payloadFromFile(kind, args.file);
  const key = args.key;

  const db = createMirror(ctx);
  try {
    const { job, created } = enqueueJob(db, { kind, payload, idempotencyKey: key ?? deriveKey(kind, payload), source: 'cli' }, new Date());
    ctx.stdout.write(
      created
        ? `queued job ${job.id}: ${kind} for ${KINDS[kind].target(payload)}\n`
        : `already queued as job ${job.id} (state ${job.state}); nothing added\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof KeyConflictError) throw new UsageError(`--key ${error.message}; expected a key not used for another write.`);
    throw error;
  } finally {
    db.close();
  }
}

function payloadFromFlags(kind: JobKind, values: Record<string, unknown>): JobPayload {
  const raw: Record<string, unknown> = {};
  for (const field of KINDS[kind].fields) raw[field.name] = values[flagOf(field.name)];
  const validation = validatePayload(kind, raw);
  if (validation.ok) return validation.payload;
  throw new UsageError(validation.problems.map((p) => flagSentence(p)).join(' '));
}

function payloadFromFile(kind: JobKind, file: string): JobPayload {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); expected a readable JSON file.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--file ${file} is not valid JSON (${(error as Error).message}); expected a JSON object.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--file ${file} holds ${Array.isArray(parsed) ? 'an array' : typeof parsed}; expected a JSON object.`);
  const validation = validatePayload(kind, parsed as Record<string, unknown>);
  if (validation.ok) return validation.payload;
  throw new UsageError(validation.problems.map((p) => `${basename(file)}: ${fieldSentence(p)}`).join(' '));
}

function flagSentence(problem: FieldProblem): string {
  const flag = `--${flagOf(problem.field)}`;
  if (problem.value === undefined) return `${flag} is required; expected ${problem.expected}.`;
  return `${flag} is ${JSON.stringify(problem.value)}; expected ${problem.expected}.`;
}

function fieldSentence(problem: FieldProblem): string {
  if (problem.value === undefined) return `field ${problem.field} is missing; expected ${problem.expected}.`;
  return `field ${problem.field} is ${JSON.stringify(problem.value)}; expected ${problem.expected}.`;
}
