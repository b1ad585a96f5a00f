import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sentences } from '../helpers/cli.js';
import { startRefusingApi, type RefusingApi } from '../helpers/refusingApi.js';
import { tempDir } from '../helpers/tempDir.js';

/**
 * With a state in the bucket, a configuration or usage error must stop a run before the lease and the restore: a
 * refused run costs nothing and changes nothing. Both the "bucket" and the "API" here are loopback servers
 * that count every request they get (and refuse it), so any request at all shows.
 */
describe('a configuration or usage error with state.url set: one sentence, exit 2, and not one request to the bucket or the API', () => {
  let bucket: RefusingApi;
  let api: RefusingApi;
  const dir = tempDir('ls-config-first-');

  beforeAll(async () => {
    bucket = await startRefusingApi(403);
    api = await startRefusingApi(401);
  });
  afterAll(async () => {
    await bucket.close();
    await api.close();
  });

  /** A stateless job's environment, as the recipes give it, with the mirror in a folder that does not exist yet. */
  const jobEnv = (name: string): Record<string, string> => ({
    AWS_ACCESS_KEY_ID: 'test-access-key',
    AWS_SECRET_ACCESS_KEY: 'test-secret-key',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    LOYALTY_EXPORT__S3__ENDPOINT: bucket.url,
    LOYALTY_EXPORT__S3__FORCE_PATH_STYLE: 'true',
    LOYALTY_API_KEY: 'sk_test_config_first',
    LOYALTY_BASE_URL: api.url,
    LOYALTY_STATE_URL: 's3://loyalty-state/program-a',
    LOYALTY_EXPORT_URL: 's3://loyalty-exports/program-a',
    LOYALTY_EXPORT__KEEP_LOCAL: 'false',
    LOYALTY_DB: join(dir, name, 'loyalty', 'mirror.db'),
    LOYALTY_EXPORT_DIR: join(dir, name, 'loyalty', 'exports'),
  });

  /** Runs `args` with `change` applied to a job's environment (undefined unsets), and checks the refusal. */
  async function refused(name: string, args: string[], change: Record<string, string | undefined>, sentence: RegExp): Promise<void> {
    const env = { ...jobEnv(name), ...change };
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
    const [bucketBefore, apiBefore] = [bucket.requests().length, api.requests().length];
    const result = await runCli(args, { env: env as Record<string, string> });
    expect(result.code, result.stderr).toBe(2);
    const lines = sentences(result.stderr).trimEnd().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(sentence);
    expect(result.stderr).not.toContain('sk_test_config_first');
    expect(bucket.requests().slice(bucketBefore)).toEqual([]);
    expect(api.requests().slice(apiBefore)).toEqual([]);
    // Nothing was restored or created either.
    expect(existsSync(join(dir, name))).toBe(false);
  }

  it.each([
    ['LOYALTY_STATEURL', /^loyalty-sync: LOYALTY_STATEURL is not a variable loyalty-sync reads, though it starts with LOYALTY_; the nearest known names are LOYALTY_STATE_URL \("state\.url"\), /],
    ['LOYALTY_STATE_URI', /^loyalty-sync: LOYALTY_STATE_URI is not a variable loyalty-sync reads, though it starts with LOYALTY_; the nearest known names are LOYALTY_STATE_URL \("state\.url"\), /],
    ['LOYALTY_EXPORT_KEEP_LOCAL', /^loyalty-sync: LOYALTY_EXPORT_KEEP_LOCAL is not a variable loyalty-sync reads, though it starts with LOYALTY_; the nearest known names are LOYALTY_EXPORT__KEEP_LOCAL \("export\.keepLocal"\), /],
  ])('refuses the unknown variable %s, naming the nearest known ones', async (name, sentence) => {
    await refused(`unknown-${name}`, ['once', '--export-daily'], { [name]: name === 'LOYALTY_EXPORT_KEEP_LOCAL' ? 'false' : 's3://loyalty-state/program-a' }, sentence);
  });

  it.each(['once', 'sync', 'push', 'verify', 'run'])('%s without LOYALTY_API_KEY stops before the lease and the restore', async (command) => {
    await refused(`nokey-${command}`, [command], { LOYALTY_API_KEY: undefined }, new RegExp(`^loyalty-sync: LOYALTY_API_KEY is not set; export the program API key in that variable and run ${command} again\\.$`));
  });

  it('refuses a value of the wrong form, naming the variable and the key', async () => {
    await refused('bad-value', ['once'], { LOYALTY_STATE__LEASE_SECONDS: 'five minutes' }, /^loyalty-sync: LOYALTY_STATE__LEASE_SECONDS is "five minutes"; expected a number \(config key "state\.leaseSeconds"\)\.$/);
  });

  it("refuses a state URL on the export target's prefix, or with a query", async () => {
    await refused('same-place', ['once'], { LOYALTY_STATE_URL: 's3://loyalty-exports/program-a' }, /^loyalty-sync: Config key "state\.url" \(or LOYALTY_STATE_URL\) is "s3:\/\/loyalty-exports\/program-a", the same place as the export target "s3:\/\/loyalty-exports\/program-a" \(export\.url\); expected a prefix of its own/);
    await refused('query', ['status'], { LOYALTY_STATE_URL: 's3://loyalty-state/program-a?versionId=2' }, /^loyalty-sync: Config key "state\.url" \(or LOYALTY_STATE_URL\) is "s3:\/\/loyalty-state\/program-a\?versionId=2"; expected s3:\/\/BUCKET\/PREFIX without a query or fragment/);
  });

  it("refuses once's flags that cannot work before the lease: a Pushgateway that is no URL", async () => {
    await refused('bad-flag', ['once', '--pushgateway', 'pushgateway:9091'], {}, /^loyalty-sync: --pushgateway is "pushgateway:9091"; expected an http\(s\) URL/);
  });

  // Every command that holds the state checks its flags before the lease and the restore, as once does.
  it.each([
    [['sync', '--stream', 'nosuch'], /^loyalty-sync: --stream is "nosuch"; expected one of customers, orders, activities, transactions, unsubscribes\.$/],
    [['sync', '--fulll'], /^loyalty-sync: sync: Unknown option '--fulll'; see "loyalty-sync sync --help"\.$/],
    [['push', '--all'], /^loyalty-sync: push: Unknown option '--all'; see "loyalty-sync push --help"\.$/],
    [['export', '--format', 'xml'], /^loyalty-sync: --format contains "xml"; expected csv, parquet, delta \(comma-separated\)\.$/],
    [['run', '--metrics-listen', 'nohost:port'], /^loyalty-sync: --metrics-listen is "nohost:port"; expected HOST:PORT such as 0\.0\.0\.0:9464/],
    [['status', '--jsn'], /^loyalty-sync: status: Unknown option '--jsn'; see "loyalty-sync status --help"\.$/],
    [['verify', '--requests', '0'], /^loyalty-sync: --requests is 0; expected a whole number from 1 to /],
    [['verify', '--ledger', '--full'], /^loyalty-sync: verify: --ledger reconciles the mirror alone and takes no --full; give --ledger \[--json\]\.$/],
    [['balances', '--as-of', 'notadate'], /^loyalty-sync: --as-of is "notadate"; expected a calendar date written YYYY-MM-DD, such as 2026-03-31\.$/],
    [['report'], /^loyalty-sync: report: --out FILE\.html is required \(where to write the page\)\.$/],
    [['report', '--out', '/nonexistent-folder/report.html'], /^loyalty-sync: --out is "\/nonexistent-folder\/report\.html"; its folder \/nonexistent-folder does not exist: create it first or choose another path\.$/],
    [['queue', 'add-points', '--customer', 'C-1', '--points', 'abc', '--reason', 'r'], /^loyalty-sync: --points is "abc"; expected a non-zero whole number\.$/],
    [['queue', 'import', '--kind', 'nope', 'writes.csv'], /^loyalty-sync: --kind is "nope"; expected one of add_points, /],
    [['queue', 'list', '--state', 'nosuch'], /^loyalty-sync: --state is "nosuch"; expected one of queued, /],
    [['queue', 'retry', 'abc'], /^loyalty-sync: queue retry: the job ID is "abc"; expected a job number/],
    [['queue', 'cancel'], /^loyalty-sync: queue cancel takes one job ID, got 0; see "loyalty-sync queue cancel --help"\.$/],
    [['queue', 'frobnicate'], /^loyalty-sync: Unknown queue subcommand "frobnicate"; expected one of: add-points, /],
  ])('refuses the bad usage %j before the lease and the restore', async (args, sentence) => {
    await refused(`usage-${args.join('-').replace(/[^a-z0-9-]/gi, '')}`, args, {}, sentence);
  });

  it.each([['sync'], ['push'], ['export'], ['once'], ['run'], ['status'], ['verify'], ['balances'], ['report'], ['queue'], ['queue', 'add-points'], ['queue', 'list'], ['queue', 'retry']].map((command) => [command]))(
    '%j --help prints its usage without the state or the API',
    async (command) => {
      const name = `help-${command.join('-')}`;
      const [bucketBefore, apiBefore] = [bucket.requests().length, api.requests().length];
      const result = await runCli([...command, '--help'], { env: jobEnv(name) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: loyalty-sync /);
      expect(bucket.requests().slice(bucketBefore)).toEqual([]);
      expect(api.requests().slice(apiBefore)).toEqual([]);
      expect(existsSync(join(dir, name))).toBe(false);
    },
  );
});
