import { readFileSync } from 'node:fs';
import cron from 'node-cron';
import { MAX_TIMER_MS } from './api/maxTimer.js';
import { cronRangeProblem } from './cronFields.js';
import { parseBucketPlace, type BucketPlace } from './bucket/place.js';
import { parseStateUrl } from './state/store/stateUrl.js';
import { ConfigError } from './configError.js';
import { readEnvironmentSettings, type NamedVariable } from './configEnv.js';
import { parseListenAddress } from './metrics/listenAddress.js';

export { ConfigError };

/** Every setting of loyalty-sync. `config/default.json` holds the defaults; see the README for each key. */
export interface Config {
  api: {
    baseUrl: string;
    /** From LOYALTY_API_KEY only, so it never sits in a config file. */
    apiKey: string;
    pageSize: number;
    requestsPerSecond: number;
    burst: number;
    slowdownAfter429Ms: number;
    requestTimeoutMs: number;
    /** A response body larger than this is abandoned while it arrives, so one answer cannot exhaust memory. */
    maxResponseBytes: number;
    retry: { attempts: number; minDelayMs: number; maxDelayMs: number; maxElapsedMs: number };
  };
  db: { path: string };
  sync: {
    streams: StreamName[];
    idOverlapHours: number;
    updatedAtOverlapMinutes: number;
    lookbackDays: number;
    refreshIntervalHours: number;
    /** Largest share of the stored rows one run may mark removed without --accept-removals. */
    maxRemovedShare: number;
    /** Hours between deep refreshes (whole re-reads of the streams without an update filter), counted from the last one's start. */
    deepRefreshIntervalHours: number;
    /** Pages a deep refresh reads per stream in one plain sync; it goes on from there in the next one. `sync --deep` reads to the end. */
    deepRefreshPagesPerRun: number;
  };
  push: { concurrency: number; maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number };
  export: {
    dir: string;
    formats: ExportFormat[];
    retainRuns: number;
    csvFormulaGuard: boolean;
    parquetRowGroupSize: number;
    delta: {
      /** Files the table no longer uses (and files of failed runs) are deleted once older than this; time travel reaches this far. */
      retainDays: number;
      /** JSON commits a checkpoint covers are deleted once older than this; time travel reaches no further. */
      logRetainDays: number;
    };
    /** Publication target `s3://BUCKET/PREFIX`; empty keeps exports local. */
    url: string;
    /** With a target: keep the run's files under `dir` too (false: only the bucket holds them). */
    keepLocal: boolean;
    s3: {
      /** Custom endpoint (MinIO, R2, GCS, Swift); empty: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS S3 itself. */
      endpoint: string;
      /** Empty: AWS_REGION, else us-east-1. */
      region: string;
      forcePathStyle: boolean;
      /** Files larger than one part go up as a multipart upload in parts of this size. */
      partSizeMiB: number;
    };
  };
  /** The mirror's state in a bucket, for jobs without a volume (README "State in the bucket"). */
  state: {
    /** `s3://BUCKET/PREFIX` holding the state, its lease and the write inbox; empty: the mirror file is the only copy. Uses `export.s3`. */
    url: string;
    /** How long a run's lease lasts unless renewed; a killed run's lease frees the state this long after its last renewal. */
    leaseSeconds: number;
    /** How long a command other than `once` waits for another run's lease before it gives up. */
    leaseWaitSeconds: number;
    /** How long a saved state stays restorable (`state restore --as-of`): no dump or log entry a save of this window names is deleted. */
    retainHours: number;
  };
  /** The sampled verify of `once --verify` and of `run`'s schedule.verify. */
  verify: { requests: number };
  schedule: { timezone: string; sync: string; push: string; refresh: string; deepRefresh: string; export: string; verify: string };
  runtime: {
    lockLeaseSeconds: number;
    shutdownDeadlineSeconds: number;
    /** `HOST:PORT` where `run` serves /metrics, /healthz and /readyz; empty: no server. */
    metricsListen: string;
  };
  /** When `status --check` reports the mirror unhealthy. */
  health: { maxSyncAgeMinutes: number; maxUnknownAgeHours: number; maxExportAgeHours: number };
  log: { level: LogLevel };
  /** The loyalty program itself. */
  program: {
    /** IANA time zone that fixes what a day is for the points ledger (README "The points ledger"). */
    timeZone: string;
  };
  ledger: {
    /** The money one point is worth, a decimal string such as "0.01"; null: the ledger shows no liability amounts. */
    pointValue: string | null;
  };
}

