import { parseArgs, type ParseArgsConfig } from 'node:util';
import { STREAM_NAMES, type StreamName } from '../config.js';
import { UsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs in strict mode, with its errors turned into one UsageError sentence
 * that names the command. Every command parses its own flags through this.
 */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T, allowPositionals = false) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals, tokens: true });
  } catch (error) {
    const see = `see "loyalty-sync ${command} --help".`;
    const dashed = dashedValue((error as Error).message, argv);
    if (dashed !== undefined) throw new UsageError(`${command}: ${dashed}; ${see}`);
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(`${command}: ${message.replace(/\.$/, '')}; ${see}`);
  }
  refuseRepeatedValues(command, options, parsed.tokens);
  const { tokens: _tokens, ...result } = parsed;
  return result;
}

/**
 * A flag that takes one value, given twice, would keep only the last one without a word (`--customer 1001
 * --customer 1002` printing one customer): one sentence names both values instead. Repeatable flags are
 * declared `multiple`.
 */
function refuseRepeatedValues(command: string, options: Options, tokens: ReturnType<typeof parseArgs>['tokens']): void {
  const seen = new Map<string, string>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const option = options[token.name];
    if (option === undefined || option.type !== 'string' || option.multiple === true) continue;
    const earlier = seen.get(token.name);
    if (earlier !== undefined) {
      throw new UsageError(`${command}: --${token.name} is given twice (${JSON.stringify(earlier)}, then ${JSON.stringify(token.value)}); expected it once.`);
    }
    seen.set(token.name, token.value);
  }
}

/**
 * parseArgs refuses `--customer -5` in three lines ("argument is ambiguous. Did you forget…? To specify…");
 * one sentence says the same: the flag, the value, and how to give it.
 */
function dashedValue(message: string, argv: readonly string[]): string | undefined {
  const flag = /^Option '(--[^' ]+)' argument is ambiguous/.exec(message)?.[1];
  if (flag === undefined) return undefined;
  const value = argv[argv.indexOf(flag) + 1] ?? '';
  return `${flag} is ${JSON.stringify(value)}, which starts with a dash and so reads as a flag; write ${flag}=${value} to give it as the value`;
}

/** Parses a whole number flag, or says which flag was wrong and what was expected. */
export function parseIntegerFlag(flag: string, value: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${flag} is "${value}"; expected a whole number.`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) {
    throw new UsageError(`--${flag} is ${value}; expected a whole number from ${min} to ${max}.`);
  }
  return parsed;
}

/** A --stream value, or the sentence that lists the streams there are. */
export function parseStreamName(value: string): StreamName {
  const found = STREAM_NAMES.find((name) => name === value);
  if (found === undefined) throw new UsageError(`--stream is "${value}"; expected one of ${STREAM_NAMES.join(', ')}.`);
  return found;
}
