/** What the AWS SDK's errors carry that a message needs; absent fields mean the store said nothing of it. */
interface SdkErrorFields {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

const CREDENTIAL_REFUSALS = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'AuthorizationHeaderMalformed', 'Forbidden']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

function fields(error: unknown): SdkErrorFields {
  return typeof error === 'object' && error !== null ? (error as SdkErrorFields) : { message: String(error) };
}

/** The network-level code of an error or of one of its causes (the SDK wraps socket errors). */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth += 1) {
    const { code, name } = fields(current);
    if (code !== undefined && UNREACHABLE_CODES.has(code)) return code;
    if (name === 'TimeoutError') return 'ETIMEDOUT';
    current = fields(current).cause;
  }
  return undefined;
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'connection reset',
};

/** Whether the store answered that it does not implement an operation (optional ones differ by store). */
export function isNotImplemented(error: unknown): boolean {
  const { name, code, $metadata } = fields(error);
  return name === 'NotImplemented' || code === 'NotImplemented' || $metadata?.httpStatusCode === 501;
}

/** Whether a conditional write was refused because its condition did not hold (412): for `If-None-Match: *`, an object is there. */
export function isPreconditionFailed(error: unknown): boolean {
  const { name, $metadata } = fields(error);
  return name === 'PreconditionFailed' || $metadata?.httpStatusCode === 412;
}

/** Whether another conditional write to the key was in flight (409 ConditionalRequestConflict): worth sending again. */
export function isConditionalConflict(error: unknown): boolean {
  const { name, $metadata } = fields(error);
  return name === 'ConditionalRequestConflict' || $metadata?.httpStatusCode === 409;
}

/**
 * Whether the store refused a PUT because it does not implement conditional writes: 501, or a 400 whose
 * message names the condition (stores differ in the code they give).
 */
export function refusesConditions(error: unknown): boolean {
  if (isNotImplemented(error)) return true;
  const { message, $metadata } = fields(error);
  return $metadata?.httpStatusCode === 400 && /if-none-match|conditional/i.test(message ?? '');
}

/** Whether the object or upload asked for is not there (a missing bucket is not that: it is an error). */
export function isNotFound(error: unknown): boolean {
  const { name, $metadata } = fields(error);
  if (name === 'NoSuchBucket') return false;
  return name === 'NotFound' || name === 'NoSuchKey' || name === 'NoSuchUpload' || $metadata?.httpStatusCode === 404;
}

/**
 * One sentence for a failed request: which operation on which bucket, and what to check. It names the
 * bucket and the endpoint, never a credential; the SDK's stack and XML stay out (LOG_LEVEL=debug logs them).
 */
export function describeBucketError(operation: string, bucket: string, endpoint: string, error: unknown): string {
  const { name, message, $metadata } = fields(error);
  const status = $metadata?.httpStatusCode;
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(message ?? '')) {
    return `No AWS credentials were found for ${operation} on bucket "${bucket}": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a web identity or instance role.`;
  }
  if ((name !== undefined && CREDENTIAL_REFUSALS.has(name)) || status === 403 || status === 401) {
    return `The object store refused ${operation} on bucket "${bucket}" (${name ?? `HTTP ${status}`}): check the AWS credentials and the bucket's permissions.`;
  }
  if (name === 'NoSuchBucket') return `Bucket "${bucket}" does not exist at ${endpoint} (${operation}).`;
  const network = networkCode(error);
  if (network !== undefined) return `Cannot reach the object store at ${endpoint} for ${operation} on bucket "${bucket}": ${NETWORK_WORDS[network] ?? network}.`;
  const detail = [name && name !== 'Error' ? name : undefined, status ? `HTTP ${status}` : undefined].filter(Boolean).join(', ');
  return `${operation} on bucket "${bucket}" failed${detail ? ` (${detail})` : ''}: ${oneLine(message ?? 'no message')}.`.replace(/\.\.$/, '.');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** An error whose message is already the sentence for the user. */
export class BucketError extends Error {
  override readonly name = 'BucketError';
}

/** BucketObjects wraps the SDK's error in a sentence; the answer's name and status are on its cause. */
export function sdkError(error: unknown): unknown {
  return error instanceof BucketError ? error.cause : error;
}
