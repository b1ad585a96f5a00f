import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

describe('demo --stateless', () => {
  it('runs the job twice in fresh folders on a state in a folder: the second restores the first\'s mirror and syncs incrementally', async () => {
    const cwd = tempDir('ls-demo-stateless-');
    const result = await runCli(['demo', '--stateless', '--size', 'small'], { cwd, env: { LOG_LEVEL: 'error' } });
    expect(result.code, result.stderr).toBe(0);
    const dir = join(cwd, 'demo-data');
    expect(result.stdout).toContain(`state:     file://${dir}/state (state.url)`);
    expect(result.stdout).toMatch(/^run 1: started with no mirror and no state: a whole first sync; \d+ requests to the API; saved \d+ bytes to the state$/m);
    expect(result.stdout).toMatch(/^run 2: restored the mirror from the state \(\d+ rows from \d+ bytes in \d+ dump\(s\)\); \d+ requests to the API; saved \d+ bytes to the state$/m);
    // The example writes are keyed: the second run finds them in the restored mirror, done, and queues none again.
    expect(result.stdout.match(/^queued \d+ example writes/gm)).toEqual(['queued 3 example writes', 'queued 0 example writes']);
    const [first, second] = /the second run sent (\d+) requests to the API, the first (\d+)/.exec(result.stdout)!.slice(1).map(Number).reverse();
    expect(second, result.stdout).toBeLessThan(first / 2);

    const mirror = new Database(join(dir, 'run-2', 'mirror.db'), { readonly: true });
    try {
      expect(mirror.prepare('SELECT state, count(*) AS jobs FROM write_jobs GROUP BY state').all()).toEqual([{ state: 'succeeded', jobs: 3 }]);
    } finally {
      mirror.close();
    }
    expect(readdirSync(join(dir, 'state', 'state', 'log')).length).toBeGreaterThan(0);

    // Again in the same folder: a new state, since the simulator it mirrored is gone; the same story.
    const again = await runCli(['demo', '--stateless', '--size', 'small'], { cwd, env: { LOG_LEVEL: 'error' } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^run 1: started with no mirror and no state/m);
  });
});
