import { request, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * Passes a request on to `target` byte for byte (Host included, so SigV4 signatures still verify at the
 * store) and its answer back; a failed upstream connection drops the client's, as a dead store would.
 */
export function forward(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const headers = { ...req.headers };
  delete headers.connection;
  const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forwarded.on('error', () => req.socket.destroy());
  req.pipe(forwarded);
}
