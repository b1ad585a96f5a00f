import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { startCli } from '../helpers/process.js';

let sim: SimulatorHandle;
const dir = mkdtempSync(join(tmpdir(), 'ls-run-'));

beforeAll(async () => {
  // Every request takes at least a second, so a sync always outlasts the one-second schedule and the next
  // tick finds it running, however fast or slow the machine is.
  sim = await startSimulator({ seed: 7, size: 'tiny', faults: { latencyMs: 1000 } });
});
afterAll(async () => sim.close());

describe('run', () => {
  it('runs every job on second-level schedules, never overlapping a job with itself, and stops cleanly on SIGTERM', async () => {
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        // A refresh syncs too, so sync ticks during one are skipped; a refresh every few seconds would
        // leave no room for plain syncs. Every ten seconds leaves several.
        schedule: { sync: '* * * * * *', refresh: '*/10 * * * * *', push: '* * * * * *', export: '*/2 * * * * *', verify: '*/3 * * * * *' },
        export: { formats: ['csv'] },
        // Each request takes a second here: a small sample keeps a verify short.
        verify: { requests: 3 },
      }),
    );
    const proc = startCli(['--config', configFile, 'run'], {
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: join(dir, 'mirror.db'),
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
    });
    // A failed wait must not leave the process running (and holding the lock) after the test.
    onTestFinished(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    onTestFailed(() => {
      const tail = proc.lines.slice(-15).map((line) => `${String(line.time)} ${String(line.job ?? '')} ${String(line.msg)}`);
      console.error(`run test failed; ${proc.lines.length} log records; last ones:\n${tail.join('\n')}\nstderr: ${proc.stderr()}`);
    });
    const finished = (job: string) => proc.lines.filter((line) => line.job === job && typeof line.finishedAt === 'string');
    await proc.waitForLine(() => ['sync', 'push', 'export'].every((job) => finished(job).length >= 2) && finished('refresh').length >= 1 && finished('verify').length >= 1);
    await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.includes('still running from its previous tick'));
    const stoppedAt = Date.now();
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);

    for (const job of ['sync', 'refresh', 'push', 'export', 'verify']) {
      const runs = finished(job)
        .map((line) => ({ start: Date.parse(line.startedAt as string), end: Date.parse(line.finishedAt as string), ok: line.ok }))
        .sort((a, b) => a.start - b.start);
      // A run cut short by the SIGTERM ends interrupted; every run before it must have succeeded.
      expect(runs.filter((run) => run.end < stoppedAt).every((run) => run.ok), `${job} runs all succeeded`).toBe(true);
      for (let i = 1; i < runs.length; i += 1) expect(runs[i].start, `${job} run ${i} starts after run ${i - 1} ended`).toBeGreaterThanOrEqual(runs[i - 1].end);
    }
    // sync and refresh both move the pull checkpoints, so they never run at the same time either.
    const pulls = [...finished('sync'), ...finished('refresh')]
      .map((line) => ({ start: Date.parse(line.startedAt as string), end: Date.parse(line.finishedAt as string) }))
      .sort((a, b) => a.start - b.start);
    for (let i = 1; i < pulls.length; i += 1) expect(pulls[i].start).toBeGreaterThanOrEqual(pulls[i - 1].end);
    expect(proc.lines.some((line) => line.msg === 'stopped cleanly')).toBe(true);
  });
});
