import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An API that answers every request with one refusal (401 or 403), counting what it was sent. */
export interface RefusingApi {
  url: string;
  requests: () => string[];
  close: () => Promise<void>;
}

export async function startRefusingApi(status: 401 | 403): Promise<RefusingApi> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url?.split('?')[0]}`);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: status === 401 ? 'Invalid API key' : 'This key may not do that', code: status === 401 ? 'unauthorized' : 'forbidden' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => [...seen],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
