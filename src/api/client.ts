import type { Config } from '../config.js';
import { registerSecret, type Logger } from '../log.js';
import type { OpsFacts } from '../metrics/facts.js';
import { ApiClock } from './apiClock.js';
import { parseHttpDate } from './httpDate.js';
import { ListEnd } from './listEnd.js';
import { ApiError, describeError, isIdempotent, kindAfterSending, kindOfStatus, parseErrorBody } from './errors.js';
import { HttpTransport, type HttpRequest, type HttpResponse, type QueryValue } from './http.js';
import { RateLimiter } from './rateLimiter.js';
import { limiterPauseMs, parseRetryAfter, withRetry, type RetryPolicy } from './retry.js';
import type {
  Activity,
  AddPointsBody,
  ClaimedReward,
  ClaimRewardBody,
  CreateOrderBody,
  Customer,
  Identity,
  Order,
  OrderDetail,
  Review,
  Transaction,
  UnsubscribeEntry,
  UpdateReviewBody,
} from './types.js';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  /** Larger response bodies are abandoned as they arrive (config `api.maxResponseBytes`). */
  maxResponseBytes: number;
  /** Sent as `limit` on every list request (spec part 8: 1 to 500). */
  pageSize: number;
  retry: RetryPolicy;
  /** Shared by every client of the process, so pull and push together stay under the rate. */
  limiter: RateLimiter;
  logger: Logger;
  /** Told about every exchange (endpoint template, status, duration); none by default. */
  facts?: Pick<OpsFacts, 'apiRequest'>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Default true. Push passes false: its queue keeps the backoff state across runs. */
  retry?: boolean;
}

export interface Page<T> {
  items: T[];
  /** The cursor that fetches the following page; null at the end. Checkpoint it with the page. */
  nextCursor: string | null;
  /** The response body's bytes as received: a sync hands them to its storage thread, which parses them there. */
  body: Uint8Array;
}

export type ListName = 'customers' | 'orders' | 'activities' | 'transactions';

/** Filters of the list endpoints (spec part 4); each list honours the ones it documents. */
export interface ListParams {
  since_id?: number;
  created_at_min?: string;
  created_at_max?: string;
  updated_at_min?: string;
  updated_at_max?: string;
  sort_field?: 'id' | 'updated_at';
  sort_direction?: 'asc' | 'desc';
  email?: string;
  /** The transactions filter by customer; the spec does not show its name. */
  customer_id?: number;
}

export interface ApiStats {
  /** HTTP exchanges started, retries included. */
  requests: number;
  retries: number;
  /** Responses with status 429. */
  rateLimited: number;
  /** Calls that ended in an error after their retries. */
  failures: number;
}

/** An endpoint is data: its path, the key holding its array, and query parameters it always needs. */
const LISTS: Record<ListName, { path: string; key: ListName; fixed?: Record<string, QueryValue> }> = {
  customers: { path: '/v2/customers', key: 'customers' },
  orders: { path: '/v2/orders', key: 'orders' },
  activities: { path: '/v2/activities', key: 'activities' },
  // The transactions list can also answer CSV (spec part 4); the mirror needs JSON.
  transactions: { path: '/v2/transactions', key: 'transactions', fixed: { format: 'json' } },
};

const UNSUBSCRIBES_PATH = '/v2/loyalty_emails/unsubscribes';

/** A request and its endpoint's path template, which names it in metrics without any id. */
interface ApiCall extends HttpRequest {
  /** Default: the path, for endpoints without path parameters. */
  endpoint?: string;
}

const REVIEW_ENDPOINT = '/v2/reviews/{platform}/{merchant_id}';

/** One typed function per endpoint of the Admin API v2, with retries, rate limiting and typed errors. */
export class ApiClient {
  readonly stats: ApiStats = { requests: 0, retries: 0, rateLimited: 0, failures: 0 };
  /** The API's clock, from the Date header of the latest answer of any status. */
  readonly clock = new ApiClock();
  /**
   * Asked right before each write request leaves (after the limiter's waits, a 429's among them), and
   * before every retry of it: a run whose state is in a bucket checks there that its lease still covers
   * the request. Throwing keeps the request unsent (UnsentWriteError).
   */
  writeGuard: (() => Promise<void>) | null = null;
  readonly #transport: HttpTransport;
  readonly #limiter: RateLimiter;
  readonly #logger: Logger;
  readonly #retry: RetryPolicy;
  readonly #pageSize: number;
  readonly #facts: Pick<OpsFacts, 'apiRequest'> | undefined;
  /** Lists whose server refused a cursor sent with filters. */
  readonly #cursorsAlone = new Set<ListName>();

  constructor(options: ApiClientOptions) {
    this.#transport = new HttpTransport(options);
    this.#limiter = options.limiter;
    this.#logger = options.logger;
    this.#retry = options.retry;
    this.#pageSize = options.pageSize;
    this.#facts = options.facts;
  }

