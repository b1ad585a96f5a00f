import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { toolVersion } from '../version.js';
import { ApiError, isIdempotent, kindAfterSending, transportError } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  method: HttpMethod;
  /** Starts with /v2; path segments already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/**
 * A response whose status arrived. The body can still fail to arrive whole, and then the
 * status alone may be enough (a 201 on a write means it landed).
 */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** `bytes` as received, `text` decoded from them as UTF-8. */
  body: { ok: true; text: string; bytes: Uint8Array } | { ok: false; error: ApiError };
}

export interface HttpTransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Covers the whole exchange: connecting, headers and body. */
  requestTimeoutMs: number;
  /** A body larger than this is abandoned as it arrives (config `api.maxResponseBytes`). */
  maxResponseBytes: number;
}

// Replaces malformed sequences as undici's text() does; a body that then fails to parse is retried.
const UTF8 = new TextDecoder('utf-8');

/** One HTTP exchange at a time per call, over a keep-alive pool to the API's origin; no retries here. */
export class HttpTransport {
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #maxBodyBytes: number;

  constructor(options: HttpTransportOptions) {
    const base = new URL(options.baseUrl);
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#timeoutMs = options.requestTimeoutMs;
    this.#maxBodyBytes = options.maxResponseBytes;
    this.#pool = new Pool(base.origin, {
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
      connect: { timeout: options.requestTimeoutMs },
    });
    this.#headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      // A product token is name/version; toolVersion() says "loyalty-sync 0.1.0".
      'user-agent': toolVersion().replace(' ', '/'),
    };
  }

  /** Resolves once a status arrived; rejects with a classified ApiError when none did. */
  async send(request: HttpRequest, signal?: AbortSignal): Promise<HttpResponse> {
    // One controller per exchange rather than AbortSignal.any, which on Node 20 leaks every
    // combined signal into a long-lived caller signal (nodejs/node#55351).
    const exchange = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort(new Error(`no complete response within ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
    const onCallerAbort = () => exchange.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (signal?.aborted) onCallerAbort();
    const failure = (error: unknown, phase: 'request' | 'body') => this.#failure(request, error, phase, timedOut, signal);
    try {
      const headers = request.body === undefined ? this.#headers : { ...this.#headers, 'content-type': 'application/json' };
      let response;
      try {
        response = await this.#pool.request({
          method: request.method,
          path: this.#prefix + request.path + queryString(request.query),
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: exchange.signal,
        });
      } catch (error) {
        throw failure(error, 'request');
      }
      const answer = (body: HttpResponse['body']): HttpResponse => ({ status: response.statusCode, headers: response.headers, body });
      try {
        const bytes = await readCapped(response.body, response.headers['content-length'], this.#maxBodyBytes);
        return answer({ ok: true, text: UTF8.decode(bytes), bytes });
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) return answer({ ok: false, error: failure(error, 'body') });
        response.body.destroy();
        return answer({ ok: false, error: tooLargeError(request, this.#maxBodyBytes, response.statusCode) });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  /** Our own aborts are told apart from socket failures, which `transportError` classifies. */
  #failure(request: HttpRequest, error: unknown, phase: 'request' | 'body', timedOut: boolean, signal: AbortSignal | undefined): ApiError {
    const { method, path } = request;
    if (signal?.aborted) {
      return new ApiError({ kind: kindAfterSending(method), method, path, reason: 'the call was cancelled', cause: error });
    }
    if (timedOut) {
      const reason = `no complete response within ${this.#timeoutMs} ms`;
      return new ApiError({ kind: kindAfterSending(method), method, path, code: 'ETIMEDOUT', reason, cause: error });
    }
    return transportError(method, path, error, phase);
  }
}

/** Thrown by `readCapped` when a body outgrows the limit; never leaves this module. */
class BodyTooLarge extends Error {}

/**
 * The whole body, refused as soon as it is known to exceed `limit` bytes: from its Content-Length, else
 * while it arrives, counting per chunk (not per byte), so at most `limit` bytes are ever held. The bytes
 * are copied into one ArrayBuffer of their own, which a sync can move to its storage thread.
 */
async function readCapped(body: AsyncIterable<Buffer>, contentLength: string | string[] | undefined, limit: number): Promise<Uint8Array> {
  if (typeof contentLength === 'string' && Number(contentLength) > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reading the same answer again would only fetch the same bytes: for a read the failure is permanent. For a
 * POST it is as a body that broke off: its status still says whether the write landed.
 */
function tooLargeError({ method, path }: HttpRequest, limit: number, status: number): ApiError {
  const reason = `the response body exceeded api.maxResponseBytes (${limit} bytes) and was abandoned`;
  return new ApiError({ kind: isIdempotent(method) ? 'permanent' : 'ambiguous', method, path, status, reason });
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
