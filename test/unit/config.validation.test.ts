import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function userFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'ls-config-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadConfig', () => {
  it('uses the defaults, then the user file, then the environment', () => {
    const file = userFile({ api: { pageSize: 200 }, db: { path: '/from/file.db' } });
    const config = loadConfig({
      file,
      env: { LOYALTY_DB: '/from/env.db', LOYALTY_API_KEY: 'k-123456', LOYALTY_BASE_URL: 'https://api.example.com', LOG_LEVEL: 'warn' },
    });
    expect(config.api.pageSize).toBe(200);
    expect(config.db.path).toBe('/from/env.db');
    expect(config.api.apiKey).toBe('k-123456');
    expect(config.api.baseUrl).toBe('https://api.example.com');
    expect(config.log.level).toBe('warn');
    expect(config.api.requestsPerSecond).toBe(20);
    expect(Object.isFrozen(config.api)).toBe(true);
  });

  it('reads LOYALTY_CONFIG when no --config is given', () => {
    const file = userFile({ export: { retainRuns: 3 } });
    expect(loadConfig({ env: { LOYALTY_CONFIG: file } }).export.retainRuns).toBe(3);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['a wrong type', { api: { pageSize: '500' } }, /"api\.pageSize" is "500" \(a string\); expected a number/],
    ['an unknown key', { sync: { lookbakDays: 3 } }, /Unknown config key "sync\.lookbakDays"/],
    ['a bad cron expression', { schedule: { sync: 'every 5 minutes' } }, /"schedule\.sync" is "every 5 minutes"; expected a cron expression/],
    ['a non-http base URL', { api: { baseUrl: 'ftp://api.example.com' } }, /"api\.baseUrl".*"ftp:\/\/api\.example\.com"; expected an http\(s\) URL/],
    ['plain http to a remote host', { api: { baseUrl: 'http://api.example.com' } }, /"api\.baseUrl".*expected https, since plain http is allowed only for loopback/],
    ['credentials in the base URL', { api: { baseUrl: 'https://svc:sk_live_secret@api.example.com' } }, /"api\.baseUrl" \(or LOYALTY_BASE_URL\) carries a user name or password before api\.example\.com; expected a URL without credentials/],
    ['a lock lease beyond a timer\'s limit', { runtime: { lockLeaseSeconds: 3_000_000 } }, /"runtime\.lockLeaseSeconds" is 3000000 .*from 1 to 2147483/],
    ['a shutdown deadline beyond a timer\'s limit', { runtime: { shutdownDeadlineSeconds: 3_000_000 } }, /"runtime\.shutdownDeadlineSeconds" is 3000000 .*at most 2147483/],
    ['a page size over the API limit', { api: { pageSize: 501 } }, /"api\.pageSize" is 501 .*from 1 to 500/],
    ['an unknown stream', { sync: { streams: ['customers', 'reviews'] } }, /"sync\.streams" contains "reviews"/],
    ['a bad time zone', { schedule: { timezone: 'Mars/Olympus' } }, /"schedule\.timezone" is "Mars\/Olympus"/],
    ['a publication target that is not s3://', { export: { url: 'https://bucket.example.com/x' } }, /"export\.url" \(or LOYALTY_EXPORT_URL\) is "https:\/\/bucket\.example\.com\/x"; expected an s3:\/\/ URL/],
    ['a publication target without a prefix', { export: { url: 's3://exports' } }, /"export\.url".*"s3:\/\/exports"; expected a prefix after the bucket/],
    ['an endpoint that is not a URL', { export: { s3: { endpoint: 'minio:9000' } } }, /"export\.s3\.endpoint" is "minio:9000"; expected an http\(s\) URL/],
    ['a part size below S3\'s minimum', { export: { s3: { partSizeMiB: 4 } } }, /"export\.s3\.partSizeMiB" is 4 .*from 5 to 5120/],
    ['a removal share above 1', { sync: { maxRemovedShare: 1.5 } }, /"sync\.maxRemovedShare" is 1\.5 \(a number\); expected a number from 0 to 1/],
    ['a Delta log retention of 0 days', { export: { delta: { logRetainDays: 0 } } }, /"export\.delta\.logRetainDays" is 0 .*from 1 to 3650/],
    ['a state URL with a query', { state: { url: 's3://state/loyalty?versionId=3' } }, /^Config key "state\.url" \(or LOYALTY_STATE_URL\) is "s3:\/\/state\/loyalty\?versionId=3"; expected s3:\/\/BUCKET\/PREFIX without a query or fragment/],
    ['a state URL with a fragment', { state: { url: 's3://state/loyalty#a' } }, /"state\.url".*"s3:\/\/state\/loyalty#a"; expected s3:\/\/BUCKET\/PREFIX without a query or fragment/],
    ['a state URL equal to the export target', { state: { url: 's3://shared/loyalty/' }, export: { url: 's3://shared/loyalty' } }, /^Config key "state\.url" \(or LOYALTY_STATE_URL\) is "s3:\/\/shared\/loyalty\/", the same place as the export target "s3:\/\/shared\/loyalty" \(export\.url\); expected a prefix of its own, such as s3:\/\/shared\/loyalty-state, since each deletes its own old objects under its prefix\.$/],
    ['a state URL inside the export target', { state: { url: 's3://shared/loyalty/state' }, export: { url: 's3://shared/loyalty' } }, /"state\.url".*, inside the export target/],
    ['a state URL around the export target', { state: { url: 's3://shared/loyalty' }, export: { url: 's3://shared/loyalty/exports' } }, /"state\.url".*, around the export target/],
    ['a lease on the state shorter than 30 s', { state: { leaseSeconds: 29 } }, /"state\.leaseSeconds" is 29 .*from 30 to 2147483/],
    ['a lease on the state that a request to the API would not fit in', { state: { url: 's3://bucket/state', leaseSeconds: 36 }, api: { requestTimeoutMs: 30000 } }, /"state\.leaseSeconds" is 36; expected at least 37 with api\.requestTimeoutMs 30000: a run relies on five sixths of its lease/],
    ['a point value with more decimals than the ledger keeps', { ledger: { pointValue: '0.0000000000001' } }, /"ledger\.pointValue".*"0\.0000000000001".*at most 12 digits before the point and 12 after/],
    ['a point value with more whole digits than the ledger keeps', { ledger: { pointValue: '1234567890123' } }, /"ledger\.pointValue".*"1234567890123".*at most 12 digits before the point and 12 after/],
    ['a response limit below 1 MiB', { api: { maxResponseBytes: 1000 } }, /"api\.maxResponseBytes" is 1000 \(a number\); expected an integer >= 1048576/],
  ];
  for (const [what, content, message] of bad) {
    it(`refuses ${what}, naming the key and the value`, () => {
      const file = userFile(content);
      expect(() => loadConfig({ file, env: {} })).toThrow(ConfigError);
      expect(() => loadConfig({ file, env: {} })).toThrow(message);
    });
  }

  it('never repeats the password of a base URL that carries one', () => {
    const file = userFile({ api: { baseUrl: 'https://svc:sk_live_secret@api.example.com' } });
    expect(() => loadConfig({ file, env: {} })).toThrow(ConfigError);
    try {
      loadConfig({ file, env: {} });
    } catch (error) {
      expect((error as Error).message).not.toContain('sk_live_secret');
    }
  });

  it('allows plain http on loopback addresses only', () => {
    for (const url of ['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:9000']) {
      expect(loadConfig({ env: { LOYALTY_BASE_URL: url } }).api.baseUrl).toBe(url);
    }
  });

  it('takes a state beside the export target: another prefix of the same bucket, or the same prefix of another', () => {
    expect(loadConfig({ env: { LOYALTY_STATE_URL: 's3://shared/loyalty-state', LOYALTY_EXPORT_URL: 's3://shared/loyalty' } }).state.url).toBe('s3://shared/loyalty-state');
    expect(loadConfig({ env: { LOYALTY_STATE_URL: 's3://state/loyalty', LOYALTY_EXPORT_URL: 's3://exports/loyalty' } }).state.url).toBe('s3://state/loyalty');
  });

  it('reads the publication target from LOYALTY_EXPORT_URL', () => {
    expect(loadConfig({ env: { LOYALTY_EXPORT_URL: 's3://exports/loyalty' } }).export.url).toBe('s3://exports/loyalty');
    expect(loadConfig({ env: {} }).export.url).toBe('');
  });

  it('refuses a bad LOG_LEVEL from the environment', () => {
    expect(() => loadConfig({ env: { LOG_LEVEL: 'loud' } })).toThrow(/"log\.level" \(or LOG_LEVEL\) is "loud"/);
  });

  it('names the file when it is not JSON', () => {
    const file = userFile('{ "api": ');
    expect(() => loadConfig({ file, env: {} })).toThrow(new RegExp(`config file .*config\\.json is not valid JSON`));
  });
});