  /**
   * One page of `list` filtered by `params`, from `cursor` when given. The spec does not say whether a
   * cursor carries the filters it was issued under (nor the response format: transactions' `format=json`,
   * whose default is not shown, so a CSV page 2 must not be possible), so they are sent along with it, and
   * a server whose cursor is only a position still answers the same question. A server that refuses a
   * cursor combined with filters (400 or 422) gets, for that list and from then on, the cursor alone.
   */
  async fetchPage<T>(list: ListName, params: ListParams, cursor?: string | null, options: CallOptions = {}): Promise<Page<T>> {
    const { path, key, fixed } = LISTS[list];
    const get = (query: Record<string, QueryValue>): Promise<Page<T>> =>
      this.#call({ method: 'GET', path, query }, options, (response) => {
        const body = readJson(response, path, 'GET');
        const items = field(body, key);
        if (!Array.isArray(items)) throw contractError('GET', path, `the response has no "${key}" array`);
        return { items: items as T[], nextCursor: nextCursor(field(body, 'cursor'), path), body: bodyBytes(response) };
      });
    const limit = this.#pageSize;
    if (!cursor) return get({ ...fixed, ...params, limit });
    if (this.#cursorsAlone.has(list) || Object.keys(params).length === 0) return get({ ...fixed, cursor, limit });
    try {
      return await get({ ...fixed, ...params, cursor, limit });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 422)) throw error;
      // If the cursor alone is refused too, the cursor itself is stale: that error is the one to report.
      const page = await get({ ...fixed, cursor, limit });
      this.#cursorsAlone.add(list);
      this.#logger.warn({ list, refused: describeError(error) }, 'the API refused a cursor sent with its filters; sending cursors alone from now on');
      return page;
    }
  }

  /**
   * Follows `cursor.next` from `options.cursor` (or the start) until null, one page at a time, by the rules of
   * ListEnd: a server that never hands out a null cursor cannot keep a reader here for ever.
   */
  async *pages<T>(list: ListName, params: ListParams, options: CallOptions & { cursor?: string | null } = {}): AsyncGenerator<Page<T>> {
    let cursor = options.cursor ?? null;
    const end = new ListEnd((reason) => contractError('GET', LISTS[list].path, reason), cursor);
    do {
      const page = await this.fetchPage<T>(list, params, cursor, options);
      const { next, endedOnEmptyPages } = end.after(page.items, page.nextCursor);
      if (endedOnEmptyPages !== undefined) this.#logger.warn({ list, emptyPages: endedOnEmptyPages }, `GET ${list}: ${endedOnEmptyPages} empty pages in a row, each with a new cursor; taking the list as ended`);
      yield page;
      cursor = next;
    } while (cursor !== null);
  }

  listCustomers(params: ListParams = {}, options?: CallOptions & { cursor?: string | null }): AsyncGenerator<Page<Customer>> {
    return this.pages<Customer>('customers', params, options);
  }

  listOrders(params: ListParams = {}, options?: CallOptions & { cursor?: string | null }): AsyncGenerator<Page<Order>> {
    return this.pages<Order>('orders', params, options);
  }

  listActivities(params: ListParams = {}, options?: CallOptions & { cursor?: string | null }): AsyncGenerator<Page<Activity>> {
    return this.pages<Activity>('activities', params, options);
  }

  listTransactions(params: ListParams = {}, options?: CallOptions & { cursor?: string | null }): AsyncGenerator<Page<Transaction>> {
    return this.pages<Transaction>('transactions', params, options);
  }

  /**
   * The unsubscribe list has no cursor: walk `page` until an empty page. A short page is not the
   * end: the spec does not promise full pages (a server may cap `limit`), and stopping early would
   * tombstone every address after it. The price is one extra request per walk.
   */
  async *unsubscribePages(options: CallOptions & { startPage?: number } = {}): AsyncGenerator<{ items: UnsubscribeEntry[]; page: number; body: Uint8Array }> {
    let previousFirstId: string | undefined;
    for (let page = options.startPage ?? 1; ; page++) {
      const query = { page, limit: this.#pageSize };
      const { items, body } = await this.#call({ method: 'GET', path: UNSUBSCRIBES_PATH, query }, options, (response) => {
        const parsed = readJson(response, UNSUBSCRIBES_PATH, 'GET');
        if (!Array.isArray(parsed)) throw contractError('GET', UNSUBSCRIBES_PATH, 'the response is not an array');
        return { items: parsed as UnsubscribeEntry[], body: bodyBytes(response) };
      });
      if (items.length === 0) return;
      // A server that ignored `page` would return page 1 forever. An entry with no text id is no evidence of
      // that: the sync refuses the page for it, naming the entry (checkIds).
      const firstId = textId(items[0]);
      if (firstId !== undefined && firstId === previousFirstId) throw contractError('GET', UNSUBSCRIBES_PATH, `page ${page} repeats page ${page - 1}`);
      yield { items, page, body };
      previousFirstId = firstId;
    }
  }

  /** The order with this merchant id, or null when the API answers 404. */
  getOrder(merchantId: string, options: CallOptions = {}): Promise<OrderDetail | null> {
    const path = `/v2/orders/${segment(merchantId)}`;
    return this.#call({ method: 'GET', path, endpoint: '/v2/orders/{merchant_id}' }, options, (response) => {
      if (response.status === 404) return null;
      const body = readJson(response, path, 'GET');
      if (!isObject(body)) throw contractError('GET', path, 'the response is not an object');
      return body as OrderDetail;
    }, [404]);
  }

  /** 201 with an empty body; the status alone says the order was created. */
  createOrder(body: CreateOrderBody, options: CallOptions = {}): Promise<void> {
    return this.#call({ method: 'POST', path: '/v2/orders', body }, options, () => undefined);
  }

  /** Not idempotent: a failure after sending is `ambiguous`, never retried here. */
  addPoints(customerMerchantId: string, body: AddPointsBody, options: CallOptions = {}): Promise<void> {
    return this.#call({ method: 'POST', path: `/v2/customers/${segment(customerMerchantId)}/points`, endpoint: '/v2/customers/{merchant_id}/points', body }, options, () => undefined);
  }

  /**
   * Not idempotent: a failure after sending is `ambiguous`, never retried here. A 2xx status means
   * the claim was applied whatever its body: null when the body broke off or lacks `claimed_reward`.
   */
  claimReward(customerMerchantId: string, body: ClaimRewardBody, options: CallOptions = {}): Promise<ClaimedReward | null> {
    const path = `/v2/customers/${segment(customerMerchantId)}/claimed_rewards`;
    return this.#call({ method: 'POST', path, endpoint: '/v2/customers/{merchant_id}/claimed_rewards', body }, options, (response) => {
      if (!response.body.ok) return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.body.text);
      } catch {
        return null;
      }
      const claimed = field(parsed, 'claimed_reward');
      return isObject(claimed) ? (claimed as unknown as ClaimedReward) : null;
    });
  }

  /** Needs scope write_reviews. Idempotent, so safe to resend. */
  updateReview(platform: string, merchantId: string, body: UpdateReviewBody, options: CallOptions = {}): Promise<Review> {
    const path = `/v2/reviews/${segment(platform)}/${segment(merchantId)}`;
    return this.#call({ method: 'PUT', path, endpoint: REVIEW_ENDPOINT, body }, options, (response) => objectUnder<Review>(response, 'PUT', path, 'review'));
  }

  /** Needs scope write_reviews. `deleted: false` means it was already deleted, which is success too. */
  deleteReview(platform: string, merchantId: string, options: CallOptions = {}): Promise<{ deleted: boolean }> {
    const path = `/v2/reviews/${segment(platform)}/${segment(merchantId)}`;
    return this.#call({ method: 'DELETE', path, endpoint: REVIEW_ENDPOINT }, options, (response) => {
      const deleted = field(readJson(response, path, 'DELETE'), 'deleted');
      if (typeof deleted !== 'boolean') throw contractError('DELETE', path, 'the response has no boolean "deleted"');
      return { deleted };
    });
  }

  whoami(options: CallOptions = {}): Promise<Identity> {
    const path = '/v2/identity/whoami';
    return this.#call({ method: 'GET', path }, options, (response) => objectUnder<Identity>(response, 'GET', path, 'identity'));
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  /**
   * One call: every attempt waits for the shared limiter, then sends; statuses outside 2xx
   * (and `accept`) become ApiErrors; `read` turns the response into the result.
   */
  async #call<T>(request: ApiCall, options: CallOptions, read: (response: HttpResponse) => T, accept: number[] = []): Promise<T> {
    const { method, path } = request;
    const endpoint = request.endpoint ?? path;
    const attempt = async (): Promise<T> => {
      try {
        await this.#limiter.acquire(options.signal);
      } catch (error) {
        throw new ApiError({ kind: 'retryable', method, path, reason: 'the call was cancelled before it was sent', cause: error });
      }
      if (method !== 'GET' && this.writeGuard !== null) {
        try {
          await this.writeGuard();
        } catch (error) {
          throw new UnsentWriteError(method, path, error);
        }
      }
      this.stats.requests++;
      const started = performance.now();
      let response: HttpResponse;
      try {
        response = await this.#transport.send(request, options.signal);
      } catch (error) {
        this.#facts?.apiRequest(endpoint, 'error', (performance.now() - started) / 1000);
        throw error;
      }
      this.#facts?.apiRequest(endpoint, response.status, (performance.now() - started) / 1000);
      this.clock.observe(response.headers.date);
      this.#logger.debug({ method, path, status: response.status, ms: Math.round(performance.now() - started) }, 'api request');
      if ((response.status < 200 || response.status >= 300) && !accept.includes(response.status)) throw this.#statusError(request, response);
      return read(response);
    };
    try {
      if (options.retry === false) return await attempt();
      return await withRetry(attempt, {
        policy: this.#retry,
        logger: this.#logger,
        signal: options.signal,
        onRetry: () => this.stats.retries++,
      });
    } catch (error) {
      this.stats.failures++;
      throw error;
    }
  }

  #statusError({ method, path }: HttpRequest, response: HttpResponse): ApiError {
    const { status } = response;
    const parsed = response.body.ok ? parseErrorBody(response.body.text) : {};
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(response.headers['retry-after'], answeredAt(response)) : undefined;
    if (status === 429) {
      this.stats.rateLimited++;
      this.#limiter.note429(limiterPauseMs(retryAfterMs, this.#retry));
    }
    // A 5xx says nothing about whether a write was applied (a gateway may answer 502/504 after the
    // app committed it): for a non-idempotent POST (points, claims, orders) it is an unclear failure.
    if (status >= 500 && !isIdempotent(method)) {
      return new ApiError({ kind: 'ambiguous', method, path, status, reason: 'the API answered with a server error', ...parsed });
    }
    return new ApiError({ kind: kindOfStatus(status), method, path, status, retryAfterMs, ...parsed });
  }
}

