import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('once --verify and status', () => {
  it('runs a sampled verify after the sync, and status shows the last verify (text and --json)', async () => {
    sim = await startSimulator({ seed: 6, size: 'tiny' });
    const { db, path, dir } = freshMirror();
    db.close();
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: path, LOYALTY_EXPORT_DIR: join(dir, 'exports') };

    const once = await runCli(['once', '--verify'], { env });
    expect(once.code, once.stderr).toBe(0);
    const steps = once.stdout.split('\n').filter((line) => /^(ok|FAIL)/.test(line));
    expect(steps.map((line) => line.split(/\s+/)[1])).toEqual(['sync:', 'verify:', 'push:', 'export:']);
    expect(steps[1]).toMatch(/^ok {3}verify: no defects, \d+ requests; customers 0\/0\/0 of \d+/);

    const json = await runCli(['status', '--json'], { env });
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout) as { lastVerify: Record<string, unknown> & { streams: Array<Record<string, unknown>> } };
    expect(status.lastVerify).toMatchObject({ mode: 'sample', repair: false, status: 'succeeded', ok: true, differences: 0 });
    expect(status.lastVerify.requests).toBeGreaterThan(0);
    expect(status.lastVerify.streams.map((stream) => stream.stream)).toEqual(['customers', 'orders', 'activities', 'transactions', 'unsubscribes']);

    const text = await runCli(['status'], { env });
    expect(text.stdout).toMatch(/Last verify\nsampled finished \S+: ok\n\d+ rows compared, 0 defects, \d+ pending \(\d+ at the next sync\), \d+ requests/);
  });
});
