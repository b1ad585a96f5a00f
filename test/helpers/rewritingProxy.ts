import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RewritingProxy {
  url: string;
  close(): Promise<void>;
}

export interface RewritingOptions {
  /** The Date header of every answer instead of the API's: a text, or null for none at all. */
  date?: () => string | null;
  /** Told each request's path and query as it is forwarded. */
  onRequest?: (url: string) => void;
}

/**
 * A hostile API in front of the simulator: it forwards every request and hands each JSON answer to
 * `rewrite` (with the request's path), which may change the records the way a broken or malicious
 * server would. Answers that are not JSON pass through unchanged.
 */
export async function startRewritingProxy(target: string, rewrite: (path: string, body: unknown) => unknown, options: RewritingOptions = {}): Promise<RewritingProxy> {
  const server: Server = createServer((req, res) => {
    options.onRequest?.(req.url ?? '/');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name, value]) => typeof value === 'string' && name !== 'host' && name !== 'content-length')) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(new URL(req.url ?? '/', target), { method: req.method, headers, body })
        .then(async (answer) => {
          const text = await answer.text();
          const path = new URL(req.url ?? '/', 'http://proxy').pathname;
          let out = text;
          if ((answer.headers.get('content-type') ?? '').includes('json')) out = JSON.stringify(rewrite(path, JSON.parse(text) as unknown));
          const passed: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection' && name !== 'keep-alive') passed[name] = value;
          });
          if (options.date !== undefined) {
            const date = options.date();
            delete passed.date;
            // Without a Date of its own, node would add one.
            if (date === null) res.sendDate = false;
            else passed.date = date;
          }
          res.writeHead(answer.status, passed);
          res.end(out);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