/** A write the client's writeGuard stopped before it was sent; `cause` says why. */
export class UnsentWriteError extends Error {
  override readonly name = 'UnsentWriteError';
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path} was not sent: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Builds the limiter from the config unless the process already has one; registers the key for redaction. */
export function createApiClient(config: Config['api'], logger: Logger, limiter?: RateLimiter, facts?: Pick<OpsFacts, 'apiRequest'>): ApiClient {
  registerSecret(config.apiKey);
  return new ApiClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    requestTimeoutMs: config.requestTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    pageSize: config.pageSize,
    retry: config.retry,
    limiter: limiter ?? new RateLimiter(config),
    logger,
    facts,
  });
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

/**
 * The parsed body of a response whose status arrived. A body that broke off or does not
 * parse may be a truncated success: for a POST that is `ambiguous`, for the others retryable.
 */
function readJson(response: HttpResponse, path: string, method: string): unknown {
  if (!response.body.ok) throw response.body.error;
  try {
    return JSON.parse(response.body.text) as unknown;
  } catch (error) {
    throw new ApiError({ kind: kindAfterSending(method), method, path, status: response.status, reason: 'the response body is not valid JSON', cause: error });
  }
}

/** The bytes of a body `readJson` has already accepted. */
function bodyBytes(response: HttpResponse): Uint8Array {
  if (!response.body.ok) throw response.body.error;
  return response.body.bytes;
}

