import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { configVariables, variableOfKey, type ConfigTree, type ConfigValue } from '../../src/configEnv.js';

const defaults = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as ConfigTree;
const variables = configVariables(defaults);

/** A string value each string key accepts, and one its check refuses (none for a key without a check). */
const STRING_VALUES: Record<string, { valid: string; invalid?: string }> = {
  'api.baseUrl': { valid: 'https://api.example.com', invalid: 'ftp://api.example.com' },
  'db.path': { valid: '/srv/loyalty/mirror.db', invalid: '' },
  'export.dir': { valid: '/srv/loyalty/exports', invalid: ' ' },
  'export.url': { valid: 's3://exports/loyalty', invalid: 'https://exports.example.com/loyalty' },
  'export.s3.endpoint': { valid: 'https://storage.googleapis.com', invalid: 'minio:9000' },
  'export.s3.region': { valid: 'eu-west-1' },
  'state.url': { valid: 's3://state/loyalty', invalid: 's3://state' },
  'schedule.timezone': { valid: 'Europe/Paris', invalid: 'Mars/Olympus' },
  'schedule.sync': { valid: '*/5 * * * *', invalid: 'every 5 minutes' },
  'schedule.push': { valid: '*/2 * * * *', invalid: '61 * * * *' },
  'schedule.refresh': { valid: '0 4 * * *', invalid: 'daily' },
  'schedule.deepRefresh': { valid: '30 4 * * 0', invalid: 'weekly' },
  'schedule.export': { valid: '0 1 * * *', invalid: '0 25 * * *' },
  'schedule.verify': { valid: '0 5 * * *', invalid: 'never' },
  'runtime.metricsListen': { valid: '127.0.0.1:9464', invalid: 'port 9464' },
  'log.level': { valid: 'warn', invalid: 'loud' },
  'program.timeZone': { valid: 'America/New_York', invalid: 'Mars/Olympus' },
  'ledger.pointValue': { valid: '0.01', invalid: 'one cent' },
};

/** A valid value other than the default, as the environment writes it and as the config then holds it. */
function otherValue(key: string, defaultValue: ConfigValue): { text: string; value: ConfigValue } {
  if (typeof defaultValue === 'number') {
    const value = defaultValue > 1 ? defaultValue - 1 : defaultValue / 2;
    return { text: String(value), value };
  }
  if (typeof defaultValue === 'boolean') return { text: String(!defaultValue), value: !defaultValue };
  if (Array.isArray(defaultValue)) {
    const value = [...defaultValue].reverse().slice(0, Math.max(1, defaultValue.length - 1));
    return { text: value.join(' , '), value };
  }
  const example = STRING_VALUES[key];
  if (example === undefined) throw new Error(`STRING_VALUES lacks an example for the string key ${key}`);
  return { text: example.valid, value: example.valid };
}

function valueAt(config: object, key: string): unknown {
  return key.split('.').reduce<unknown>((node, section) => (node as Record<string, unknown>)[section], config);
}

function userFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ls-config-env-')), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('the environment form of every config key', () => {
  it('names variables LOYALTY_, the sections joined by __, each camelCase word in UPPER_SNAKE', () => {
    expect(variableOfKey('export.formats')).toBe('LOYALTY_EXPORT__FORMATS');
    expect(variableOfKey('sync.deepRefreshIntervalHours')).toBe('LOYALTY_SYNC__DEEP_REFRESH_INTERVAL_HOURS');
    expect(variableOfKey('export.s3.partSizeMiB')).toBe('LOYALTY_EXPORT__S3__PART_SIZE_MIB');
    expect(variableOfKey('state.leaseSeconds')).toBe('LOYALTY_STATE__LEASE_SECONDS');
    expect(variableOfKey('api.slowdownAfter429Ms')).toBe('LOYALTY_API__SLOWDOWN_AFTER429_MS');
  });

  it('matches the examples the README gives', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Settings from the environment'));
    const examples = [...section.matchAll(/^- `([a-zA-Z0-9.]+)`: `([A-Z0-9_]+)=([^`]*)`/gm)];
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const [, key, variable, text] of examples) {
      expect(variableOfKey(key), key).toBe(variable);
      expect(() => loadConfig({ env: { [variable]: text } }), variable).not.toThrow();
    }
  });

  it('gives every key of config/default.json a variable of its own, and refuses a file where two keys would share one', () => {
    const names = variables.map(({ variable }) => variable);
    expect(names.length).toBeGreaterThan(50);
    expect(new Set(names).size).toBe(names.length);
    expect(() => configVariables({ api: { pageSize: 1, page_size: 2 } })).toThrow(/"api\.pageSize" and "api\.page_size" both map to LOYALTY_API__PAGE_SIZE/);
  });

  for (const { key, variable, defaultValue } of variables) {
    it(`sets ${key} from ${variable}`, () => {
      const { text, value } = otherValue(key, defaultValue);
      expect(value).not.toEqual(defaultValue);
      expect(valueAt(loadConfig({ env: { [variable]: text } }), key)).toEqual(value);
    });

    if (typeof defaultValue === 'number' || typeof defaultValue === 'boolean' || Array.isArray(defaultValue)) {
      const text = Array.isArray(defaultValue) ? 'csv,,delta' : 'abc';
      const expected = typeof defaultValue === 'number' ? 'a number' : typeof defaultValue === 'boolean' ? 'true or false' : 'a comma-separated list';
      it(`refuses a value of ${variable} of the wrong form, naming the variable, the value and the key`, () => {
        expect(messageOf(() => loadConfig({ env: { [variable]: text } }))).toMatch(
          new RegExp(`^${variable} is "${text}"; expected ${expected}.* \\(config key "${key.replace(/\./g, '\\.')}"\\)\\.$`),
        );
      });
    }

    const invalid = typeof defaultValue === 'number' ? '-1' : typeof defaultValue === 'string' ? STRING_VALUES[key]?.invalid : undefined;
    if (invalid !== undefined) {
      it(`names ${variable} when ${key}'s check refuses its value ${JSON.stringify(invalid)}`, () => {
        expect(messageOf(() => loadConfig({ env: { [variable]: invalid } }))).toContain(`Config key "${key}" (or ${variable})`);
      });
    }
  }

  it('refuses numbers with trailing text, empty, NaN, Infinity or hex', () => {
    for (const text of ['12abc', '', ' ', 'NaN', 'Infinity', '0x10', '1e999']) {
      expect(messageOf(() => loadConfig({ env: { LOYALTY_API__PAGE_SIZE: text } }))).toBe(
        `LOYALTY_API__PAGE_SIZE is ${JSON.stringify(text)}; expected a number (config key "api.pageSize").`,
      );
    }
    expect(loadConfig({ env: { LOYALTY_SYNC__MAX_REMOVED_SHARE: ' 0.25 ' } }).sync.maxRemovedShare).toBe(0.25);
    expect(loadConfig({ env: { LOYALTY_API__REQUESTS_PER_SECOND: '2.5e1' } }).api.requestsPerSecond).toBe(25);
  });

  it('reads booleans as true or false only', () => {
    expect(loadConfig({ env: { LOYALTY_EXPORT__KEEP_LOCAL: 'false' } }).export.keepLocal).toBe(false);
    expect(loadConfig({ env: { LOYALTY_EXPORT__S3__FORCE_PATH_STYLE: 'true' } }).export.s3.forcePathStyle).toBe(true);
    for (const text of ['1', '0', 'yes', 'False', '']) {
      expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__KEEP_LOCAL: text } }))).toBe(
        `LOYALTY_EXPORT__KEEP_LOCAL is ${JSON.stringify(text)}; expected true or false (config key "export.keepLocal").`,
      );
    }
  });

  it('reads arrays as comma-separated lists with spaces trimmed, an empty value as an empty list', () => {
    expect(loadConfig({ env: { LOYALTY_EXPORT__FORMATS: 'csv, delta' } }).export.formats).toEqual(['csv', 'delta']);
    expect(loadConfig({ env: { LOYALTY_SYNC__STREAMS: ' orders ' } }).sync.streams).toEqual(['orders']);
    expect(loadConfig({ env: { LOYALTY_SYNC__STREAMS: '' } }).sync.streams).toEqual([]);
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__FORMATS: 'csv, delta,' } }))).toBe(
      'LOYALTY_EXPORT__FORMATS is "csv, delta,"; expected a comma-separated list without empty items, such as "csv, parquet" (config key "export.formats").',
    );
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__FORMATS: 'csv, avro' } }))).toBe(
      'Config key "export.formats" (or LOYALTY_EXPORT__FORMATS) contains "avro" (a string); expected only csv, parquet, delta.',
    );
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__FORMATS: '' } }))).toMatch(/^Config key "export\.formats" \(or LOYALTY_EXPORT__FORMATS\) is empty/);
  });

  it('keeps strings as they are, an empty one included', () => {
    const file = userFile({ export: { url: 's3://exports/loyalty' } });
    expect(loadConfig({ file, env: { LOYALTY_EXPORT__URL: '' } }).export.url).toBe('');
    expect(loadConfig({ env: { LOYALTY_EXPORT__S3__REGION: ' eu-west-1' } }).export.s3.region).toBe(' eu-west-1');
  });

  it('refuses a LOYALTY_…__… variable that names no key, naming it and the nearest keys', () => {
    expect(messageOf(() => loadConfig({ env: { LOYALTY_API__PAGESIZE: '100' } }))).toMatch(
      /^LOYALTY_API__PAGESIZE names no config key, though its LOYALTY_ and __ say it should; the nearest are LOYALTY_API__PAGE_SIZE \("api\.pageSize"\), [^;]+\.$/,
    );
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__S3__PART_SIZE_MI_B: '8' } }))).toContain(
      'the nearest are LOYALTY_EXPORT__S3__PART_SIZE_MIB ("export.s3.partSizeMiB")',
    );
  });

  it('has no mapped form of the API key, and says where the key goes without repeating it', () => {
    const message = messageOf(() => loadConfig({ env: { LOYALTY_API__API_KEY: 'sk_live_secret' } }));
    expect(message).toBe('LOYALTY_API__API_KEY is not read; the API key comes from LOYALTY_API_KEY only.');
  });

  it('leaves other LOYALTY_ variables alone', () => {
    expect(loadConfig({ env: { LOYALTY_CACHE: '/tmp/cache', LOYALTY_SWIFT_HOME: '/tmp/swift', LOYALTY_ANYTHING_ELSE: 'x' } }).api.pageSize).toBe(500);
  });

  it('applies defaults, then the file, then overrides, then mapped variables, then the named variables', () => {
    const file = userFile({ api: { pageSize: 200, burst: 3 }, db: { path: '/from/file.db' }, export: { dir: '/from/file' } });
    const config = loadConfig({
      file,
      overrides: { db: { path: '/from/overrides.db' }, export: { dir: '/from/overrides' } },
      env: {
        LOYALTY_API__PAGE_SIZE: '300',
        LOYALTY_DB__PATH: '/from/mapped.db',
        LOYALTY_DB: '/from/named.db',
        LOYALTY_EXPORT__DIR: '/from/mapped',
        LOYALTY_EXPORT_DIR: '',
      },
    });
    expect(config.api.pageSize).toBe(300);
    expect(config.api.burst).toBe(3);
    expect(config.db.path).toBe('/from/named.db');
    // An empty named variable counts as unset, as it always has; the mapped one then applies.
    expect(config.export.dir).toBe('/from/mapped');
    expect(config.api.requestsPerSecond).toBe(20);
  });

  it('names the variable that set a value the checks refuse: the named one over the mapped one', () => {
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__URL: 's3://ok/prefix', LOYALTY_EXPORT_URL: 's3://bucket' } }))).toMatch(
      /^Config key "export\.url" \(or LOYALTY_EXPORT_URL\)/,
    );
    expect(messageOf(() => loadConfig({ env: { LOYALTY_EXPORT__URL: 's3://bucket' } }))).toMatch(/^Config key "export\.url" \(or LOYALTY_EXPORT__URL\)/);
    expect(messageOf(() => loadConfig({ file: userFile({ api: { pageSize: 501 } }), env: {} }))).toMatch(/^Config key "api\.pageSize" is 501/);
  });
});
