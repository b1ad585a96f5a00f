import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';

/**
 * What the proxy does to one write (PUT, POST or DELETE). `corrupt` flips one bit of the body on its
 * way to the store, as a faulty network path or NIC could; `deny` answers 403 AccessDenied without
 * forwarding; `delete-errors` answers a DeleteObjects with 200 and an InternalError for every key,
 * deleting nothing, as S3 may under load.
 */
/**
 * What the proxy does with a write: `hold` never sends it to the store nor answers it, as when the
 * client is killed before its request reached the store (a proxy cannot see a SIGKILLed peer's socket
 * close while it holds the request paused, so a held write is the faithful way to say so).
 */
export type WriteFault = 'pass' | 'slowdown' | 'drop-after-apply' | 'corrupt' | 'deny' | 'delete-errors' | 'hold';

export interface WriteSeen {
  /** 1 for the first write through the proxy. */
  number: number;
  method: string;
  /** The object key (after /BUCKET/, decoded), with the query. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The text of a POST's body (CreateMultipartUpload, CompleteMultipartUpload, DeleteObjects), as sent. */
  body: string;
}

export interface FaultProxyOptions {
  /** Decides each write's fault; default: every write passes. */
  fault?: (write: WriteSeen) => WriteFault;
  /** Holds each write this long before forwarding it (a slow store, for kill tests). */
  writeDelayMs?: number;
  /** Holds this write this long before forwarding it (ms; 0 forwards at once): one slow upload among quick ones. */
  writeDelay?: (write: WriteSeen) => number;
  /**
   * Whether a ListObjectsV2 of this prefix (after /BUCKET/) comes back empty, as from a replica that has
   * not seen the writes yet.
   */
  emptyListing?: (prefix: string) => boolean;
  /** Called as each write arrives, before it is forwarded. */
  onWrite?: (write: WriteSeen) => void;
  /**
   * Cuts every ListObjectsV2 answer to this many keys, marked truncated and without a continuation
   * token, as stores that page by key do: the client must go on from the last key it saw.
   */
  listPageKeys?: number;
  /** Whether a HEAD answer loses its Content-Length (some stores and gateways leave it off). */
  headWithoutLength?: () => boolean;
  /** Whether a GET of this key (after /BUCKET/) is cut off halfway through its body. */
  cutRead?: (path: string) => boolean;
  /**
   * An older version of this key (after /BUCKET/) for a GET to be answered with, as by a replica that has not seen
   * the object replaced yet while the listing already shows the new one; undefined: the store answers.
   */
  staleRead?: (key: string) => { body: Buffer; etag: string } | undefined;
  /**
   * Whether every ListObjectsV2 answer gives each object this modification time (an ISO timestamp), as when two
   * writes fall within the one second a listing's time shows.
   */
  listedModified?: () => string | undefined;
  /** Whether this request (method, and path after /BUCKET/ with its query) is answered 501 NotImplemented, as stores do for optional operations. */
  notImplemented?: (method: string, path: string) => boolean;
}

export interface FaultProxy {
  endpoint: string;
  writes: WriteSeen[];
  /** Keys of the objects read (GET of one object; listings are not counted), as they arrived. */
  reads: string[];
  /** Writes answered 503 SlowDown without reaching the store. */
  slowdowns: number;
  /** Writes the store applied whose answer the client never got. */
  drops: number;
  /** Writes whose body reached the store with one bit flipped. */
  corruptions: number;
  close: () => Promise<void>;
}

const SLOW_DOWN = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';
const NOT_IMPLEMENTED = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NotImplemented</Code><Message>A header or query you provided implies functionality that is not implemented.</Message></Error>';
const ACCESS_DENIED = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

