/**
 * The two retention windows a Delta table carries in its `metaData.configuration`, as Spark and
 * delta-rs read them for their own cleanup: `delta.deletedFileRetentionDuration` (how long a removed
 * data file stays, the time-travel window) and `delta.logRetentionDuration` (how long JSON commits a
 * checkpoint covers stay). loyalty-sync writes its configured windows there, and honours a value
 * another engine set (`ALTER TABLE … SET TBLPROPERTIES`).
 */

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export const FILE_RETENTION = 'delta.deletedFileRetentionDuration';
export const LOG_RETENTION = 'delta.logRetentionDuration';
type RetentionKey = typeof FILE_RETENTION | typeof LOG_RETENTION;

/**
 * Beside each property, the value loyalty-sync last wrote to it. A property that differs from its note
 * was set by another engine, and wins; one equal to it is loyalty-sync's own, and follows the config.
 */
const NOTE: Record<RetentionKey, string> = {
  [FILE_RETENTION]: 'loyalty_sync.deletedFileRetentionDuration',
  [LOG_RETENTION]: 'loyalty_sync.logRetentionDuration',
};

/** export.delta's windows, in days. */
export interface ConfiguredRetention {
  retainDays: number;
  logRetainDays: number;
}

/** The windows cleanup applies to one table, in ms; Infinity keeps everything (a property that cannot be read). */
export interface TableRetention {
  fileMs: number;
  logMs: number;
  /** One sentence per property another engine set that cannot be read. */
  unreadable: string[];
}

/** Spark's interval units as DeltaConfigs accepts them (months and years are not: they have no fixed length). */
const UNIT_MS: Record<string, number> = {
  week: 7 * DAY_MS,
  day: DAY_MS,
  hour: HOUR_MS,
  minute: 60_000,
  second: 1000,
  millisecond: 1,
  microsecond: 0.001,
};

/**
 * Milliseconds of a Spark calendar interval as `delta.*RetentionDuration` takes it: an optional
 * `interval`, then one or more `NUMBER UNIT` pairs (`interval 7 days`, `2 weeks`, `1 day 12 hours`),
 * case-insensitive. Null for anything else, or a negative total.
 */
export function parseInterval(text: string): number | null {
  const words = text.trim().toLowerCase().split(/\s+/);
  if (words[0] === 'interval') words.shift();
  if (words.length === 0 || words.length % 2 !== 0) return null;
  let total = 0;
  for (let index = 0; index < words.length; index += 2) {
    const amount = words[index];
    const unit = UNIT_MS[words[index + 1].replace(/s$/, '')];
    if (!/^-?\d+(\.\d+)?$/.test(amount) || unit === undefined) return null;
    total += Number(amount) * unit;
  }
  return Number.isFinite(total) && total >= 0 ? total : null;
}

/** The form loyalty-sync writes, which every engine parses. */
function daysInterval(days: number): string {
  return `interval ${days} days`;
}

const configuredText = (key: RetentionKey, configured: ConfiguredRetention): string =>
  daysInterval(key === FILE_RETENTION ? configured.retainDays : configured.logRetainDays);

/** Whether another engine set the property: it is there and differs from what loyalty-sync last wrote. */
function setElsewhere(configuration: Readonly<Record<string, string>>, key: RetentionKey): boolean {
  const value = configuration[key];
  return value !== undefined && value !== configuration[NOTE[key]];
}

/**
 * The configuration a table should carry, or null when it already does: each window loyalty-sync owns
 * (absent, or still what it last wrote) set to the configured one, with its note; a window another
 * engine set is left as it is.
 */
export function retentionConfiguration(configuration: Readonly<Record<string, string>>, configured: ConfiguredRetention): Record<string, string> | null {
  const next = { ...configuration };
  for (const key of [FILE_RETENTION, LOG_RETENTION] as const) {
    if (setElsewhere(configuration, key)) continue;
    next[key] = configuredText(key, configured);
    next[NOTE[key]] = next[key];
  }
  const changed = Object.keys(next).some((key) => next[key] !== configuration[key]);
  return changed ? next : null;
}

/** The windows vacuum and log cleanup apply to a table at `location`: the table's own where another engine set them, else the configured. */
export function tableRetention(configuration: Readonly<Record<string, string>>, configured: ConfiguredRetention, location: string): TableRetention {
  const unreadable: string[] = [];
  const windowOf = (key: RetentionKey): number => {
    const text = setElsewhere(configuration, key) ? configuration[key] : configuredText(key, configured);
    const ms = parseInterval(text);
    if (ms !== null) return ms;
    unreadable.push(
      `The Delta table at ${location} has ${key} "${text}"; expected an interval such as "interval 7 days" (weeks, days, hours, minutes, seconds), so nothing it governs is deleted until it is fixed.`,
    );
    return Number.POSITIVE_INFINITY;
  };
  return { fileMs: windowOf(FILE_RETENTION), logMs: windowOf(LOG_RETENTION), unreadable };
}
