import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, sentences } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { startRefusingApi, type RefusingApi } from '../helpers/refusingApi.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
const dir = tempDir('ls-credential-');

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: 'tiny' });
});
afterAll(async () => sim.close());

const env = (name: string, key: string | undefined, baseUrl = sim.url) => ({
  LOYALTY_API_KEY: key,
  LOYALTY_BASE_URL: baseUrl,
  LOYALTY_DB: join(dir, `${name}.db`),
  LOYALTY_EXPORT_DIR: join(dir, `${name}-exports`),
});

describe('without LOYALTY_API_KEY', () => {
  it.each(['sync', 'once', 'push', 'verify', 'run'])('%s exits 2 before sending anything', async (command) => {
    const before = sim.stats().requests;
    const result = await runCli([command], { env: env(`nokey-${command}`, undefined) });
    expect(result.code).toBe(2);
    expect(sentences(result.stderr)).toBe(`loyalty-sync: LOYALTY_API_KEY is not set; export the program API key in that variable and run ${command} again.\n`);
    expect(sim.stats().requests).toBe(before);
  });
});

describe('a key as a secret file holds it', () => {
  it('a key ending with the newline of its file is the key: whoami answers', async () => {
    const result = await runCli(['whoami'], { env: env('newline-key', `${sim.keys.full}\n`) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Identity: api_key$/m);
  });

  it('a key with a character no HTTP header carries exits 2 before sending anything, naming where, not the key', async () => {
    const before = sim.stats().requests;
    const key = `${sim.keys.full.slice(0, 6)}\u0001${sim.keys.full.slice(6)}`;
    const result = await runCli(['sync'], { env: env('control-key', key) });
    expect(result.code).toBe(2);
    expect(sentences(result.stderr)).toBe(
      `loyalty-sync: LOYALTY_API_KEY holds a character that is not printable ASCII at position 7 of ${key.length}; expected the API key alone, on one line.\n`,
    );
    expect(result.stderr).not.toContain(sim.keys.full.slice(6));
    expect(sim.stats().requests).toBe(before);
  });
});

describe('a key the API refuses', () => {
  it('once stops after the first request (401): the other streams, the verify and the push are skipped, the export still runs', async () => {
    const before = sim.stats().requests;
    const result = await runCli(['once', '--verify'], { env: env('refused-once', 'not-a-valid-key') });
    expect(result.code).toBe(1);
    expect(sim.stats().requests - before).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      `FAIL sync: the API at ${sim.url} refused LOYALTY_API_KEY (the API rejected the credential (401)); check the key and its scopes with "loyalty-sync whoami"; skipped orders, activities, transactions, unsubscribes`,
      'SKIP verify: skipped: the API refused the credential',
      'SKIP push: skipped: the API refused the credential; the queued jobs wait for the next run',
      expect.stringMatching(/^ok {3}export: 16 files, 0 rows, manifest /) as string,
    ]);
  });

  it('sync stops after a 403 on its first request, naming it', async () => {
    const api: RefusingApi = await startRefusingApi(403);
    onTestFinished(() => api.close());
    const result = await runCli(['sync'], { env: env('forbidden-sync', 'a-key-without-scopes', api.url) });
    expect(result.code).toBe(1);
    expect(api.requests()).toEqual(['GET /v2/customers']);
    expect(sentences(result.stderr)).toBe(
      `loyalty-sync: the API at ${api.url} refused LOYALTY_API_KEY (GET /v2/customers failed: 403 This key may not do that (forbidden)); check the key and its scopes with "loyalty-sync whoami"; skipped orders, activities, transactions, unsubscribes.\n`,
    );
  });

  it('run reports the refusal at each sync, one request each, without retrying', async () => {
    const api: RefusingApi = await startRefusingApi(401);
    onTestFinished(() => api.close());
    const configFile = join(dir, 'run.json');
    writeFileSync(configFile, JSON.stringify({ schedule: { sync: '*/2 * * * * *', push: '0 0 1 1 *', refresh: '0 0 1 1 *', export: '0 0 1 1 *', verify: '0 0 1 1 *' } }));
    const proc = startCli(['--config', configFile, 'run'], env('refused-run', 'not-a-valid-key', api.url));
    onTestFinished(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    const isRefusal = (line: Record<string, unknown>) => line.job === 'sync' && line.ok === false && String(line.msg).includes('refused LOYALTY_API_KEY');
    await proc.waitForLine(isRefusal);
    await proc.waitForLine((line) => isRefusal(line) && proc.lines.filter(isRefusal).length >= 2);
    proc.child.kill('SIGTERM');
    await proc.exited;
    // One request per sync, none retried (a tick may have sent one more just before the stop).
    const syncs = proc.lines.filter(isRefusal).length;
    expect(new Set(api.requests())).toEqual(new Set(['GET /v2/customers']));
    expect(api.requests().length).toBeGreaterThanOrEqual(syncs);
    expect(api.requests().length).toBeLessThanOrEqual(syncs + 1);
  });
});
