import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { ConfigError, type Config } from '../config.js';
import { registerSecret } from '../log.js';
import { answersNotRetriedForClockSkew } from './clockSkewRetries.js';

/** Tries of one request (the first included) on throttling, 5xx and dropped connections: the SDK's standard backoff with jitter. */
const MAX_ATTEMPTS = 8;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A socket silent this long fails its request, which is then retried: a store that accepts a request
 * and never answers must not hang a CronJob. (The handler's requestTimeout would only warn on stderr.)
 */
const SOCKET_IDLE_TIMEOUT_MS = 120_000;

export interface BucketClient {
  s3: S3Client;
  /** Where requests go, for messages: the custom endpoint, or "AWS S3 (REGION)". */
  endpointLabel: string;
  /**
   * AWS S3 itself verifies a whole-object SHA-256 and the SDK's default CRC32 checksums. Other stores
   * reject or mangle the SDK's checksum framing (R2 answers 501, GCS multipart 412, Swift 501), so for
   * them checksums are sent only where an operation requires one, and a single PUT carries Content-MD5.
   */
  isAws: boolean;
}

/**
 * The S3 client for publishing. Credentials come only from the AWS default provider chain (env keys,
 * AWS_PROFILE and shared files, web identity / IRSA, container and instance roles), never from
 * loyalty-sync's config; the endpoint and region from the config, else the AWS environment variables.
 */
export function createBucketClient(settings: Readonly<Config['export']['s3']>, env: NodeJS.ProcessEnv = process.env): BucketClient {
  // The version is pinned in package.json; the SDK's notice about its future releases needing Node 22 is not the operator's concern.
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  for (const secret of [env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN]) if (secret) registerSecret(secret);

  const endpoint = resolveEndpoint(settings.endpoint, env);
  const region = settings.region || env.AWS_REGION || 'us-east-1';
  const isAws = endpoint === undefined || /\.amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname);
  const s3 = new S3Client({
    endpoint,
    region,
    forcePathStyle: settings.forcePathStyle,
    maxAttempts: MAX_ATTEMPTS,
    requestChecksumCalculation: isAws ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED',
    responseChecksumValidation: isAws ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: SOCKET_IDLE_TIMEOUT_MS },
    // On AWS, a bucket in another region than the one configured answers with a redirect the SDK can follow.
    followRegionRedirects: isAws,
    // Outside AWS, a store or proxy that never answers "Expect: 100-continue" would stall every part by seconds.
    ...(isAws ? {} : { expectContinueHeader: false }),
  });
  answersNotRetriedForClockSkew(s3);
  if (!isAws) useContentMd5ForDeletes(s3);
  if (endpoint !== undefined && /(^|\.)storage\.googleapis\.com$/i.test(new URL(endpoint).hostname)) useGenerationPreconditions(s3);
  return { s3, endpointLabel: endpoint ?? `AWS S3 (${region})`, isAws };
}

/**
 * The endpoint from the config, else the AWS convention's variables, checked here because the
 * variables reach no config validation: a bad one is named, not met later as "Invalid URL".
 */
function resolveEndpoint(configured: string, env: NodeJS.ProcessEnv): string | undefined {
  const [value, source] = configured
    ? [configured, 'Config key "export.s3.endpoint"']
    : env.AWS_ENDPOINT_URL_S3
      ? [env.AWS_ENDPOINT_URL_S3, 'AWS_ENDPOINT_URL_S3']
      : [env.AWS_ENDPOINT_URL, 'AWS_ENDPOINT_URL'];
  if (!value) return undefined;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {
    // Reported below.
  }
  if (protocol !== 'https:' && protocol !== 'http:') throw new ConfigError(`${source} is "${value}"; expected an http(s) URL such as https://storage.googleapis.com.`);
  return value;
}

/**
 * DeleteObjects must carry a checksum. The SDK sends a CRC32 header, which GCS and Swift do not
 * accept: they require Content-MD5. Outside AWS, the CRC32 is replaced by the MD5 of the same body.
 */
function useContentMd5ForDeletes(s3: S3Client): void {
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (context.commandName === 'DeleteObjectsCommand' && request.headers && (typeof request.body === 'string' || request.body instanceof Uint8Array)) {
        for (const name of Object.keys(request.headers)) {
          if (name.toLowerCase().startsWith('x-amz-checksum-') || name.toLowerCase() === 'x-amz-sdk-checksum-algorithm') delete request.headers[name];
        }
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'loyaltyContentMd5ForDeletes', priority: 'low' },
  );
}

/**
 * GCS's XML API ignores `If-None-Match` on uploads; its create-only condition is a generation
 * precondition, `x-goog-if-generation-match: 0` (the object must not exist). A create-only PUT to GCS
 * carries both, so the probe, the Delta commits and the state's lease hold there too.
 */
function useGenerationPreconditions(s3: S3Client): void {
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      const input = args.input as { IfNoneMatch?: string };
      if (context.commandName === 'PutObjectCommand' && input.IfNoneMatch === '*' && request.headers) request.headers['x-goog-if-generation-match'] = '0';
      return next(args);
    },
    { step: 'build', name: 'loyaltyGcsGenerationPrecondition', priority: 'low' },
  );
}
