import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, describeError, isRetryable } from '../../src/api/errors.js';
import { captureLogger, json, reset, scriptedServer, stall, testClient, truncated, type ScriptedServer } from './helpers.js';

const KEY = 'sk_test_classification_0123456789';
const ORDERS_PAGE = { orders: [{ id: 1, merchant_id: 'o-1' }], cursor: { prev: null, next: null } };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('retryable failures are retried and the call returns the data', () => {
  it('429 without Retry-After, then 200', async () => {
    server = await scriptedServer([json(429, { error: { message: 'slow down' } }), json(200, ORDERS_PAGE)]);
    const client = testClient(server.url, KEY);
    const page = await client.fetchPage('orders', {});
    expect(page.items).toEqual(ORDERS_PAGE.orders);
    expect(server.requests).toHaveLength(2);
    expect(client.stats).toMatchObject({ requests: 2, retries: 1, rateLimited: 1, failures: 0 });
    await client.close();
  });

  it('429 with Retry-After in seconds waits that long before resending', async () => {
    const times: number[] = [];
    server = await scriptedServer([
      (req, res, body) => {
        times.push(performance.now());
        json(429, { error: { message: 'Too many requests', code: 'rate_limited' } }, { 'retry-after': '1' })(req, res, body);
      },
      (req, res, body) => {
        times.push(performance.now());
        json(200, ORDERS_PAGE)(req, res, body);
      },
    ]);
    // Retry-After is honoured up to maxDelayMs: 1 s, as under the default 30 s (the test client's is 10 ms).
    const client = testClient(server.url, KEY, { retry: { attempts: 8, minDelayMs: 1, maxDelayMs: 1000, maxElapsedMs: 60_000 } });
    expect((await client.fetchPage('orders', {})).items).toHaveLength(1);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
    await client.close();
  });

  it('503 with an HTML body, then 200', async () => {
    server = await scriptedServer([
      (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><body>Service Unavailable</body></html>');
      },
      json(200, ORDERS_PAGE),
    ]);
    const client = testClient(server.url, KEY);
    expect((await client.fetchPage('orders', {})).items).toEqual(ORDERS_PAGE.orders);
    expect(server.requests).toHaveLength(2);
    await client.close();
  });

  it('a truncated body on GET, then 200', async () => {
    server = await scriptedServer([truncated('{"orders":[{"id":1,"merch'), json(200, ORDERS_PAGE)]);
    const client = testClient(server.url, KEY);
    expect((await client.fetchPage('orders', {})).items).toEqual(ORDERS_PAGE.orders);
    expect(server.requests).toHaveLength(2);
    await client.close();
  });

  it('a complete 200 whose JSON does not parse, on GET, then 200', async () => {
    server = await scriptedServer([json(200, '{"orders":[{"id":1'), json(200, ORDERS_PAGE)]);
    const { logger, lines } = captureLogger('warn');
    const client = testClient(server.url, KEY, { logger });
    expect((await client.fetchPage('orders', {})).items).toEqual(ORDERS_PAGE.orders);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 40,
      attempt: 1,
      msg: 'retrying after: GET /v2/orders failed: the response body is not valid JSON (status 200)',
    });
    await client.close();
  });

  it('a connection reset after a GET was sent, then 200', async () => {
    server = await scriptedServer([reset, json(200, ORDERS_PAGE)]);
    const client = testClient(server.url, KEY);
    expect((await client.fetchPage('orders', {})).items).toEqual(ORDERS_PAGE.orders);
    await client.close();
  });

  it('a connection reset after a review PUT was sent (idempotent), then 200', async () => {
    const review = { id: 7, platform: 'custom', merchant_id: 'r-1', status: 'approved' };
    server = await scriptedServer([reset, json(200, { review })]);
    const client = testClient(server.url, KEY);
    expect(await client.updateReview('custom', 'r-1', { status: 'approved' })).toEqual(review);
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
    await client.close();
  });
});

