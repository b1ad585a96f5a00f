import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { logRecords, runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { sumOf } from '../helpers/exposition.js';
import { pushedGroup, startPushgateway, type PrometheusTool } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/tempDir.js';

/** bcrypt (cost 4, the cheapest) of "s3cret", for the gateway's basic_auth_users. */
const S3CRET_BCRYPT = '$2b$04$UsfrdUpx9/n8O8baPdrxNuw4.u/WaelmAUxATbX9inEBrqUeeetSi';
const AUTHORIZATION = { authorization: `Basic ${Buffer.from('pusher:s3cret').toString('base64')}` };

let sim: SimulatorHandle;
/** Debian's prometheus-pushgateway, behind basic auth. */
let gateway: PrometheusTool;

beforeAll(async () => {
  sim = await startSimulator({ seed: 22, size: 'tiny' });
  gateway = await startPushgateway({ pusher: S3CRET_BCRYPT });
});
afterAll(async () => {
  await sim.close();
  await gateway.stop();
});

function envFor(key: string): Record<string, string> {
  const dir = tempDir('loyalty-push-');
  return { LOYALTY_API_KEY: key, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
}

describe('once --pushgateway', () => {
  it("replaces the program's group of job loyalty_sync with the run's metrics", async () => {
    const whoami = (await (await fetch(`${sim.url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${sim.keys.full}` } })).json()) as { identity: { program_id: number } };
    const group = { job: 'loyalty_sync', program_id: String(whoami.identity.program_id) };
    // What an earlier run left in the group: a PUT replaces it whole, where a POST would keep it.
    const earlier = await fetch(`${gateway.url}/metrics/job/loyalty_sync/program_id/${group.program_id}`, { method: 'PUT', headers: AUTHORIZATION, body: 'loyalty_sync_left_by_an_earlier_run 1\n' });
    expect(earlier.status).toBe(200);
    expect((await pushedGroup(gateway, group, AUTHORIZATION)).map((sample) => sample.name)).toEqual(['loyalty_sync_left_by_an_earlier_run']);

    // The gateway is behind basic auth: the credentials go in a header, never into the log.
    const withCredentials = gateway.url.replace('http://', 'http://pusher:s3cret@');
    const result = await runCli(['once', '--pushgateway', `${withCredentials}/`], { env: envFor(sim.keys.full) });
    expect(result.code, result.stderr).toBe(0);
    expect(logRecords(result.stderr).filter((line) => String(line.msg).includes('Pushgateway'))).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('s3cret');

    const pushed = await pushedGroup(gateway, group, AUTHORIZATION);
    expect(pushed.map((sample) => sample.name)).not.toContain('loyalty_sync_left_by_an_earlier_run');
    expect(sumOf(pushed, 'loyalty_sync_runs_total', { outcome: 'succeeded' })).toBe(5);
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

  it("a run stopped by SIGTERM still reports to its program's group, not to one named unknown", async () => {
    const slow = await startSimulator({ seed: 23, size: 'small', faults: { latencyMs: 200 } });
    try {
      const whoami = (await (await fetch(`${slow.url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${slow.keys.full}` } })).json()) as { identity: { program_id: number } };
      const env = { ...envFor(slow.keys.full), LOYALTY_BASE_URL: slow.url, LOG_LEVEL: 'debug' };
      const proc = startCli(['once', '--pushgateway', gateway.url.replace('http://', 'http://pusher:s3cret@')], env);
      await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.includes('api request'));
      proc.child.kill('SIGTERM');
      const { code } = await proc.exited;
      expect(code).toBe(1);
      const pushed = await pushedGroup(gateway, { job: 'loyalty_sync', program_id: String(whoami.identity.program_id) }, AUTHORIZATION);
      // This run's own figures (a PUT replaces the group): its syncs were cut off, so none succeeded.
      expect(pushed.filter((sample) => sample.name === 'loyalty_sync_runs_total').length).toBeGreaterThan(0);
      expect(sumOf(pushed, 'loyalty_sync_runs_total', { outcome: 'succeeded' })).toBe(0);
      expect(await pushedGroup(gateway, { job: 'loyalty_sync', program_id: 'unknown' }, AUTHORIZATION)).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('exits 2 naming the value when the URL is not http(s)', async () => {
    const result = await runCli(['once', '--pushgateway', 'pushgateway:9091'], { env: envFor(sim.keys.full) });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loyalty-sync: --pushgateway is "pushgateway:9091"; expected an http(s) URL such as http://pushgateway:9091.\n');
  });
});