export const STREAM_NAMES = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'] as const;
export type StreamName = (typeof STREAM_NAMES)[number];
export const EXPORT_FORMATS = ['csv', 'parquet', 'delta'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** The formats written as one file per table and run (the `dt=` layout); `delta` keeps a table instead. */
export type SnapshotFormat = Exclude<ExportFormat, 'delta'>;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Environment variables that override the files and the mapped variables of configEnv.ts (a DESIGN.md contract). */
const ENV_OVERRIDES: ReadonlyArray<[variable: string, path: string]> = [
  ['LOYALTY_BASE_URL', 'api.baseUrl'],
  ['LOYALTY_DB', 'db.path'],
  ['LOYALTY_EXPORT_DIR', 'export.dir'],
  ['LOYALTY_EXPORT_URL', 'export.url'],
  ['LOYALTY_STATE_URL', 'state.url'],
  ['LOG_LEVEL', 'log.level'],
  ['LOYALTY_METRICS_LISTEN', 'runtime.metricsListen'],
];
const NAMED_VARIABLE_OF_KEY = new Map(ENV_OVERRIDES.map(([variable, key]) => [key, variable]));

/**
 * Every `LOYALTY_` name that is not a key's mapped variable and is still known: the named overrides, the
 * key and the config file, and the variables of the project's own scripts (the README's settings table lists
 * them all). Any other `LOYALTY_` variable stops the program (configEnv.ts).
 */
export const NAMED_VARIABLES: readonly NamedVariable[] = [
  ...ENV_OVERRIDES.filter(([variable]) => variable.startsWith('LOYALTY_')).map(([variable, key]) => ({ variable, sets: `"${key}"` })),
  { variable: 'LOYALTY_API_KEY', sets: 'the API key' },
  { variable: 'LOYALTY_CONFIG', sets: 'the config file' },
  { variable: 'LOYALTY_CACHE', sets: "the scripts' download cache" },
  { variable: 'LOYALTY_SWIFT_HOME', sets: "the tests' Swift" },
];

export const DEFAULT_CONFIG_PATH = new URL('../config/default.json', import.meta.url);

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface LoadConfigOptions {
  /** `--config FILE`; falls back to LOYALTY_CONFIG. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Applied after the files and before the environment (used by `demo` and tests). */
  overrides?: DeepPartial<Omit<Config, 'api'>> & { api?: Partial<Config['api']> };
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

/**
 * Defaults, then the user file, then overrides, then each key's mapped variable (LOYALTY_SECTION__KEY, see
 * configEnv.ts), then the named variables (LOYALTY_DB, …); validated once and frozen.
 */
export function loadConfig(options: LoadConfigOptions = {}): Readonly<Config> {
  const env = options.env ?? process.env;
  const defaults = readJsonObject(DEFAULT_CONFIG_PATH, 'the default config');
  const merged = structuredClone(defaults);

  const file = options.file ?? env.LOYALTY_CONFIG;
  if (file) mergeChecked(merged, readJsonObject(file, `config file ${file}`), '');
  if (options.overrides) mergeChecked(merged, options.overrides as JsonObject, '');
  // The variable each key's value came from, so a range check names what the user set.
  const variableOfKey = new Map<string, string>();
  for (const { key, variable, value } of readEnvironmentSettings(defaults, env, NAMED_VARIABLES)) {
    setPath(merged, key, value);
    variableOfKey.set(key, variable);
  }
  for (const [variable, path] of ENV_OVERRIDES) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    setPath(merged, path, value);
    variableOfKey.set(path, variable);
  }

  const config = merged as unknown as Config;
  // A secret made from a file often ends with its newline, which no key holds and no HTTP header may carry.
  config.api.apiKey = (env.LOYALTY_API_KEY ?? config.api.apiKey ?? '').trim();
  validate(config, (key) => {
    const variable = variableOfKey.get(key) ?? NAMED_VARIABLE_OF_KEY.get(key);
    return variable === undefined ? `Config key "${key}"` : `Config key "${key}" (or ${variable})`;
  });
  return deepFreeze(config);
}

function readJsonObject(path: string | URL, what: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (error) {
    throw new ConfigError(`${what} is not valid JSON: ${(error as Error).message}.`);
  }
  if (!isObject(parsed)) throw new ConfigError(`${what} must hold a JSON object, got ${describe(parsed)}.`);
  return parsed;
}

/** Copies `source` into `target`, refusing keys the defaults do not have and values of another type. */
function mergeChecked(target: JsonObject, source: JsonObject, prefix: string): void {
  for (const [key, value] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value === undefined) continue;
    if (!(key in target) && !(path === 'api.apiKey')) {
      throw new ConfigError(`Unknown config key "${path}"; expected one of: ${Object.keys(target).map((k) => (prefix ? `${prefix}.${k}` : k)).join(', ')}.`);
    }
    const current = target[key];
    if (isObject(current)) {
      if (!isObject(value)) throw new ConfigError(`Config key "${path}" is ${describe(value)}; expected an object.`);
      mergeChecked(current, value, path);
    } else {
      // A key whose default is null (ledger.pointValue) holds a string or null.
      const nullable = current === null && (typeof value === 'string' || value === null);
      if (current !== undefined && !nullable && typeOf(current) !== typeOf(value)) {
        throw new ConfigError(`Config key "${path}" is ${describe(value)}; expected ${current === null ? 'a string or null' : typeOf(current)}.`);
      }
      target[key] = value;
    }
  }
}

