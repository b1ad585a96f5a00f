import { PROGRAM_ID } from './catalog.js';
import { clockFrom, SIMULATED_EPOCH } from './time.js';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentials, makeKeys } from './auth.js';
import type { SimContext } from './context.js';
import { controlRoute } from './control.js';
import type { Controls } from './control.js';
import { FaultInjector, rateLimited, validateFaults } from './faults.js';
import { generate } from './generate.js';
import { changeOldRecords, validateOldRecordChanges } from './oldRecords.js';
import { addBackdatedTransaction, moveBalances } from './balanceControls.js';
import { errorReply, HttpError, readBody } from './http.js';
import type { Reply } from './http.js';
import { Ledger } from './ledger.js';
import { TokenBucket, validateRateLimit } from './rateLimit.js';
import { dispatch } from './routes/index.js';
import { validateServedDrift } from './servedDrift.js';
import { resolveProgram } from './profiles.js';
import { streamDefs } from './streams.js';
import { tick } from './tick.js';
import { truth } from './truth.js';
import type { PageOrder, SimulatorHandle, SimulatorOptions, SimulatorStats } from './types.js';

const CONTROL_PREFIX = '/__sim/';

/**
 * Every answer carries the simulated time in its Date header (RFC 9110's IMF-fixdate), which node would
 * otherwise fill from the machine's clock: a client that measures the API's clock sees the one that
 * stamped the writes.
 */
function send(res: ServerResponse, reply: Reply, now: number): void {
  const headers: Record<string, string | number> = { date: new Date(now).toUTCString(), 'content-length': Buffer.byteLength(reply.body), ...reply.headers };
  const contentType = reply.contentType ?? 'application/json; charset=utf-8';
  if (contentType !== '') headers['content-type'] = contentType;
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/** A 200 whose declared length is never reached: the client sees a body cut off halfway. */
function sendTruncated(res: ServerResponse, reply: Reply, now: number): void {
  const bytes = Buffer.from(reply.body);
  res.writeHead(reply.status, { date: new Date(now).toUTCString(), 'content-length': bytes.length, 'content-type': reply.contentType ?? 'application/json; charset=utf-8', ...reply.headers });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
}

function checkPageOrder(order: unknown): PageOrder {
  if (order !== 'newest-first' && order !== 'oldest-first') throw new RangeError(`page order must be newest-first or oldest-first, got ${String(order)}`);
  return order;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  // Options are checked before generating, which takes seconds at size 'large'.
  const { features, sizes } = resolveProgram(options);
  const pageOrder = checkPageOrder(options.pageOrder ?? 'newest-first');
  const faults = new FaultInjector(options.faults ?? null, seed);
  let bucket: TokenBucket | null = null;
  const stats: SimulatorStats = { requests: 0, byStatus: {}, byPath: {}, faultsInjected: 0 };
  const timers = new Set<NodeJS.Timeout>();

  const count = (status: string) => (stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1);
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  const setRateLimit = (limit: { requestsPerSecond?: unknown; burst?: unknown } | null) => {
    bucket = limit === null ? null : new TokenBucket(validateRateLimit(limit), Date.now());
  };
  setRateLimit(options.rateLimit ?? null);
  const drift = { current: validateServedDrift({ ...options.servedDrift }) };
  const epoch = options.epoch ?? SIMULATED_EPOCH;
  const store = generate(seed, sizes, epoch, features);
  const clock = options.clock ?? clockFrom(epoch);
  const simulatedNow = () => store.timeAt(clock());
  const ctx: SimContext = { store, ledger: new Ledger(), streams: streamDefs(drift), pageOrder, clock, programId: options.programId ?? PROGRAM_ID };
  const keys = makeKeys(seed);
  const known = credentials(keys);

  const controls: Controls = {
    tick: (steps) => {
      for (let i = 0; i < steps; i++) tick(store, sizes);
    },
    changeOldRecords: (request) => changeOldRecords(store, validateOldRecordChanges(request)),
    moveBalances: (moves) => moveBalances(store, moves),
    addBackdatedTransaction: (request) => addBackdatedTransaction(store, request),
    faults: () => faults.current(),
    setFaults: (spec) => faults.set(spec === null ? null : validateFaults(spec)),
    setPageOrder: (order) => {
      ctx.pageOrder = checkPageOrder(order);
    },
    setRateLimit,
    setServedDrift: (spec) => {
      drift.current = spec === null ? {} : validateServedDrift(spec);
    },
    ledger: () => ctx.ledger.all(),
    truth: (stream) => truth(store, ctx.streams, stream),
    stats: () => ({ requests: stats.requests, byStatus: { ...stats.byStatus }, byPath: { ...stats.byPath }, faultsInjected: stats.faultsInjected }),
  };

  async function serveApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    stats.requests++;
    stats.byPath[url.pathname] = (stats.byPath[url.pathname] ?? 0) + 1;
    const waitSeconds = bucket?.take(Date.now()) ?? 0;
    if (waitSeconds > 0) {
      count('429');
      send(res, rateLimited(true, true, waitSeconds), simulatedNow());
      return;
    }
    const plan = faults.plan(method, method !== 'GET');
    if (plan.drop) {
      stats.faultsInjected++;
      count('dropped');
      res.destroy();
      return;
    }
    if (plan.delayMs > 0) await wait(plan.delayMs);
    if (plan.reply !== null) {
      stats.faultsInjected++;
      count(String(plan.reply.status));
      send(res, plan.reply, simulatedNow());
      return;
    }
    let reply: Reply;
    try {
      const body = method === 'GET' ? '' : await readBody(req);
      reply = dispatch(ctx, known, method, url, req.headers.authorization, body);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      reply = errorReply(error);
    }
    if (plan.applyThenDrop && reply.applied === true) {
      stats.faultsInjected++;
      count('dropped');
      res.destroy();
      return;
    }
    count(String(reply.status));
    if (plan.truncate && reply.status === 200) {
      stats.faultsInjected++;
      sendTruncated(res, reply, simulatedNow());
      return;
    }
    send(res, reply, simulatedNow());
  }

  async function serveControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    try {
      send(res, controlRoute(controls, method, url.pathname, method === 'GET' ? '' : await readBody(req)), simulatedNow());
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      send(res, errorReply(error), simulatedNow());
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const serve = url.pathname.startsWith(CONTROL_PREFIX) ? serveControl : serveApi;
    serve(req, res, url).catch((error: unknown) => {
      // A bug in the simulator must show up as a loud 500, never as a hang.
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) send(res, { status: 500, body: JSON.stringify({ error: { message: `simulator bug: ${message}`, code: 'simulator_bug' } }) }, simulatedNow());
      else res.destroy();
    });
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}`,
    keys,
    tick: (steps = 1) => controls.tick(steps),
    changeOldRecords: (request) => controls.changeOldRecords({ ...request }),
    moveBalances: controls.moveBalances,
    addBackdatedTransaction: controls.addBackdatedTransaction,
    setFaults: controls.setFaults,
    setPageOrder: controls.setPageOrder,
    setRateLimit,
    setServedDrift: controls.setServedDrift,
    ledger: controls.ledger,
    truth: controls.truth,
    stats: controls.stats,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
