import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';

/** One request as the proxy saw it: the method and the path with its query string. */
export interface ProxiedRequest {
  method: string;
  path: string;
}

export interface RetryAfterProxy {
  /** The base URL to give loyalty-sync instead of the simulator's. */
  url: string;
  /**
   * Which requests are answered `429` with the Retry-After below instead of being passed on; change it
   * at any time (`() => false` lets everything through).
   */
  throttles: (request: ProxiedRequest) => boolean;
  /** The Retry-After header of those 429s, exactly as sent: `315360000`, an HTTP date, `-5`, garbage. */
  retryAfter: string;
  /** The requests answered 429, in order. */
  readonly throttled: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the simulator that answers the requests it is told to with a 429
 * carrying whatever Retry-After a broken gateway might send (the simulator only ever sends 1), and
 * passes every other request through unchanged.
 */
export async function startRetryAfterProxy(options: { target: string; retryAfter: string; throttles: (request: ProxiedRequest) => boolean }): Promise<RetryAfterProxy> {
  const target = new URL(options.target);
  const throttled: ProxiedRequest[] = [];
  const proxy: RetryAfterProxy = {
    url: '',
    throttles: options.throttles,
    retryAfter: options.retryAfter,
    throttled,
    close: () => Promise.resolve(),
  };

  const forward = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const upstream = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } });
    upstream.on('response', (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      pipeline(answer, outgoing).catch(() => outgoing.destroy());
    });
    await pipeline(incoming, upstream);
  };

  const server = createServer((incoming, outgoing) => {
    const seen = { method: incoming.method ?? '', path: incoming.url ?? '' };
    if (proxy.throttles(seen)) {
      throttled.push(seen);
      incoming.resume();
      outgoing.writeHead(429, { 'content-type': 'application/json', 'retry-after': proxy.retryAfter });
      outgoing.end(JSON.stringify({ error: { message: 'Too many requests', code: 'rate_limited' } }));
      return;
    }
    forward(incoming, outgoing).catch(() => outgoing.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
