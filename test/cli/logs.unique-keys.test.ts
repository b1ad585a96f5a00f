import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { duplicateKeys } from '../helpers/duplicateKeys.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
const dir = tempDir('ls-log-keys-');

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: 'tiny' });
});
afterAll(async () => sim.close());

/** Every log line of a run, with the keys each repeats. */
function repeatedKeys(stderr: string): Array<{ line: string; repeated: string[] }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => ({ line, repeated: duplicateKeys(line) }));
}

describe('log lines', () => {
  it('the checker itself sees a repeated key that JSON.parse would hide', () => {
    expect(duplicateKeys('{"stream":"customers","a":{"b":1,"b":2},"stream":"customers"}')).toEqual(['a.b', 'stream']);
    expect(duplicateKeys('{"stream":"customers","nested":{"stream":"orders"}}')).toEqual([]);
  });

  it('never carry a key twice, through a sync, a push with a dead job and a verify, at every level', async () => {
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOG_LEVEL: 'trace' };
    const sync = await runCli(['sync'], { env });
    expect(sync.code, sync.stderr).toBe(0);
    const queued = await runCli(['queue', 'add-points', '--customer', 'nobody-here', '--points', '5', '--reason', 'test'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const once = await runCli(['once', '--verify'], { env });

    const lines = [...repeatedKeys(sync.stderr), ...repeatedKeys(queued.stderr), ...repeatedKeys(once.stderr)];
    // The per-stream summaries (bound to their stream) are among them, so the case the issue met is covered.
    expect(lines.filter(({ line }) => line.includes('"msg":"customers sync succeeded"'))).toHaveLength(2);
    expect(lines.some(({ line }) => line.includes('"msg":"dead: '))).toBe(true);
    expect(lines.filter(({ repeated }) => repeated.length > 0)).toEqual([]);
  });
});
