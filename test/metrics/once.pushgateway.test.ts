import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, promtool, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

interface Received {
  method: string;
  url: string;
  contentType: string;
  authorization: string | undefined;
  body: string;
}

let sim: SimulatorHandle;
/** A stand-in for the Pushgateway's push API (PUT /metrics/job/…): it records what it was sent and answers 200. */
let gateway: Server;
let gatewayUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 22, size: 'tiny' });
  gateway = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'] ?? '', authorization: req.headers.authorization, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim.close();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

function envFor(key: string): Record<string, string> {
  const dir = tempDir('loyalty-push-');
  return { LOYALTY_API_KEY: key, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
}

describe('once --pushgateway', () => {
  it("replaces the program's group of job loyalty_sync with the run's metrics", async () => {
    received.length = 0;
    // A gateway behind basic auth: the credentials go in a header, never into the log.
    const withCredentials = gatewayUrl.replace('http://', 'http://pusher:s3cret@');
    const result = await runCli(['once', '--pushgateway', `${withCredentials}/`], { env: envFor(sim.keys.full) });
    expect(result.code, result.stderr).toBe(0);
    const whoami = (await (await fetch(`${sim.url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${sim.keys.full}` } })).json()) as { identity: { program_id: number } };
    expect(received).toHaveLength(1);
    const [push] = received;
    expect(push.method).toBe('PUT');
    expect(push.url).toBe(`/metrics/job/loyalty_sync/program_id/${whoami.identity.program_id}`);
    expect(push.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(push.authorization).toBe(`Basic ${Buffer.from('pusher:s3cret').toString('base64')}`);
    const lint = await promtool(['check', 'metrics'], push.body);
    expect(lint.output).toBe('');
    expect(sumOf(parseSamples(push.body), 'loyalty_sync_runs_total', { outcome: 'succeeded' })).toBe(5);
  });

  it('only warns when the Pushgateway cannot be reached: the exit code stays what the job made it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const ok = await runCli(['once', '--pushgateway', closedUrl.replace('http://', 'http://pusher:s3cret@')], { env: envFor(sim.keys.full) });
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr).not.toContain('s3cret');
    const warning = ok.stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warning.some((line) => line.level === 40 && line.msg.startsWith(`could not push the metrics to the Pushgateway at ${closedUrl}`))).toBe(true);

    const failed = await runCli(['once', '--pushgateway', closedUrl], { env: envFor('not-a-key') });
    expect(failed.code).toBe(1);
  });

  it('exits 2 naming the value when the URL is not http(s)', async () => {
    const result = await runCli(['once', '--pushgateway', 'pushgateway:9091'], { env: envFor(sim.keys.full) });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loyalty-sync: --pushgateway is "pushgateway:9091"; expected an http(s) URL such as http://pushgateway:9091.\n');
  });
});
