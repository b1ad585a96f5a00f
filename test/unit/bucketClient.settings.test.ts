import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createBucketClient } from '../../src/bucket/client.js';

const settings = (overrides: Partial<Config['export']['s3']> = {}): Config['export']['s3'] => ({ endpoint: '', region: '', forcePathStyle: false, partSizeMiB: 16, ...overrides });

/** Where a client built from these settings and this environment sends its requests, and how it checks them. */
async function resolved(s3: Config['export']['s3'], env: NodeJS.ProcessEnv): Promise<{ label: string; region: string; isAws: boolean }> {
  const client = createBucketClient(s3, { ...env });
  try {
    return { label: client.endpointLabel, region: await client.s3.config.region(), isAws: client.isAws };
  } finally {
    client.s3.destroy();
  }
}

describe('createBucketClient', () => {
  it('takes the endpoint from the config, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else AWS itself', async () => {
    const env = { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_ENDPOINT_URL: 'http://127.0.0.1:9999' };
    expect((await resolved(settings({ endpoint: 'https://storage.googleapis.com' }), env)).label).toBe('https://storage.googleapis.com');
    expect((await resolved(settings(), env)).label).toBe('http://127.0.0.1:9000');
    expect((await resolved(settings(), { AWS_ENDPOINT_URL: 'http://127.0.0.1:9999' })).label).toBe('http://127.0.0.1:9999');
    expect(await resolved(settings(), {})).toEqual({ label: 'AWS S3 (us-east-1)', region: 'us-east-1', isAws: true });
  });

  it('takes the region from the config, else AWS_REGION, else us-east-1', async () => {
    expect((await resolved(settings({ region: 'eu-west-1' }), { AWS_REGION: 'ap-south-1' })).region).toBe('eu-west-1');
    expect((await resolved(settings(), { AWS_REGION: 'ap-south-1' })).region).toBe('ap-south-1');
    expect((await resolved(settings({ endpoint: 'http://127.0.0.1:9000' }), {})).region).toBe('us-east-1');
  });

  it('checks uploads the AWS way only on AWS hosts', async () => {
    expect((await resolved(settings({ endpoint: 'https://s3.eu-west-1.amazonaws.com' }), {})).isAws).toBe(true);
    expect((await resolved(settings({ endpoint: 'https://acct.r2.cloudflarestorage.com' }), {})).isAws).toBe(false);
    expect((await resolved(settings(), { AWS_ENDPOINT_URL_S3: 'http://minio.internal:9000' })).isAws).toBe(false);
  });

  it('adds GCS\'s generation precondition to a create-only PUT there, and only there', async () => {
    /** The headers a PUT would carry, caught just before it is sent (nothing leaves the process). */
    // Credentials come from the provider chain; the request is signed, then caught.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_EC2_METADATA_DISABLED: 'true' });
    const headersOf = async (endpoint: string, input: { IfNoneMatch?: string }): Promise<Record<string, string>> => {
      const client = createBucketClient(settings({ endpoint, region: 'auto' }), {});
      let seen: Record<string, string> = {};
      client.s3.middlewareStack.add(
        () => async (args) => {
          seen = { ...(args.request as { headers: Record<string, string> }).headers };
          throw new Error('caught before sending');
        },
        { step: 'finalizeRequest', name: 'testCatch', priority: 'low' },
      );
      await client.s3.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x', ...input })).catch(() => undefined);
      client.s3.destroy();
      return seen;
    };
    const gcs = await headersOf('https://storage.googleapis.com', { IfNoneMatch: '*' });
    expect(gcs['if-none-match']).toBe('*');
    expect(gcs['x-goog-if-generation-match']).toBe('0');
    expect((await headersOf('https://storage.googleapis.com', {}))['x-goog-if-generation-match']).toBeUndefined();
    const r2 = await headersOf('https://acct.r2.cloudflarestorage.com', { IfNoneMatch: '*' });
    expect(r2['if-none-match']).toBe('*');
    expect(r2['x-goog-if-generation-match']).toBeUndefined();
  });
});