function setPath(target: JsonObject, path: string, value: Json): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] as JsonObject;
  node[keys[keys.length - 1]] = value;
}

/** `field(key)` names a key in a message: `Config key "api.pageSize"`, with the variable that can set it. */
function validate(config: Config, field: (key: string) => string): void {
  validateBaseUrl(config.api.baseUrl, field('api.baseUrl'));
  integer(field('api.pageSize'), config.api.pageSize, 1, 500);
  positive(field('api.requestsPerSecond'), config.api.requestsPerSecond);
  integer(field('api.burst'), config.api.burst, 1);
  integer(field('api.slowdownAfter429Ms'), config.api.slowdownAfter429Ms, 0);
  integer(field('api.requestTimeoutMs'), config.api.requestTimeoutMs, 1, MAX_TIMER_MS);
  // A page of 500 records needs well under 1 MiB; anything smaller would refuse ordinary pages.
  integer(field('api.maxResponseBytes'), config.api.maxResponseBytes, MIN_RESPONSE_BYTES);
  integer(field('api.retry.attempts'), config.api.retry.attempts, 0, 100);
  integer(field('api.retry.minDelayMs'), config.api.retry.minDelayMs, 0);
  // A timer holds at most MAX_TIMER_MS; a longer one would fire after 1 ms.
  integer(field('api.retry.maxDelayMs'), config.api.retry.maxDelayMs, config.api.retry.minDelayMs, MAX_TIMER_MS);
  integer(field('api.retry.maxElapsedMs'), config.api.retry.maxElapsedMs, 0);
  nonEmpty(field('db.path'), config.db.path);
  oneOfEach(field('sync.streams'), config.sync.streams, STREAM_NAMES);
  positive(field('sync.idOverlapHours'), config.sync.idOverlapHours, true);
  positive(field('sync.updatedAtOverlapMinutes'), config.sync.updatedAtOverlapMinutes, true);
  positive(field('sync.lookbackDays'), config.sync.lookbackDays);
  positive(field('sync.refreshIntervalHours'), config.sync.refreshIntervalHours);
  share(field('sync.maxRemovedShare'), config.sync.maxRemovedShare);
  positive(field('sync.deepRefreshIntervalHours'), config.sync.deepRefreshIntervalHours);
  integer(field('sync.deepRefreshPagesPerRun'), config.sync.deepRefreshPagesPerRun, 1);
  integer(field('push.concurrency'), config.push.concurrency, 1, 64);
  integer(field('push.maxAttempts'), config.push.maxAttempts, 1);
  integer(field('push.backoffBaseMs'), config.push.backoffBaseMs, 0);
  integer(field('push.backoffMaxMs'), config.push.backoffMaxMs, config.push.backoffBaseMs, MAX_TIMER_MS);
  nonEmpty(field('export.dir'), config.export.dir);
  oneOfEach(field('export.formats'), config.export.formats, EXPORT_FORMATS);
  if (config.export.formats.length === 0) throw new ConfigError(`${field('export.formats')} is empty; expected at least one of csv, parquet, delta.`);
  integer(field('export.delta.retainDays'), config.export.delta.retainDays, 0, 3650);
  integer(field('export.delta.logRetainDays'), config.export.delta.logRetainDays, 1, 3650);
  integer(field('export.retainRuns'), config.export.retainRuns, 1);
  integer(field('export.parquetRowGroupSize'), config.export.parquetRowGroupSize, 1000);
  if (config.export.url !== '') parseTargetOrThrow(config.export.url, field('export.url'));
  validateEndpoint(config.export.s3.endpoint, field('export.s3.endpoint'));
  // S3 allows 5 MiB to 5 GiB per part; 10,000 parts of the largest size cover any export file.
  integer(field('export.s3.partSizeMiB'), config.export.s3.partSizeMiB, 5, 5120);
  if (config.state.url !== '') validateStatePlace(config.state.url, config.export.url, field('state.url'), field('export.url'));
  // A lease must outlast a few store round trips, a held-up answer and the margin a holder leaves unused (a sixth, at least).
  integer(field('state.leaseSeconds'), config.state.leaseSeconds, MIN_LEASE_SECONDS, Math.floor(MAX_TIMER_MS / 1000));
  integer(field('state.leaseWaitSeconds'), config.state.leaseWaitSeconds, 0, Math.floor(MAX_TIMER_MS / 1000));
  positive(field('state.retainHours'), config.state.retainHours);
  // A holder relies on five sixths of its lease, and checks before each write to the API that the request's whole timeout still fits.
  if (config.state.url !== '' && (config.state.leaseSeconds * 1000 * 5) / 6 <= config.api.requestTimeoutMs) {
    const least = Math.floor((config.api.requestTimeoutMs * 6) / 5 / 1000) + 1;
    throw new ConfigError(`${field('state.leaseSeconds')} is ${config.state.leaseSeconds}; expected at least ${least} with api.requestTimeoutMs ${config.api.requestTimeoutMs}: a run relies on five sixths of its lease, and each write it sends to the API must fit in that.`);
  }
  integer(field('verify.requests'), config.verify.requests, 1);
  validateTimezone(config.schedule.timezone, field('schedule.timezone'));
  for (const job of ['sync', 'push', 'refresh', 'deepRefresh', 'export', 'verify'] as const) {
    const expression = config.schedule[job];
    if (!cron.validate(expression)) {
      throw new ConfigError(`${field(`schedule.${job}`)} is "${expression}"; expected a cron expression such as "*/15 * * * *".`);
    }
    const outOfRange = cronRangeProblem(expression);
    if (outOfRange !== null) {
      throw new ConfigError(`${field(`schedule.${job}`)} is "${expression}", whose ${outOfRange.replace(/^the /, '')}; expected a cron expression such as "*/15 * * * *".`);
    }
  }
  // Both become timers, which Node cannot set beyond 2^31-1 ms (it would fire after 1 ms instead).
  integer(field('runtime.lockLeaseSeconds'), config.runtime.lockLeaseSeconds, 1, Math.floor(MAX_TIMER_MS / 1000));
  positive(field('runtime.shutdownDeadlineSeconds'), config.runtime.shutdownDeadlineSeconds);
  if (config.runtime.shutdownDeadlineSeconds * 1000 > MAX_TIMER_MS) {
    throw new ConfigError(`${field('runtime.shutdownDeadlineSeconds')} is ${describe(config.runtime.shutdownDeadlineSeconds)}; expected at most ${Math.floor(MAX_TIMER_MS / 1000)} (a Node timer's limit).`);
  }
  if (config.runtime.metricsListen !== '') {
    const address = parseListenAddress(config.runtime.metricsListen);
    if (typeof address === 'string') throw new ConfigError(`${field('runtime.metricsListen')} ${address}.`);
  }
  positive(field('health.maxSyncAgeMinutes'), config.health.maxSyncAgeMinutes);
  positive(field('health.maxUnknownAgeHours'), config.health.maxUnknownAgeHours);
  positive(field('health.maxExportAgeHours'), config.health.maxExportAgeHours);
  validateTimezone(config.program.timeZone, field('program.timeZone'));
  if (config.ledger.pointValue !== null && (typeof config.ledger.pointValue !== 'string' || !POINT_VALUE.test(config.ledger.pointValue))) {
    throw new ConfigError(`${field('ledger.pointValue')} is ${describe(config.ledger.pointValue)}; expected a non-negative decimal string of at most 12 digits before the point and 12 after, such as "0.01", or null.`);
  }
  if (!(LOG_LEVELS as readonly string[]).includes(config.log.level)) {
    throw new ConfigError(`${field('log.level')} is "${config.log.level}"; expected one of ${LOG_LEVELS.join(', ')}.`);
  }
}

