import { pino, destination, stdTimeFunctions, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log record. */
const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
];

let knownSecrets: string[] = [];

/**
 * Registers a secret (the API key) so that it is masked inside any string that reaches
 * a log line or an error message, not only under the field names above.
 */
export function registerSecret(secret: string): void {
  if (secret.length >= 4 && !knownSecrets.includes(secret)) knownSecrets = [...knownSecrets, secret];
}

/** Replaces every registered secret, and anything that looks like a Bearer credential, with [REDACTED]. */
export function redact(text: string): string {
  let result = text.replace(/(Bearer\s+)[^\s"',;]+/gi, '$1[REDACTED]');
  for (const secret of knownSecrets) result = result.split(secret).join('[REDACTED]');
  return result;
}

export interface CreateLoggerOptions {
  level: LogLevel;
  /** Defaults to stderr; tests pass a stream to capture the output. */
  destination?: DestinationStream;
  /** Human-readable lines; by default only when stderr is a terminal and no destination is given. */
  pretty?: boolean;
  /** Records (by their fields) the caller tells the reader of its own, in words, instead: they are not logged. */
  mute?: (fields: Record<string, unknown>) => boolean;
}

/**
 * JSON lines to stderr (readable on a terminal), with the credential redacted everywhere. Logs stay
 * off stdout so that a command's own output (summaries, `--json` documents) can be redirected alone.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pretty = options.pretty ?? (!options.destination && process.stderr.isTTY === true);
  const withStack = options.level === 'debug' || options.level === 'trace';
  const clean = (value: unknown): unknown => scrub(value, withStack);
  const base = {
    level: options.level,
    base: undefined,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    timestamp: stdTimeFunctions.isoTime,
    formatters: {
      log(record: Record<string, unknown>) {
        return clean(record) as Record<string, unknown>;
      },
    },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...a: Parameters<Logger['info']>) => void) {
        const fields: unknown = args[0];
        if (options.mute !== undefined && typeof fields === 'object' && fields !== null && options.mute(fields as Record<string, unknown>)) return;
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)) as Parameters<Logger['info']>);
      },
    },
    // The fields of a child logger (`logger.child({ err })`) reach no `formatters.log`, only these.
    serializers: { err: clean, error: clean },
  };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  return pino(base, options.destination ?? destination({ fd: 2, sync: false }));
}

/** Levels of nesting a log record keeps; what lies deeper is replaced, since no reader of a log line needs it. */
const MAX_LOG_DEPTH = 32;
const TOO_DEEP = '[nested too deep]';
const CIRCULAR = '[Circular]';

/**
 * A copy of a log record fit to print: every string with its secrets masked and every error, at any key
 * and depth, reduced to type, message, code, status and cause (the stack only at debug level and below,
 * since an operator reading a failed CronJob's log wants the sentence, not the SDK's frames). Walked with
 * a queue, not recursion, so a deep object cannot overflow the stack; a cycle prints as `[Circular]`, and
 * beyond MAX_LOG_DEPTH levels nothing is printed at all, which is what keeps the printer's own
 * (recursive) serialisation safe.
 */
function scrub(value: unknown, withStack = false): unknown {
  const holder: { root?: unknown } = {};
  // Each entry: a value still to copy, where its copy goes, how deep it sits, and the objects above it.
  const queue: Array<{ value: unknown; into: Record<string | number, unknown>; key: string | number; depth: number; above: ReadonlySet<object> }> = [
    { value, into: holder, key: 'root', depth: 0, above: new Set() },
  ];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const { into, key, depth, above } = next;
    let current = next.value;
    // What the printer would write of a Date, a URL or a Buffer, so that is what gets masked.
    if (hasToJson(current) && !(current instanceof Error)) current = current.toJSON();
    if (typeof current === 'string') {
      into[key] = redact(current);
      continue;
    }
    if (typeof current !== 'object' || current === null) {
      into[key] = current;
      continue;
    }
    if (above.has(current)) {
      into[key] = CIRCULAR;
      continue;
    }
    if (depth >= MAX_LOG_DEPTH) {
      into[key] = TOO_DEEP;
      continue;
    }
    const path = new Set(above).add(current);
    const source: object = current instanceof Error ? errorFields(current, withStack) : current;
    const copy: Record<string | number, unknown> = Array.isArray(source) ? ([] as unknown[] as Record<number, unknown>) : {};
    into[key] = copy;
    for (const [childKey, child] of Object.entries(source)) {
      // Claimed now, filled when its turn comes: the copy keeps the original's order of keys.
      copy[childKey] = undefined;
      queue.push({ value: child, into: copy, key: childKey, depth: depth + 1, above: path });
    }
  }
  return holder.root;
}

/** What a log line shows of an error; its cause is walked like any other value. */
function errorFields(error: Error, withStack: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  const extra = error as Error & { code?: unknown; status?: unknown };
  if (extra.code !== undefined) out.code = extra.code;
  if (extra.status !== undefined) out.status = extra.status;
  if (withStack && error.stack) out.stack = error.stack;
  if (error.cause !== undefined) out.cause = error.cause;
  return out;
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