/** A DeleteObjects answer that deleted nothing: every key of the request comes back as an InternalError. */
function everyKeyFailed(requestXml: string): string {
  const keys = [...requestXml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((match) => match[1]);
  const errors = keys.map((key) => `<Error><Key>${key}</Key><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${errors.join('')}</DeleteResult>`;
}

/** Answers a request itself, once its body has been read, without forwarding it. */
function answerLocally(req: IncomingMessage, res: ServerResponse, status: number, body: (requestText: string) => string): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = body(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
}

/**
 * A proxy in front of the S3 server that misbehaves as stores do under load: some writes get 503
 * SlowDown, and some are applied by the store while the client's connection is dropped before the
 * answer, so the client cannot know they landed. Requests are forwarded byte for byte (Host
 * included), so SigV4 signatures still verify at the store.
 */
export async function startFaultProxy(upstream: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const proxy: FaultProxy = { endpoint: '', writes: [], reads: [], slowdowns: 0, drops: 0, corruptions: 0, close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (options.notImplemented?.(req.method ?? '', decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '')))) return answerLocally(req, res, 501, () => NOT_IMPLEMENTED);
    if (options.emptyListing !== undefined && req.method === 'GET' && /[?&]list-type=2/.test(req.url ?? '')) {
      const prefix = new URL(req.url ?? '', 'http://store').searchParams.get('prefix') ?? '';
      if (options.emptyListing(prefix)) {
        return answerLocally(req, res, 200, () => `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Prefix>${prefix}</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`);
      }
    }
    const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
    const readKey = decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '').split('?')[0]);
    if (req.method === 'GET' && readKey !== '') proxy.reads.push(readKey);
    const stale = req.method === 'GET' && readKey !== '' ? options.staleRead?.(readKey) : undefined;
    if (stale !== undefined) {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': stale.body.byteLength, etag: `"${stale.etag}"` });
        res.end(stale.body);
      });
      return;
    }
    let fault: WriteFault = 'pass';
    if (isWrite) {
      const write: WriteSeen = { number: proxy.writes.length + 1, method: req.method ?? '', path: decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '')), headers: req.headers, body: '' };
      proxy.writes.push(write);
      if (req.method === 'POST') req.on('data', (chunk: Buffer) => (write.body += chunk.toString('utf8')));
      options.onWrite?.(write);
      fault = options.fault?.(write) ?? 'pass';
    }
    if (fault === 'hold') {
      req.resume();
      return;
    }
    if (fault === 'deny') return answerLocally(req, res, 403, () => ACCESS_DENIED);
    if (fault === 'delete-errors') return answerLocally(req, res, 200, everyKeyFailed);
    if (fault === 'slowdown') {
      proxy.slowdowns += 1;
      req.resume();
      req.on('end', () => {
        res.writeHead(503, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(SLOW_DOWN) });
        res.end(SLOW_DOWN);
      });
      return;
    }
    const headers = { ...req.headers };
    // Hop-by-hop, and unsigned by SigV4: the proxy answers 100-continue itself.
    delete headers.expect;
    delete headers.connection;
    const forward = (): void => {
      // A client killed while its write was held never sent it to the store.
      if (req.socket.destroyed) return;
      const upstreamRequest = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
        if (fault === 'drop-after-apply') {
          proxy.drops += 1;
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        const listedModified = options.listedModified?.();
        if (listedModified !== undefined && req.method === 'GET' && /[?&]list-type=2/.test(req.url ?? '') && answer.statusCode === 200) {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = Buffer.from(Buffer.concat(chunks).toString('utf8').replace(/<LastModified>[^<]*<\/LastModified>/g, `<LastModified>${listedModified}</LastModified>`));
            res.writeHead(200, { ...answer.headers, 'content-length': body.byteLength });
            res.end(body);
          });
          return;
        }
        if (options.listPageKeys !== undefined && req.method === 'GET' && /[?&]list-type=2/.test(req.url ?? '') && answer.statusCode === 200) {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = Buffer.from(pageByKey(Buffer.concat(chunks).toString('utf8'), options.listPageKeys ?? 1000));
            res.writeHead(200, { ...answer.headers, 'content-length': body.byteLength });
            res.end(body);
          });
          return;
        }
        if (req.method === 'HEAD' && options.headWithoutLength?.()) {
          const { 'content-length': _length, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, rest);
          answer.pipe(res);
          return;
        }
        const key = decodeURIComponent((req.url ?? '').replace(/^\/[^/?]+\/?/, '').split('?')[0]);
        if (req.method === 'GET' && answer.statusCode === 200 && options.cutRead?.(key)) {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = Buffer.concat(chunks);
            res.writeHead(200, answer.headers);
            res.write(body.subarray(0, Math.floor(body.byteLength / 2)), () => res.socket?.destroy());
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstreamRequest.on('error', () => req.socket.destroy());
      if (fault === 'corrupt') {
        proxy.corruptions += 1;
        let flipped = false;
        req.pipe(
          new Transform({
            transform(chunk: Buffer, _encoding, done) {
              if (!flipped && chunk.byteLength > 0) {
                flipped = true;
                chunk[0] ^= 0x01;
              }
              done(null, chunk);
            },
          }),
        ).pipe(upstreamRequest);
        return;
      }
      req.pipe(upstreamRequest);
    };
    const delayMs = isWrite ? (options.writeDelayMs ?? 0) + (options.writeDelay?.(proxy.writes.at(-1)!) ?? 0) : 0;
    if (delayMs > 0) {
      req.pause();
      setTimeout(forward, delayMs);
    } else {
      forward();
    }
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

/** A ListObjectsV2 answer cut to `keys` entries: truncated when more were there, and never a continuation token. */
function pageByKey(xml: string, keys: number): string {
  const contents = xml.match(/<Contents>[\s\S]*?<\/Contents>/g) ?? [];
  const kept = contents.slice(0, keys);
  const truncated = contents.length > keys || /<IsTruncated>true<\/IsTruncated>/.test(xml);
  const rest = xml
    .replace(/<Contents>[\s\S]*?<\/Contents>/g, '')
    .replace(/<NextContinuationToken>[\s\S]*?<\/NextContinuationToken>/, '')
    .replace(/<KeyCount>\d+<\/KeyCount>/, `<KeyCount>${kept.length}</KeyCount>`)
    .replace(/<IsTruncated>(true|false)<\/IsTruncated>/, `<IsTruncated>${truncated}</IsTruncated>`);
  return rest.replace('</ListBucketResult>', `${kept.join('')}</ListBucketResult>`);
}
