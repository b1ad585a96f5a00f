import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sentences, type CliResult } from '../helpers/cli.js';
import { fillMirror, tempDir } from '../export/helpers.js';
import { freePort } from '../../scripts/swift-server.mjs';
import { awsEnv, listKeys, newBucket, storeClient } from './helpers.js';

const WRONG_SECRET = 'wrong-secret-d41d8cd98f00b204';

/** What every failure must look like: one line, naming the bucket, no stack, no secret. */
function expectOneSentence(result: CliResult, bucket: string): void {
  expect(result.code, result.stderr).toBe(1);
  const lines = sentences(result.stderr).trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`"${bucket}"`);
  expect(result.stderr).not.toMatch(/\n\s+at |node_modules/);
  expect(result.stderr + result.stdout).not.toContain(WRONG_SECRET);
  expect(result.stderr + result.stdout).not.toContain(awsEnv().AWS_SECRET_ACCESS_KEY);
}

describe('export --to: failures a user can cause', () => {
  const dir = tempDir();
  const client = storeClient();
  let bucket: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    (await fillMirror(join(dir, 'mirror.db'), 5, 'tiny')).close();
    bucket = await newBucket(client);
    env = { ...awsEnv(), LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
  });
  afterAll(() => client.destroy());

  it('wrong credentials: exit 1, one sentence naming the bucket and the refused operation', async () => {
    const result = await runCli(['export', '--to', `s3://${bucket}/loyalty`], { env: { ...env, AWS_SECRET_ACCESS_KEY: WRONG_SECRET } });
    expectOneSentence(result, bucket);
    expect(result.stderr).toMatch(/refused ListObjectsV2 on bucket/);
    expect(await listKeys(client, bucket)).toEqual([]);
  });

  it('no credentials at all: exit 1, one sentence saying where credentials come from', async () => {
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...withoutKeys } = env;
    const result = await runCli(['export', '--to', `s3://${bucket}/loyalty`], { env: withoutKeys });
    expectOneSentence(result, bucket);
    expect(result.stderr).toMatch(/No AWS credentials were found/);
  });

  it('a bucket that does not exist: exit 1, naming it', async () => {
    const result = await runCli(['export', '--to', 's3://no-such-bucket-here/loyalty'], { env });
    expectOneSentence(result, 'no-such-bucket-here');
    expect(result.stderr).toMatch(/does not exist/);
  });

  it('an endpoint nobody listens on: exit 1, naming the bucket and the address', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(['export', '--to', `s3://${bucket}/loyalty`], { env: { ...env, AWS_ENDPOINT_URL_S3: closed } });
    expectOneSentence(result, bucket);
    expect(result.stderr).toContain(`Cannot reach the object store at ${closed}`);
  });

  it.each([
    ['s3://', /--to is "s3:\/\/"; expected a bucket name/],
    ['s3://UPPER_case/x', /--to is "s3:\/\/UPPER_case\/x"; expected a bucket name of 3 to 63 lower-case/],
    ['gs://x/y', /--to is "gs:\/\/x\/y"; expected an s3:\/\/ URL/],
    ['s3://my-bucket', /--to is "s3:\/\/my-bucket"; expected a prefix after the bucket/],
    ['s3://my-bucket/', /--to is "s3:\/\/my-bucket\/"; expected a prefix after the bucket/],
    ['', /--to is ""; expected s3:\/\/BUCKET\/PREFIX/],
    ['s3://my-bucket/a/../b', /expected a prefix without empty, "\." or "\.\." segments/],
  ])('a bad target %j: exit 2, naming the value', async (target, message) => {
    const result = await runCli(['export', '--to', target], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(sentences(result.stderr).trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['AWS_ENDPOINT_URL_S3', 'minio:9000'],
    ['AWS_ENDPOINT_URL', 'not a url'],
  ])('an endpoint variable %s that is no http(s) URL: exit 2, naming the variable and the value', async (variable, value) => {
    const { AWS_ENDPOINT_URL_S3: _endpoint, ...withoutEndpoint } = env;
    const result = await runCli(['export', '--to', `s3://${bucket}/loyalty`], { env: { ...withoutEndpoint, [variable]: value } });
    expect(result.code, result.stderr).toBe(2);
    expect(sentences(result.stderr).trim()).toBe(`loyalty-sync: ${variable} is "${value}"; expected an http(s) URL such as https://storage.googleapis.com.`);
  });

  it('a bad LOYALTY_EXPORT_URL stops every command that reads the config with exit 2', async () => {
    const result = await runCli(['status'], { env: { ...env, LOYALTY_EXPORT_URL: 'gs://bucket/x' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Config key "export.url" \(or LOYALTY_EXPORT_URL\) is "gs:\/\/bucket\/x"; expected an s3:\/\/ URL/);
  });
});
