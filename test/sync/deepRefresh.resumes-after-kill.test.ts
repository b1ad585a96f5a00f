import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { Rng } from '../../src/simulator/random.js';
import { loadDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiff } from '../helpers/sync.js';
import { tempDir } from '../helpers/tempDir.js';

const TRIALS = 4;
let sim: SimulatorHandle | undefined;
afterAll(async () => {
  await sim?.close();
});

it(`a deep refresh killed with SIGKILL at ${TRIALS} seeded random moments resumes from its checkpoint: the mirror equals the truth and the requests stay within 1.3x one read`, async () => {
  // 24,000 orders and activities are 48 pages; with 15 ms of latency a read takes long enough for a kill to land inside it.
  sim = await startSimulator({ seed: 21, size: { customers: 300, orders: 12_000, activities: 12_000, transactions: 400, unsubscribes: 5 }, pageOrder: 'newest-first', faults: { latencyMs: 15 } });
  const dir = tempDir('loyalty-deep-kill-');
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ api: { requestsPerSecond: 1000, burst: 50 } }));
  const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_CONFIG: configPath, LOG_LEVEL: 'info' };
  const deep = ['sync', '--deep', '--stream', 'orders', '--stream', 'activities'];
  const requests = (): number => sim!.stats().requests;

  const plainSync = async (): Promise<void> => expect((await startCli(['sync'], env).exited).code).toBe(0);
  // Pages of one whole read of both streams as the truth stands now.
  const pagesOfOneRead = (): number => (['orders', 'activities'] as const).reduce((sum, stream) => sum + Math.ceil(sim!.truth(stream).length / 500), 0);

  await plainSync();
  // Old records change, a plain sync takes in the new ones; then one uninterrupted deep read is the yardstick
  // of what a run costs beside the read itself (its regular passes, the probe after the last page).
  sim.tick(24);
  await plainSync();
  let before = requests();
  let started = performance.now();
  expect((await startCli(deep, env).exited).code).toBe(0);
  const beside = requests() - before - pagesOfOneRead();
  const runMs = performance.now() - started;

  const rng = new Rng(7);
  const history: string[] = [`one read: ${pagesOfOneRead()} pages + ${beside} other requests in ${Math.round(runMs)} ms`];
  let killedMidway = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    sim.tick(6);
    await plainSync();
    const oneRead = pagesOfOneRead() + beside;
    before = requests();
    const killed = startCli(deep, env);
    // Once the refresh has begun, so the kill lands in its pages rather than in start-up.
    await killed.waitForLine((line) => line.msg === 'deep refresh started');
    const delay = Math.round(runMs * 0.6 * rng.next());
    setTimeout(() => killed.child.kill('SIGKILL'), delay);
    const exit = await killed.exited;
    const db = openDatabase(env.LOYALTY_DB);
    const states = (['orders', 'activities'] as const).map((stream) => loadDeepRefresh(db, stream));
    db.close();
    const unfinished = states.some((state) => state.plan !== null || state.requestedAt !== null);
    if (!unfinished) {
      // The refresh completed before the kill landed: there is nothing to resume (another --deep would begin anew).
      history.push(`#${trial} kill after ${delay} ms → ${exit.signal ?? exit.code}, the refresh had completed`);
      continue;
    }
    if (exit.signal === 'SIGKILL') killedMidway += 1;
    const resumed = startCli(deep, env);
    expect((await resumed.exited).code, resumed.stderr()).toBe(0);
    const spent = requests() - before;
    history.push(`#${trial} kill after ${delay} ms → ${exit.signal ?? exit.code}, pages stored then: ${states.map((state) => state.pages).join('/')}; killed + resumed: ${spent} requests of ${oneRead}`);
    // The resumed run reads only what the killed one had not stored (and a page or two lost in flight).
    expect(spent, history.join('\n')).toBeLessThanOrEqual(1.3 * oneRead);
    // It finishes the refresh under way, beginning none for a stream the killed run had completed.
    expect(resumed.lines.filter((line) => line.msg === 'deep refresh started').length, history.join('\n')).toBeLessThan(2);
  }

  const db = openDatabase(env.LOYALTY_DB);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  for (const stream of ['orders', 'activities'] as const) {
    expect(mirrorDiff(db, sim, stream), history.join('\n')).toEqual([]);
    const state = loadDeepRefresh(db, stream);
    expect(state.plan).toBeNull();
    expect(state.lastCompletedAt).not.toBeNull();
  }
  expect(db.prepare('SELECT count(*) FROM deep_refresh_absent').pluck().get()).toBe(0);
  db.close();
  // Most kills must have landed inside a refresh, or the test proves little.
  expect(killedMidway, history.join('\n')).toBeGreaterThanOrEqual(TRIALS / 2);
});
