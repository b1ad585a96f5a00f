import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { startCli } from '../helpers/process.js';

let sim: SimulatorHandle;
const dir = mkdtempSync(join(tmpdir(), 'ls-run-'));

beforeAll(async () => {
  // Latency makes each sync last longer than the one-second schedule, so ticks find it running.
  sim = await startSimulator({ seed: 7, size: 'tiny', faults: { latencyMs: 300 } });
});
afterAll(async () => sim.close());

describe('run', () => {
  // One retry: twice, under a heavily loaded machine, a first attempt never saw the expected records within
  // the test timeout; onTestFailed below prints what it saw so the cause can be found.
  it('runs every job on second-level schedules, never overlapping a job with itself, and stops cleanly on SIGTERM', { retry: 1 }, async () => {
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        schedule: { sync: '* * * * * *', refresh: '*/3 * * * * *', push: '* * * * * *', export: '*/2 * * * * *' },
        export: { formats: ['csv'] },
      }),
    );
    const proc = startCli(['--config', configFile, 'run'], {
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_DB: join(dir, 'mirror.db'),
      LOYALTY_EXPORT_DIR: join(dir, 'exports'),
    });
    onTestFailed(() => {
      const tail = proc.lines.slice(-15).map((line) => `${String(line.time)} ${String(line.job ?? '')} ${String(line.msg)}`);
      console.error(`run test failed; ${proc.lines.length} log records; last ones:\n${tail.join('\n')}\nstderr: ${proc.stderr()}`);
    });
    const finished = (job: string) => proc.lines.filter((line) => line.job === job && typeof line.finishedAt === 'string');
    // Refresh ticks every 3 s and waits for a running sync, so one refresh run is what it reliably gets.
    await proc.waitForLine(() => ['sync', 'push', 'export'].every((job) => finished(job).length >= 2) && finished('refresh').length >= 1);
    await proc.waitForLine((line) => typeof line.msg === 'string' && line.msg.includes('still running from its previous tick'));
    const stoppedAt = Date.now();
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);

    for (const job of ['sync', 'refresh', 'push', 'export']) {
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
