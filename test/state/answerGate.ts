import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedRequest {
  method: string;
  /** After the host: /BUCKET/KEY?QUERY, decoded. */
  path: string;
  body: string;
}

export interface AnswerGateOptions {
  /** Whether this request waits until `open()`: its answer (the store has applied it already), or with `before`, the request itself. */
  hold: (request: GatedRequest) => boolean;
  /** Holds a picked request before it reaches the store, as a client paused just before sending it: the store answers as of `open()`. */
  before?: boolean;
  /**
   * Milliseconds taken off every `LastModified` of a held listing: the objects look that much older, as they
   * are to a client that wakes after a pause that long. (Moving the store's `Date` instead would move the
   * SDK's signing clock too, and the store would refuse its next request as skewed.)
   */
  heldListingAgedMs?: number;
}

export interface AnswerGate {
  endpoint: string;
  /** Resolves when the first answer is held. */
  held: Promise<GatedRequest>;
  /** Lets every held answer through, and every later one at once. */
  open: () => void;
  close: () => Promise<void>;
}

/**
 * A proxy in front of the store that passes each request on, and holds back the answers `hold` picks
 * until the test opens the gate: a client paused (SIGSTOP, a long GC, a frozen VM) right after the store
 * acted on its request, or with `before`, right before it sent it. Requests are forwarded byte for byte, so signatures still verify.
 */
export async function startAnswerGate(upstream: string, options: AnswerGateOptions): Promise<AnswerGate> {
  const target = new URL(upstream);
  let opened = false;
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let heldOne!: (request: GatedRequest) => void;
  const held = new Promise<GatedRequest>((resolve) => (heldOne = resolve));
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const seen: GatedRequest = { method: req.method ?? '', path: decodeURIComponent(req.url ?? ''), body: body.toString('utf8') };
      const holding = !opened && options.hold(seen);
      const headers = { ...req.headers };
      delete headers.connection;
      const pass = (): void => {
        const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            const reply = (): void => {
              const answerHeaders = { ...answer.headers };
              let answerBody = Buffer.concat(answerChunks);
              const aged = options.heldListingAgedMs;
              if (holding && aged !== undefined) {
                answerBody = Buffer.from(
                  answerBody.toString('utf8').replace(/<LastModified>([^<]+)<\/LastModified>/g, (_, iso: string) => `<LastModified>${new Date(Date.parse(iso) - aged).toISOString()}</LastModified>`),
                );
                answerHeaders['content-length'] = String(answerBody.length);
              }
              res.writeHead(answer.statusCode ?? 502, answerHeaders).end(answerBody);
            };
            if (!holding || options.before === true) return reply();
            heldOne(seen);
            void gate.then(reply);
          });
        });
        forwarded.on('error', () => req.socket.destroy());
        forwarded.end(body);
      };
      if (!holding || options.before !== true) return pass();
      heldOne(seen);
      void gate.then(pass);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    open: () => {
      opened = true;
      openGate();
    },
    close: () => {
      opened = true;
      openGate();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
