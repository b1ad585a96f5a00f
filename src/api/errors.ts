import { redact } from '../log.js';

/**
 * - `retryable`: sending the same request again is safe and may succeed (429, 5xx, nothing sent, or an idempotent request).
 * - `permanent`: sending it again will fail the same way (other 4xx, a response that breaks the contract).
 * - `ambiguous`: a non-idempotent write may have reached the API and its outcome is unknown; resending risks applying it twice.
 */
export type ErrorKind = 'retryable' | 'permanent' | 'ambiguous';

export interface ApiErrorInit {
  kind: ErrorKind;
  method: string;
  /** The request path without its query string. */
  path: string;
  status?: number;
  /** The API's error code (`not_found`, `rate_limited`…), or the socket error code when no response came. */
  code?: string;
  apiMessage?: string;
  details?: Record<string, string>;
  retryAfterMs?: number;
  /** What went wrong, in words ("the connection was reset"), when the status alone does not say it. */
  reason?: string;
  cause?: unknown;
}

/**
 * A failed API call as a typed value; its message is one sentence fit for a user. Text the
 * API sent back is redacted too, since a server may echo the credential.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ErrorKind;
  readonly status?: number;
  readonly code?: string;
  readonly apiMessage?: string;
  readonly details?: Record<string, string>;
  readonly retryAfterMs?: number;
  readonly method: string;
  readonly path: string;
  readonly reason?: string;

  constructor(init: ApiErrorInit) {
    super(redact(sentence(init)), init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.apiMessage = init.apiMessage === undefined ? undefined : redact(init.apiMessage);
    this.details = init.details === undefined ? undefined : Object.fromEntries(Object.entries(init.details).map(([k, v]) => [k, redact(v)]));
    this.retryAfterMs = init.retryAfterMs;
    this.method = init.method;
    this.path = init.path;
    this.reason = init.reason;
  }
}

function sentence(init: ApiErrorInit): string {
  const request = `${init.method} ${init.path}`;
  if (init.reason !== undefined) {
    const status = init.status === undefined ? '' : ` (status ${init.status})`;
    if (init.kind === 'ambiguous') return `${request} may or may not have been applied: ${init.reason}${status}`;
    return `${request} failed: ${init.reason}${status}`;
  }
  if (init.status === 401) return 'the API rejected the credential (401)';
  const message = init.apiMessage ? ` ${init.apiMessage}` : '';
  const code = init.code ? ` (${init.code})` : '';
  return `${request} failed: ${init.status ?? 'unknown failure'}${message}${code}`;
}

/** The one place retry decisions are made, for pull and push alike. */
export function isRetryable(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'retryable';
}

/** One sentence for a user: no stack, no HTTP noise, no secrets. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return redact(error.message);
  return redact(String(error));
}

/** Part 7: a response status alone decides retryable or permanent. */
export function kindOfStatus(status: number): ErrorKind {
  return status === 429 || status >= 500 ? 'retryable' : 'permanent';
}

/** GET, PUT and DELETE can be resent after a failure in flight; POST (points, claims, orders) cannot. */
export function isIdempotent(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE';
}

/** The request may have reached the API: the failure's kind then depends on whether resending is safe. */
export function kindAfterSending(method: string): ErrorKind {
  return isIdempotent(method) ? 'retryable' : 'ambiguous';
}

export interface ParsedErrorBody {
  apiMessage?: string;
  code?: string;
  details?: Record<string, string>;
}

/**
 * Reads both error shapes of part 7: `{error:{message,code?,details?}}` and `{error:"text"}`.
 * Anything else (empty, HTML, not JSON) yields nothing: the status still classifies the error.
 */
export function parseErrorBody(text: string): ParsedErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null || !('error' in body)) return {};
  const error = body.error;
  if (typeof error === 'string') return { apiMessage: error };
  if (typeof error !== 'object' || error === null) return {};
  const parsed: ParsedErrorBody = {};
  if ('message' in error && typeof error.message === 'string') parsed.apiMessage = error.message;
  if ('code' in error && typeof error.code === 'string') parsed.code = error.code;
  if ('details' in error && isStringRecord(error.details)) parsed.details = error.details;
  return parsed;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** Socket-level codes that mean the connection was never made, so the request was never sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EADDRNOTAVAIL: 'the address is not available',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  UND_ERR_SOCKET: 'the connection was closed by the other side',
  UND_ERR_HEADERS_TIMEOUT: 'the response headers timed out',
  UND_ERR_BODY_TIMEOUT: 'the response body timed out',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the response body was truncated',
};

/** The code of a Node/undici error, looking through AggregateError (happy-eyeballs connects) and causes. */
export function transportCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    if (current instanceof AggregateError && current.errors[0] !== undefined) current = current.errors[0];
    else current = current.cause;
  }
  return undefined;
}

/** A TLS session could not be set up (certificate or protocol): the API cannot be reached until someone fixes it. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(VERIFY|GET)_)/;

/**
 * The API could not be reached at all (connection refused, name not resolved, TLS refused), as
 * opposed to an API that answered badly: a 429, a 5xx or a dropped connection is not this.
 */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ApiError && error.status === undefined && error.code !== undefined && (NOT_SENT_CODES.has(error.code) || TLS_CODE.test(error.code));
}

/** The API did nothing with the request: it was never sent, or the API answered that it is rate limited. */
export function leftUntouched(error: ApiError): boolean {
  return error.status === 429 || (error.status === undefined && error.code !== undefined && NOT_SENT_CODES.has(error.code));
}

/**
 * Classifies a failure below HTTP of one attempt: before any response (`request`), or while
 * its body was arriving (`body`).
 */
export function transportError(method: string, path: string, error: unknown, phase: 'request' | 'body' = 'request'): ApiError {
  const code = transportCode(error);
  const notSent = phase === 'request' && code !== undefined && NOT_SENT_CODES.has(code);
  const what = phase === 'body' ? 'the response broke off before its body was complete' : (code && REASONS[code]) || 'the connection failed';
  const reason = code === undefined ? what : `${what} (${code})`;
  return new ApiError({ kind: notSent ? 'retryable' : kindAfterSending(method), method, path, code, reason, cause: error });
}
