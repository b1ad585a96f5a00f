import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../log.js';
import type { Health } from './health.js';
import type { ListenAddress } from './listenAddress.js';

/** The paths the server answers; the deploy kit's probes and scrape annotations use these (a test checks them). */
export const METRICS_PATH = '/metrics';
export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';
/** The port the container image listens on (`0.0.0.0:9464`, the port conventionally used by Prometheus exporters of applications). */
export const DEFAULT_METRICS_PORT = 9464;

export interface MetricsServer {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/** The address could not be bound; `reason` is the tail of one sentence (`that port is already in use`). */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(readonly reason: string, options?: ErrorOptions) {
    super(reason, options);
  }
}

/**
 * Only Prometheus and the kubelet's probes call this server, a few connections at a time: more than
 * this many at once are dropped at accept, so a flood of idle connections cannot grow the process.
 */
export const MAX_CONNECTIONS = 64;
/** A caller that has not sent its request headers by then is cut off (Node's default waits 60 s). */
export const HEADERS_TIMEOUT_MS = 5_000;
/** The whole request, headers and (empty) body, within this. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How often Node looks for connections past those timeouts (its default, 30 s, would let them linger that long). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** One node:http server for `/metrics`, `/healthz` and `/readyz`; anything else is 404. */
export async function startMetricsServer(options: { address: ListenAddress; registry: Registry; health: Health; logger: Logger }): Promise<MetricsServer> {
  const { registry, health, logger } = options;
  const limits = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS };
  const server = createServer(limits, (req, res) => {
    answer(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'the metrics server could not answer');
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  });
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 404, 'not found');
    switch (path) {
      case METRICS_PATH: {
        const text = await registry.metrics();
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
        return;
      }
      case LIVENESS_PATH: {
        const reason = health.liveness();
        return plain(res, reason === null ? 200 : 503, reason ?? 'ok');
      }
      case READINESS_PATH: {
        const reason = health.readiness();
        return plain(res, reason === null ? 200 : 503, reason ?? 'ready');
      }
      default:
        return plain(res, 404, 'not found');
    }
  };
  // A scrape holds no state worth waiting for at shutdown.
  server.keepAliveTimeout = 5_000;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new ListenError(listenFailure(error), { cause: error }));
    server.once('error', onError);
    server.listen(options.address.port, options.address.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: options.address.host, port }, `serving ${METRICS_PATH}, ${LIVENESS_PATH} and ${READINESS_PATH}`);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

function listenFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'that port is already in use';
    case 'EACCES':
      return 'this process may not listen on that port';
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'that host is not an address of this machine';
    default:
      return `it cannot be listened on (${error.code ?? error.message})`;
  }
}