/** A point's money value: digits with an optional fraction, as money is written in the mirror. */
const POINT_VALUE = /^\d{1,12}(\.\d{1,12})?$/;

/** The smallest `api.maxResponseBytes` accepted: 1 MiB. */
const MIN_RESPONSE_BYTES = 1024 * 1024;

/**
 * Hosts a request to which never leaves the machine: `localhost`, an IPv4 literal in 127.0.0.0/8 and
 * `[::1]`. The URL parser has already written any IPv4 literal (`0x7f.1`, `2130706433`) as four decimal
 * parts, so a name that merely starts with `127.` (`127.attacker.example`) does not match.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The one check of the API base URL, which every command runs before it sends the key: plain http would
 * send the Bearer key in clear, so it is allowed only to a loopback host. Throws a ConfigError (exit 2).
 */
export function validateBaseUrl(value: string, field = 'Config key "api.baseUrl" (or LOYALTY_BASE_URL)'): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${field} is "${value}"; expected an http(s) URL such as https://api.example.com.`);
  }
  if (url.username !== '' || url.password !== '') {
    // Never echoed: the part before @ is a credential, and this sentence reaches logs.
    throw new ConfigError(
      `${field} carries a user name or password before ${url.host}; expected a URL without credentials (the key goes in LOYALTY_API_KEY).`,
    );
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw new ConfigError(
      `${field} is "${value}"; expected https, since plain http is allowed only for loopback (localhost, 127.0.0.0/8, [::1]).`,
    );
  }
  throw new ConfigError(`${field} is "${value}"; expected an http(s) URL.`);
}