function objectUnder<T>(response: HttpResponse, method: string, path: string, key: string): T {
  const value = field(readJson(response, path, method), key);
  if (!isObject(value)) throw contractError(method, path, `the response has no "${key}" object`);
  return value as T;
}

/** A well-formed body of the wrong shape: resending a read cannot fix it; a write's outcome is as after a lost reply. */
function contractError(method: string, path: string, reason: string): ApiError {
  return new ApiError({ kind: method === 'GET' ? 'permanent' : kindAfterSending(method), method, path, reason });
}

function field(body: unknown, key: string): unknown {
  return isObject(body) ? body[key] : undefined;
}

/**
 * `cursor.next`: null (or absent, or empty) ends the list. A gateway that turns the string into a number
 * still names the next page, and a cursor of any other kind is no place to go on from: taking either as
 * the end would store part of the list as the whole and move past the rest for good.
 */
function nextCursor(cursor: unknown, path: string): string | null {
  const next = field(cursor, 'next');
  if (next === undefined || next === null || next === '') return null;
  if (typeof next === 'string') return next;
  if (typeof next === 'number' && Number.isFinite(next)) return String(next);
  throw contractError('GET', path, `cursor.next is ${describeValue(next)}; expected a string or null`);
}

/** A value as an error sentence shows it: short, and never a whole body. */
function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * When the API wrote its answer, by its own clock (the `Date` header), else by ours: a Retry-After date is
 * measured against the clock that wrote it, so a server running an hour off still asks for its seconds.
 */
function answeredAt(response: HttpResponse): number {
  const header = response.headers.date;
  const text = Array.isArray(header) ? header[0] : header;
  return (text === undefined ? undefined : parseHttpDate(text.trim())) ?? Date.now();
}

function textId(entry: unknown): string | undefined {
  const id = field(entry, 'id');
  return typeof id === 'string' ? id : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
