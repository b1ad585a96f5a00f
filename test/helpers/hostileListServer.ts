import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorHandle } from '../../src/simulator/index.js';

/** The cursor-paged lists of the API, as their paths name them. */
export type HostileList = 'customers' | 'orders' | 'activities' | 'transactions';

/**
 * What the server does instead of passing a list request on to the simulator:
 * - `empty-list`: the list answers as if it held nothing (`200 []` for the unsubscribe list), as after a
 *   misconfigured gateway or key;
 * - `cut-unsubscribes`: the unsubscribe list holds only its first `keep` addresses;
 * - `huge-page`: the list's first page is a valid, empty JSON page padded to `bytes`, made as it is
 *   sent (never held whole), without Content-Length unless `declareLength`;
 * - `fresh-cursors`: the list's first page from the simulator, again and again, each time with a
 *   cursor never handed out before;
 * - `deep-record`: the list's pages with an unlisted field nested `depth` objects deep in their first record.
 */
export type Hostility =
  | { kind: 'empty-list'; list: HostileList | 'unsubscribes' }
  | { kind: 'cut-unsubscribes'; keep: number }
  | { kind: 'huge-page'; list: HostileList; bytes: number; declareLength?: boolean }
  | { kind: 'fresh-cursors'; list: HostileList }
  | { kind: 'deep-record'; list: HostileList; depth: number };

export interface HostileListServer {
  /** Point the client here; the simulator's keys work unchanged. */
  url: string;
  /** From now on answer like this; null passes every request on again. */
  act(hostility: Hostility | null): void;
  /** Requests the hostility answered itself. */
  readonly hostileAnswers: number;
  /** Bytes of padding a `huge-page` answer actually wrote before the client hung up. */
  readonly paddingSent: number;
  close(): Promise<void>;
}

const UNSUBSCRIBES_PATH = '/v2/loyalty_emails/unsubscribes';
const PAD_CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * A loopback proxy in front of the simulator that answers list requests the way a broken or hostile
 * API (or a gateway in front of one) could, while everything else reaches the simulator unchanged.
 */
export async function startHostileListServer(upstream: Pick<SimulatorHandle, 'url'>): Promise<HostileListServer> {
  let hostility: Hostility | null = null;
  let hostileAnswers = 0;
  let paddingSent = 0;
  let cursorsIssued = 0;

  const forward = async (target: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; type: string; text: string }> => {
    const response = await fetch(`${upstream.url}${target}`, {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? '', ...(body.length > 0 ? { 'content-type': 'application/json' } : {}) },
      body: body.length > 0 ? body : undefined,
    });
    return { status: response.status, type: response.headers.get('content-type') ?? 'application/json', text: await response.text() };
  };

  const answerHostile = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean> => {
    if (hostility === null || req.method !== 'GET') return false;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const current = hostility;
    if (current.kind === 'empty-list') {
      if (path !== (current.list === 'unsubscribes' ? UNSUBSCRIBES_PATH : `/v2/${current.list}`)) return false;
      hostileAnswers += 1;
      sendJson(res, current.list === 'unsubscribes' ? '[]' : JSON.stringify({ [current.list]: [], cursor: { prev: null, next: null } }));
      return true;
    }
    if (current.kind === 'cut-unsubscribes') {
      if (path !== UNSUBSCRIBES_PATH) return false;
      hostileAnswers += 1;
      const answer = await forward(req.url ?? '/', req, body);
      // The kept addresses are the first of page 1 (smaller than a page); every later page is empty.
      const firstPage = new URL(req.url ?? '/', 'http://x').searchParams.get('page') === '1';
      sendJson(res, firstPage ? JSON.stringify((JSON.parse(answer.text) as unknown[]).slice(0, current.keep)) : '[]');
      return true;
    }
    if (path !== `/v2/${current.list}`) return false;
    hostileAnswers += 1;
    if (current.kind === 'huge-page') {
      await sendHugePage(res, current.list, current.bytes, current.declareLength === true, (bytes) => (paddingSent += bytes));
      return true;
    }
    // A cursor of ours means nothing to the simulator: it is asked for the first page again.
    const url = new URL(req.url ?? '/', 'http://x');
    if (current.kind === 'fresh-cursors') url.searchParams.delete('cursor');
    const upstreamAnswer = await forward(url.pathname + url.search, req, body);
    if (upstreamAnswer.status !== 200) {
      res.writeHead(upstreamAnswer.status, { 'content-type': upstreamAnswer.type });
      res.end(upstreamAnswer.text);
      return true;
    }
    const page = JSON.parse(upstreamAnswer.text) as { cursor: { prev: string | null; next: string | null } } & Record<string, unknown[]>;
    if (current.kind === 'fresh-cursors') {
      cursorsIssued += 1;
      page.cursor = { prev: null, next: `fresh-${cursorsIssued}` };
      sendJson(res, JSON.stringify(page));
      return true;
    }
    // A placeholder marks where the deep value goes: JSON.stringify itself could not write it.
    const records = page[current.list];
    if (records.length > 0) (records[0] as Record<string, unknown>).nested_far = '__DEEP__';
    const deep = `${'{"inner":'.repeat(current.depth)}null${'}'.repeat(current.depth)}`;
    sendJson(res, JSON.stringify(page).replace('"__DEEP__"', deep));
    return true;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      void (async () => {
        try {
          if (await answerHostile(req, res, body)) return;
          const answer = await forward(req.url ?? '/', req, body);
          res.writeHead(answer.status, { 'content-type': answer.type });
          res.end(answer.text);
        } catch {
          res.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    act(next) {
      hostility = next;
      cursorsIssued = 0;
    },
    get hostileAnswers() {
      return hostileAnswers;
    },
    get paddingSent() {
      return paddingSent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(text);
}

/**
 * A well-formed page holding no rows, padded to `bytes` with a string member, written chunk by chunk as
 * the client reads it, so neither side of the test holds it whole; stops when the client hangs up.
 */
async function sendHugePage(res: ServerResponse, list: HostileList, bytes: number, declareLength: boolean, sent: (bytes: number) => void): Promise<void> {
  const head = `{"${list}":[],"cursor":{"prev":null,"next":null},"padding":"`;
  const tail = '"}';
  const padding = Math.max(0, bytes - head.length - tail.length);
  res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(head.length + padding + tail.length) } : {}) });
  res.write(head);
  let hungUp = false;
  res.once('close', () => (hungUp = true));
  for (let left = padding; left > 0 && !hungUp; ) {
    const chunk = left >= PAD_CHUNK.length ? PAD_CHUNK : PAD_CHUNK.subarray(0, left);
    left -= chunk.length;
    sent(chunk.length);
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  if (!hungUp) res.end(tail);
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