/**
 * A warning for a service reached over plain http beyond loopback (an S3 endpoint or a Pushgateway,
 * often plain inside a cluster): allowed, but what travels there can be read on the way. Null otherwise.
 */
export function plainHttpWarning(value: string, what: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `${what} ${url.origin} is plain http: what is sent there can be read and altered on the way; use https unless that network is private.`;
}

function parseTargetOrThrow(value: string, field: string): BucketPlace {
  try {
    return parseBucketPlace(value, field);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function parseStateUrlOrThrow(value: string, field: string): ReturnType<typeof parseStateUrl> {
  try {
    return parseStateUrl(value, field);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * The state's place must be apart from the export target's: each deletes its own objects under its prefix
 * (the export's retention, the state's sweep), so one inside the other would delete the other's files.
 */
function validateStatePlace(stateUrl: string, exportUrl: string, stateField: string, exportField: string): void {
  const parsed = parseStateUrlOrThrow(stateUrl, stateField);
  if (parsed.kind !== 'bucket' || exportUrl === '') return;
  const state = parsed.place;
  const target = parseTargetOrThrow(exportUrl, exportField);
  if (state.bucket !== target.bucket) return;
  const inside = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);
  if (inside(state.prefix, target.prefix) || inside(target.prefix, state.prefix)) {
    const relation = state.prefix === target.prefix ? 'the same place as' : inside(state.prefix, target.prefix) ? 'inside' : 'around';
    throw new ConfigError(`${stateField} is "${stateUrl}", ${relation} the export target "${exportUrl}" (export.url); expected a prefix of its own, such as s3://${state.bucket}/${target.prefix}-state, since each deletes its own old objects under its prefix.`);
  }
}

function validateEndpoint(value: string, field: string): void {
  if (value === '') return;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ConfigError(`${field} is "${value}"; expected an http(s) URL such as https://storage.googleapis.com.`);
  }
}

function validateTimezone(value: string, field: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw new ConfigError(`${field} is "${value}"; expected an IANA time zone such as UTC or Europe/Paris.`);
  }
}

/** The shortest lease on a state in a bucket. */
export const MIN_LEASE_SECONDS = 30;

function integer(field: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw new ConfigError(`${field} is ${describe(value)}; expected ${range}.`);
  }
}

function positive(field: string, value: number, allowZero = false): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(`${field} is ${describe(value)}; expected a ${allowZero ? 'non-negative' : 'positive'} number.`);
  }
}

function share(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(`${field} is ${describe(value)}; expected a number from 0 to 1.`);
  }
}

function nonEmpty(field: string, value: string): void {
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${field} is ${describe(value)}; expected a non-empty path.`);
}

function oneOfEach<T extends string>(field: string, values: readonly string[], allowed: readonly T[]): void {
  if (!Array.isArray(values)) throw new ConfigError(`${field} is ${describe(values)}; expected an array.`);
  for (const value of values) {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ConfigError(`${field} contains ${describe(value)}; expected only ${allowed.join(', ')}.`);
    }
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function describe(value: unknown): string {
  return `${JSON.stringify(value)} (${typeOf(value)})`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
