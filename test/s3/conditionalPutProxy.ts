import { HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ConditionalPutProxy {
  endpoint: string;
  /** Each conditional PUT's key (after /BUCKET/) and status, in order: 200 created (or overwritten, when ignoring), 412 already there, 409 conflict. */
  answers: Array<{ key: string; status: number }>;
  /** Conditional PUTs the store applied whose answer the client never got. */
  drops: number;
  /** Every request's method, key (after /BUCKET/, without the query) and answer status, in the order answered. */
  answered: Array<{ method: string; key: string; status: number }>;
  /**
   * What the store's answers say the time is: its own clock moved by `skewMs`, and no `Date` header at
   * all with `dropDate` (as some gateways do). Changed at any time; applies to the answers that follow.
   */
  storeClock: { skewMs: number; dropDate: boolean };
  close: () => Promise<void>;
}

export interface ConditionalPutOptions {
  /** Whether the answer to a conditional PUT of this key (after /BUCKET/) is dropped once the store applied it. */
  dropAnswer?: (key: string) => boolean;
  /** Whether a conditional PUT of this key is answered 409 ConditionalRequestConflict without being applied, as S3 does while another one is in flight. */
  conflict?: (key: string) => boolean;
  /** Accept the condition and ignore it, as s3rver does: every conditional PUT is applied, over whatever is there, and answered 200. */
  ignoreConditions?: boolean;
}

const CONFLICT =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in progress against this resource. Please try again.</Message></Error>';
const PRECONDITION_FAILED =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>';

/**
 * A store that honours `If-None-Match: *` on PutObject, as AWS S3 and Swift 2.36+ do, made from the
 * test's Swift (whose S3 API answers such a PUT 501): the proxy applies a conditional PUT itself, one
 * per key at a time, with a HEAD and then an unconditional PUT through `store` (the test's own client).
 * With `ignoreConditions`, a store that takes the header and overwrites anyway, as s3rver does.
 * Everything else is forwarded byte for byte. The client's signature on a conditional PUT is not
 * checked; what is under test is how the client reads the answers.
 */
export async function startConditionalPutProxy(upstream: string, store: S3Client, options: ConditionalPutOptions = {}): Promise<ConditionalPutProxy> {
  const target = new URL(upstream);
  const proxy: ConditionalPutProxy = { endpoint: '', answers: [], drops: 0, answered: [], storeClock: { skewMs: 0, dropDate: false }, close: async () => undefined };
  /** The answer's headers with its Date as the store's clock says: shifted, or left off. */
  const dated = (headers: Record<string, string | string[] | number | undefined>): Record<string, string | string[] | number | undefined> => {
    const { date, ...rest } = headers;
    if (proxy.storeClock.dropDate) return rest;
    const stamp = typeof date === 'string' ? Date.parse(date) : Date.now();
    return { ...rest, date: new Date(stamp + proxy.storeClock.skewMs).toUTCString() };
  };
  const queues = new Map<string, Promise<void>>();

  const applyConditionalPut = async (req: IncomingMessage, body: Buffer): Promise<{ status: number; etag?: string }> => {
    const [bucket, ...rest] = decodeURIComponent((req.url ?? '').slice(1).split('?')[0]).split('/');
    const key = rest.join('/');
    const exists = options.ignoreConditions ? false : await store.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
      () => true,
      (error: { $metadata?: { httpStatusCode?: number } }) => {
        if (error.$metadata?.httpStatusCode === 404) return false;
        throw error;
      },
    );
    if (exists) return { status: 412 };
    const contentType = req.headers['content-type'];
    const written = await store.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: typeof contentType === 'string' ? contentType : undefined }));
    return { status: 200, etag: written.ETag };
  };

  // Forwarded inline, not through ./forward.ts: bench/state.bench.mjs loads this file with Node's own type
  // stripping, which resolves no `.js` import to a `.ts` file.
  const server: Server = createServer((req, res) => {
    // Node adds a Date of its own to every answer unless told not to.
    res.sendDate = !proxy.storeClock.dropDate;
    res.on('finish', () => proxy.answered.push({ method: req.method ?? '', key: decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '').split('?')[0]), status: res.statusCode }));
    if (req.method === 'PUT' && req.headers['if-none-match'] !== undefined) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const key = decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '').split('?')[0]);
        const previous = queues.get(key) ?? Promise.resolve();
        const done = previous.then(async () => {
          const result = options.conflict?.(key) ? { status: 409 } : await applyConditionalPut(req, Buffer.concat(chunks));
          proxy.answers.push({ key, status: result.status });
          if (result.status === 200 && options.dropAnswer?.(key)) {
            proxy.drops += 1;
            req.socket.destroy();
            return;
          }
          const text = result.status === 412 ? PRECONDITION_FAILED : result.status === 409 ? CONFLICT : '';
          res.writeHead(result.status, dated({ 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text), ...(result.etag ? { etag: result.etag } : {}) }));
          res.end(text);
        });
        queues.set(
          key,
          done.catch(() => {
            res.writeHead(502).end();
          }),
        );
      });
      return;
    }
    const headers = { ...req.headers };
    delete headers.connection;
    const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, dated(answer.headers));
      answer.pipe(res);
    });
    forwarded.on('error', () => req.socket.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
