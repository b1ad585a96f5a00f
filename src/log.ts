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
}

/**
 * JSON lines to stderr (readable on a terminal), with the credential redacted everywhere. Logs stay
 * off stdout so that a command's own output (summaries, `--json` documents) can be redirected alone.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pretty = options.pretty ?? (!options.destination && process.stderr.isTTY === true);
  const base = {
    level: options.level,
    base: undefined,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    timestamp: stdTimeFunctions.isoTime,
    formatters: {
      log(record: Record<string, unknown>) {
        return scrub(record) as Record<string, unknown>;
      },
    },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...a: Parameters<Logger['info']>) => void) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? redact(arg) : arg)) as Parameters<Logger['info']>);
      },
    },
    serializers: { err: errorSerializer(options.level), error: errorSerializer(options.level) },
  };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  return pino(base, options.destination ?? destination({ fd: 2, sync: false }));
}

/**
 * Errors keep message, code and cause chain, with secrets masked; the stack only at debug level and
 * below, since an operator reading a failed CronJob's log wants the sentence, not the SDK's frames.
 */
function errorSerializer(level: LogLevel): (error: unknown) => unknown {
  const withStack = level === 'debug' || level === 'trace';
  const serialize = (error: unknown): unknown => {
    if (!(error instanceof Error)) return scrub(error);
    const out: Record<string, unknown> = { type: error.name, message: redact(error.message) };
    const extra = error as Error & { code?: unknown; status?: unknown };
    if (extra.code !== undefined) out.code = extra.code;
    if (extra.status !== undefined) out.status = extra.status;
    if (withStack && error.stack) out.stack = redact(error.stack);
    if (error.cause !== undefined) out.cause = serialize(error.cause);
    return out;
  };
  return serialize;
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 6 || typeof value !== 'object' || value === null || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = scrub(child, depth + 1);
  return out;
}