describe('permanent failures are not retried and carry the API message and code', () => {
  it('a plain-string error body', async () => {
    server = await scriptedServer([json(404, { error: 'Customer not found' })]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.addPoints('c-1', { points: 5, reason: 'test' }));
    expect(error).toMatchObject({ kind: 'permanent', status: 404, apiMessage: 'Customer not found', method: 'POST', path: '/v2/customers/c-1/points' });
    expect(isRetryable(error)).toBe(false);
    expect(describeError(error)).toBe('POST /v2/customers/c-1/points failed: 404 Customer not found');
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('the envelope with code and details', async () => {
    const body = { error: { message: 'Platform not supported', code: 'unsupported_platform', details: { platform: 'acme' } } };
    server = await scriptedServer([json(422, body)]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.deleteReview('acme', 'r-1'));
    expect(error).toMatchObject({ kind: 'permanent', status: 422, code: 'unsupported_platform', apiMessage: 'Platform not supported', details: { platform: 'acme' } });
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('an empty error body is still classified by its status', async () => {
    server = await scriptedServer([json(400, '')]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.fetchPage('customers', {}));
    expect(error).toMatchObject({ kind: 'permanent', status: 400, apiMessage: undefined });
    expect(describeError(error)).toBe('GET /v2/customers failed: 400');
    await client.close();
  });

  it('401 reads as a rejected credential', async () => {
    server = await scriptedServer([json(401, { error: { message: 'Invalid API key' } })]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.whoami());
    expect(describeError(error)).toBe('the API rejected the credential (401)');
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('retry: false leaves a 503 to the caller after one request', async () => {
    server = await scriptedServer([json(503, ''), json(200, ORDERS_PAGE)]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.fetchPage('orders', {}, null, { retry: false }));
    expect(error.kind).toBe('retryable');
    expect(server.requests).toHaveLength(1);
    await client.close();
  });
});

describe('writes that may have reached the API are ambiguous and not retried', () => {
  it('a connection reset after add points was sent', async () => {
    server = await scriptedServer([reset, json(201, '')]);
    const client = testClient(server.url, KEY);
    const error = await failure(client.addPoints('c-1', { points: 5, reason: 'test' }));
    expect(error.kind).toBe('ambiguous');
    expect(isRetryable(error)).toBe(false);
    expect(describeError(error)).toMatch(/^POST \/v2\/customers\/c-1\/points may or may not have been applied: /);
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('a claim answered 201 counts as done even if the body breaks off, is empty or is a string', async () => {
    server = await scriptedServer([
      (req) => {
        req.socket.write('HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 60\r\n\r\n{"claimed_reward":{"id":3,');
        req.socket.destroy();
      },
      json(201, ''),
      json(201, '""'),
      json(201, { claimed_reward: { id: 3 } }),
    ]);
    const client = testClient(server.url, KEY);
    expect(await client.claimReward('c-1', { reward_id: 9 })).toBeNull();
    expect(await client.claimReward('c-1', { reward_id: 9 })).toBeNull();
    expect(await client.claimReward('c-1', { reward_id: 9 })).toBeNull();
    expect(await client.claimReward('c-1', { reward_id: 9 })).toEqual({ id: 3 });
    expect(server.requests).toHaveLength(4);
    await client.close();
  });

  it('a 5xx on a POST is ambiguous, not retried: the write may have been applied before the error', async () => {
    server = await scriptedServer([
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body>Bad Gateway</body></html>');
      },
      json(201, ''),
    ]);
    const client = testClient(server.url, KEY);
    const points = await failure(client.addPoints('c-1', { points: 5, reason: 'test' }));
    expect(points).toMatchObject({ kind: 'ambiguous', status: 502 });
    expect(isRetryable(points)).toBe(false);
    expect(describeError(points)).toMatch(/^POST \/v2\/customers\/c-1\/points may or may not have been applied: /);
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('a create-order answered 201 counts as done even if the body breaks off', async () => {
    server = await scriptedServer([truncated('""')]);
    const client = testClient(server.url, KEY);
    await client.createOrder({ customer_id: 'c-1', customer_email: 'a@example.com', merchant_id: 'o-9', total: '10.00', total_shipping: '0.00', total_paid: '10.00', payment_status: 'paid' });
    expect(server.requests).toHaveLength(1);
    await client.close();
  });
});

describe('timeouts and refused connections', () => {
  it('a stalled GET times out as retryable; a stalled POST as ambiguous', async () => {
    server = await scriptedServer([stall]);
    const client = testClient(server.url, KEY, { requestTimeoutMs: 200, retry: { attempts: 0, minDelayMs: 1, maxDelayMs: 1, maxElapsedMs: 1000 } });
    const read = await failure(client.fetchPage('orders', {}));
    expect(read).toMatchObject({ kind: 'retryable', code: 'ETIMEDOUT' });
    const write = await failure(client.addPoints('c-1', { points: 1, reason: 'x' }));
    expect(write.kind).toBe('ambiguous');
    await client.close();
  });

  it('a caller abort ends a stalled call at once, without retrying', async () => {
    server = await scriptedServer([stall]);
    const client = testClient(server.url, KEY);
    const controller = new AbortController();
    const call = failure(client.fetchPage('orders', {}, null, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    const error = await call;
    expect(error.reason).toBe('the call was cancelled');
    expect(server.requests).toHaveLength(1);
    expect(client.stats.retries).toBe(0);
    await client.close();
  });

  it('a refused connection is retryable even for a POST: nothing was sent', async () => {
    const closed = await scriptedServer([json(200, {})]);
    const url = closed.url;
    await closed.close();
    const client = testClient(url, KEY, { retry: { attempts: 2, minDelayMs: 1, maxDelayMs: 2, maxElapsedMs: 1000 } });
    const error = await failure(client.addPoints('c-1', { points: 1, reason: 'x' }));
    expect(error).toMatchObject({ kind: 'retryable', code: 'ECONNREFUSED' });
    expect(client.stats).toMatchObject({ requests: 3, retries: 2, failures: 1 });
    await client.close();
  });
});

describe('requests', () => {
  it('carry the credential, Accept and User-Agent, and encode path segments', async () => {
    server = await scriptedServer([json(200, { review: { id: 1 } })]);
    const client = testClient(server.url, KEY);
    await client.updateReview('my platform', 'a/b?c', { status: 'approved', rating: 5 });
    const [request] = server.requests;
    expect(request.url).toBe('/v2/reviews/my%20platform/a%2Fb%3Fc');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^loyalty-sync\/\d+\.\d+\.\d+/);
    expect(JSON.parse(request.body)).toEqual({ status: 'approved', rating: 5 });
    await client.close();
  });

  it('a list page sends limit and filters; a cursor page sends the same filters with its cursor', async () => {
    server = await scriptedServer([
      json(200, { customers: [{ id: 1 }], cursor: { prev: null, next: 'abc' } }),
      json(200, { customers: [{ id: 2 }], cursor: { prev: 'abc', next: null } }),
    ]);
    const client = testClient(server.url, KEY, { pageSize: 2 });
    const pages = [];
    for await (const page of client.listCustomers({ updated_at_min: '2026-01-01T00:00:00Z', sort_field: 'updated_at' })) pages.push(page);
    expect(pages.map((p) => p.nextCursor)).toEqual(['abc', null]);
    const [first, second] = server.requests.map((r) => new URL(r.url, 'http://x').searchParams);
    expect(Object.fromEntries(first)).toEqual({ updated_at_min: '2026-01-01T00:00:00Z', sort_field: 'updated_at', limit: '2' });
    expect(Object.fromEntries(second)).toEqual({ updated_at_min: '2026-01-01T00:00:00Z', sort_field: 'updated_at', cursor: 'abc', limit: '2' });
    await client.close();
  });

  it('a cursor that repeats stops the walk with an error instead of looping', async () => {
    server = await scriptedServer([json(200, { orders: [{ id: 1 }], cursor: { prev: null, next: 'same' } })]);
    const client = testClient(server.url, KEY);
    const seen: number[] = [];
    const walk = (async () => {
      for await (const page of client.listOrders()) seen.push(page.items.length);
    })();
    const error = await failure(walk);
    expect(error.kind).toBe('permanent');
    // The page behind the repeated cursor is not handed over: it is the first one again.
    expect(seen).toEqual([1]);
    await client.close();
  });
});
