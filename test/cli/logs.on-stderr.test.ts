import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { logRecords, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
const dir = tempDir('ls-log-stderr-');

beforeAll(async () => {
  sim = await startSimulator({ seed: 8, size: 'tiny' });
});
afterAll(async () => sim.close());

describe('logs', () => {
  it('go to stderr, so `sync > summary.txt` holds the summary alone', async () => {
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'info' };
    const result = await runCli(['sync'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].map((stream) => expect.stringMatching(new RegExp(`^${stream}: succeeded, \\d+ rows read`)) as string));
    expect(logRecords(result.stderr).map((record) => record.msg)).toContain('sync finished');
  });
});
