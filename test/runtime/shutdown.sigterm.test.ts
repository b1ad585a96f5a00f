import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/config.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { checkpointProblems, requestsByStream, resumeCost, resumeWork } from '../helpers/checkpoints.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll } from '../helpers/sync.js';

/** `api.pageSize`'s default. */
const PAGE_SIZE = 500;
let sim: SimulatorHandle;
const dir = mkdtempSync(join(tmpdir(), 'ls-sigterm-'));
const dbPath = join(dir, 'mirror.db');

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: { customers: 4000, orders: 4000, activities: 12000, transactions: 60000, reviews: 50, rewards: 5, unsubscribes: 1500 }, faults: { latencyMs: 25 } });
});
afterAll(async () => sim.close());

function mirrorRows(): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return STREAM_NAMES.reduce((sum, stream) => sum + (db.prepare(`SELECT count(*) AS n FROM ${stream}`).get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
}

describe('graceful shutdown', () => {
  it('on SIGTERM during a large sync, commits the page in flight, exits 0, and the next sync resumes where it stopped', async () => {
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ runtime: { shutdownDeadlineSeconds: 15 }, schedule: { sync: '* * * * * *' } }));
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: dbPath, LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const proc = startCli(['--config', configFile, 'run'], env);
    await proc.waitForLine((line) => line.msg === 'schedules started');
    // Wait until the sync has committed a good share of the rows, but not all of them.
    const total = STREAM_NAMES.reduce((sum, stream) => sum + sim.truth(stream).length, 0);
    let rows = 0;
    while (rows < total * 0.2) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = mirrorRows();
    }
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(0);
    expect(proc.lines.some((line) => line.msg === 'stopped cleanly')).toBe(true);

    const stopped = mirrorRows();
    expect(stopped).toBeLessThan(total);
    const db = new Database(dbPath, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // Where it stopped: each checkpoint stands right after the rows the mirror holds.
    expect(checkpointProblems(db, sim, PAGE_SIZE)).toEqual([]);
    const work = resumeWork(db, sim, PAGE_SIZE);
    db.close();

    let before = sim.stats();
    const resumed = await runCli(['sync'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const resumeRequests = requestsByStream(before, sim.stats());
    // What every incremental run re-reads, on the now complete mirror.
    before = sim.stats();
    expect((await runCli(['sync'], { env })).code).toBe(0);
    const overlap = requestsByStream(before, sim.stats());
    // The pages SIGTERM left unread and the overlap, nothing stored before it read again.
    expect(resumeRequests).toEqual(resumeCost(work, overlap));

    const mirror = new Database(dbPath, { readonly: true });
    expect(mirrorDiffAll(mirror, sim)).toEqual([]);
    mirror.close();
  });
});
