import { ConfigError } from './configError.js';

/**
 * The environment form of every config key, derived from the keys of config/default.json so that a key added
 * there has its variable at once. Lookups go from key to variable name, never back, so the name's lost
 * capitalisation does not matter; the derivation is checked to give every key a variable of its own.
 */

/** What a key of config/default.json holds. */
export type ConfigValue = string | number | boolean | string[] | null;

/** A config object as read from JSON: sections and leaf values. */
export interface ConfigTree {
  readonly [key: string]: unknown;
}

/** One config key and its variable. */
export interface ConfigVariable {
  /** For example `export.s3.partSizeMiB`. */
  key: string;
  /** For example `LOYALTY_EXPORT__S3__PART_SIZE_MIB`. */
  variable: string;
  /** The key's default, whose JSON type a value from the environment must have. */
  defaultValue: ConfigValue;
}

/** A value the environment gives one config key. */
export interface EnvironmentSetting {
  key: string;
  variable: string;
  value: ConfigValue;
}

const PREFIX = 'LOYALTY_';
const SECTION_SEPARATOR = '__';
/** The key's only variable: `api.apiKey` has no mapped form, so it never sits in a config map beside the settings. */
const API_KEY_VARIABLE = 'LOYALTY_API_KEY';
/** How many known variables an unknown one is answered with. */
const NEAREST_SHOWN = 3;

/**
 * The variable of a config key: `LOYALTY_`, then the key's sections joined by `__`, each in upper case with
 * `_` before every capital letter that is followed by a lower-case one. A unit in capitals stays one word:
 * `sync.deepRefreshIntervalHours` is LOYALTY_SYNC__DEEP_REFRESH_INTERVAL_HOURS, `export.s3.partSizeMiB` is
 * LOYALTY_EXPORT__S3__PART_SIZE_MIB.
 */
export function variableOfKey(key: string): string {
  return PREFIX + key.split('.').map((section) => section.replace(/(?<=.)(?=[A-Z][a-z])/g, '_').toUpperCase()).join(SECTION_SEPARATOR);
}

/** Every leaf key of `defaults` with its variable, in the order of the file. */
export function configVariables(defaults: ConfigTree): ConfigVariable[] {
  const variables = leaves(defaults, '').map(([key, defaultValue]) => ({ key, variable: variableOfKey(key), defaultValue }));
  const seen = new Map<string, string>();
  for (const { key, variable } of variables) {
    const other = seen.get(variable);
    // A programming error in config/default.json, not a user's: no ConfigError.
    if (other !== undefined) throw new Error(`Config keys "${other}" and "${key}" both map to ${variable}; rename one.`);
    seen.set(variable, key);
  }
  return variables;
}

/**
 * The values the environment gives config keys, parsed by the JSON type of each key's default. Throws a
 * ConfigError naming the variable for a value of the wrong form, and for a variable that looks like a key's
 * (`LOYALTY_` and a `__`) but names none, so a misspelt setting is not silently ignored.
 */
export function readEnvironmentSettings(defaults: ConfigTree, env: NodeJS.ProcessEnv): EnvironmentSetting[] {
  const variables = configVariables(defaults);
  const known = new Set(variables.map(({ variable }) => variable));
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith(PREFIX) && name.includes(SECTION_SEPARATOR) && !known.has(name)) throw unknownVariable(name, variables);
  }
  const settings: EnvironmentSetting[] = [];
  for (const { key, variable, defaultValue } of variables) {
    const text = env[variable];
    if (text === undefined) continue;
    const value = parseValue(text, defaultValue);
    if ('expected' in value) throw new ConfigError(`${variable} is ${JSON.stringify(text)}; expected ${value.expected} (config key "${key}").`);
    settings.push({ key, variable, value: value.parsed });
  }
  return settings;
}

function leaves(node: ConfigTree, prefix: string): Array<[string, ConfigValue]> {
  return Object.entries(node).flatMap(([name, child]): Array<[string, ConfigValue]> => {
    const key = prefix ? `${prefix}.${name}` : name;
    if (isTree(child)) return leaves(child, key);
    // null is the default of an optional string (ledger.pointValue): its variable gives the string.
    if (typeof child === 'string' || typeof child === 'number' || typeof child === 'boolean' || child === null) return [[key, child]];
    if (Array.isArray(child) && child.every((item) => typeof item === 'string')) return [[key, child]];
    throw new Error(`Config key "${key}" holds ${JSON.stringify(child)}, which has no environment form; expected a string, number, boolean or array of strings.`);
  });
}

/** The value `text` gives a key whose default is `defaultValue`, or what was expected instead. */
function parseValue(text: string, defaultValue: ConfigValue): { parsed: ConfigValue } | { expected: string } {
  if (typeof defaultValue === 'string') return { parsed: text };
  if (defaultValue === null) return { parsed: text.trim() === '' ? null : text };
  if (typeof defaultValue === 'number') {
    // Number() alone would take "", " ", "0x1f" and "Infinity".
    const value = Number(text);
    return /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) && Number.isFinite(value) ? { parsed: value } : { expected: 'a number' };
  }
  if (typeof defaultValue === 'boolean') {
    const word = text.trim();
    return word === 'true' || word === 'false' ? { parsed: word === 'true' } : { expected: 'true or false' };
  }
  if (text.trim() === '') return { parsed: [] };
  const items = text.split(',').map((item) => item.trim());
  if (!items.includes('')) return { parsed: items };
  return { expected: `a comma-separated list without empty items, such as "${defaultValue.length > 0 ? defaultValue.join(', ') : 'a, b'}"` };
}

function unknownVariable(name: string, variables: readonly ConfigVariable[]): ConfigError {
  if (name === variableOfKey('api.apiKey')) return new ConfigError(`${name} is not read; the API key comes from ${API_KEY_VARIABLE} only.`);
  const nearest = variables
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate.variable) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, NEAREST_SHOWN)
    .map(({ candidate }) => `${candidate.variable} ("${candidate.key}")`);
  return new ConfigError(`${name} names no config key, though its LOYALTY_ and __ say it should; the nearest are ${nearest.join(', ')}.`);
}

/** Levenshtein distance: the fewest single-character edits turning `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function isTree(value: unknown): value is ConfigTree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
