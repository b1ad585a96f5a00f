import { connect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createHealth } from '../../src/metrics/health.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { MAX_CONNECTIONS, startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { captureLogger } from '../api/helpers.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client that starts a request and never finishes its headers; resolves with its index once the server closes it. */
function stalledClient(port: number, index: number): { connected: Promise<void>; closed: Promise<number>; socket: Socket } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  // Reads what the server sends (its 408), so the server's end of the connection reaches this side.
  socket.resume();
  socket.once('connect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
  // A connection dropped at accept may be reset before it reports being connected.
  const connected = new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(index)));
  return { connected, closed, socket };
}

it('holds at most its cap of connections, drops the rest at once, cuts off stalled headers, then still serves a scrape', async () => {
  server = await startMetricsServer({ address: { host: '127.0.0.1', port: 0 }, registry: createMetrics().registry, health: createHealth(), logger: captureLogger('warn').logger });
  const extra = 36;
  const clients: Array<ReturnType<typeof stalledClient>> = [];
  for (let i = 0; i < MAX_CONNECTIONS + extra; i += 1) {
    const client = stalledClient(server.port, i);
    clients.push(client);
    await client.connected;
  }
  const closeOrder: number[] = [];
  await Promise.all(clients.map((client) => client.closed.then((index) => closeOrder.push(index))));

  // The connections beyond the cap were closed first (at accept), before any of the held ones timed out.
  expect(new Set(closeOrder.slice(0, extra))).toEqual(new Set(clients.map((_, i) => i).slice(MAX_CONNECTIONS)));
  // And every held one was cut off for its stalled headers: nothing is left open to pile up.
  expect(closeOrder).toHaveLength(MAX_CONNECTIONS + extra);
  const scrape = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(scrape.status).toBe(200);
  expect(await scrape.text()).toContain('# TYPE loyalty_');
});
