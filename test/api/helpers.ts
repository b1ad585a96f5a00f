import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/rateLimiter.js';
import { createLogger, registerSecret, type Logger } from '../../src/log.js';

/** A logger whose JSON lines land in `lines`, so a test can read what a user would see. */
export function captureLogger(level: 'debug' | 'warn' = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { logger: createLogger({ level, destination: stream }), lines };
}

/** A client with tiny retry delays so fault tests stay fast; any option can be overridden. */
export function testClient(baseUrl: string, apiKey: string, overrides: Partial<ApiClientOptions> = {}): ApiClient {
  registerSecret(apiKey);
  return new ApiClient({
    baseUrl,
    apiKey,
    requestTimeoutMs: 5_000,
    maxResponseBytes: 64 * 1024 * 1024,
    pageSize: 500,
    retry: { attempts: 8, minDelayMs: 1, maxDelayMs: 10, maxElapsedMs: 60_000 },
    limiter: new RateLimiter({ requestsPerSecond: 10_000, burst: 100, slowdownAfter429Ms: 10 }),
    logger: captureLogger().logger,
    ...overrides,
  });
}

export type Responder = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface ScriptedServer {
  url: string;
  /** Every request received, in order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that answers the n-th request with the n-th responder (the last one
 * repeats), for protocol edge cases the simulator draws at random: exact fault sequences.
 */
export async function scriptedServer(responders: Responder[]): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const responder = responders[Math.min(requests.length - 1, responders.length - 1)];
      responder(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Closes the connection after reading the request, without any answer. */
export const reset: Responder = (req) => {
  req.socket.destroy();
};

/** A 200 whose declared body never arrives whole. */
export function truncated(partial: string): Responder {
  return (req) => {
    req.socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${partial.length * 2}\r\n\r\n${partial}`);
    req.socket.destroy();
  };
}

/** Never answers; the client's timeout must end the exchange. */
export const stall: Responder = () => {};
