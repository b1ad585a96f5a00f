import { createHash, randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import type { Config } from '../../src/config.js';

// The test's own client is on Node 20 too; the pinned SDK's notice about its future releases is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const swift = (): { endpoint: string; accessKeyId: string; secretAccessKey: string } => inject('swift');

/** The AWS variables a loyalty-sync process needs to reach the test store: credentials from the environment, as in production. */
export function awsEnv(endpoint = swift().endpoint): Record<string, string> {
  const { accessKeyId, secretAccessKey } = swift();
  return {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    // No instance metadata look-ups (a link-local address) and no shared files of the machine.
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  };
}

/** Makes `process.env` of this test file point the exporter at the store (vitest forks each file). */
export function useAwsEnv(endpoint?: string): void {
  Object.assign(process.env, awsEnv(endpoint));
}

/** A client straight to the store, for the test's own checks and set-up. */
export function storeClient(): S3Client {
  const { endpoint, accessKeyId, secretAccessKey } = swift();
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId, secretAccessKey },
  });
}

/** A new bucket with a unique name. */
export async function newBucket(client: S3Client): Promise<string> {
  const bucket = `t-${randomBytes(6).toString('hex')}`;
  // Swift's account server may still be starting on a busy machine: it answers 503 until it is up.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 503 || attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export async function listKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

export async function getBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

export async function getJson<T>(client: S3Client, bucket: string, key: string): Promise<T> {
  return JSON.parse((await getBytes(client, bucket, key)).toString('utf8')) as T;
}

export async function putText(client: S3Client, bucket: string, key: string, text: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text }));
}

export async function openUploads(client: S3Client, bucket: string): Promise<string[]> {
  const answer = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return (answer.Uploads ?? []).map((upload) => `${upload.Key ?? ''}#${upload.UploadId ?? ''}`);
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Publication settings for the test store: the endpoint comes from AWS_ENDPOINT_URL_S3 (useAwsEnv), parts are S3's smallest. */
export function testS3Settings(): Config['export']['s3'] {
  return { endpoint: '', region: '', forcePathStyle: true, partSizeMiB: 5 };
}
