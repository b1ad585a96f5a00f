import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { readLocalMark } from '../../src/state/changeTracking.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { useStateStore } from './stateStore.js';

function markOf(path: string): { stateId: string; epoch: number } {
  const db = openDatabase(path, { mustExist: true });
  try {
    const mark = readLocalMark(db);
    if (mark === null) throw new Error(`${path} has no state mark`);
    return { stateId: mark.stateId, epoch: mark.epoch };
  } finally {
    db.close();
  }
}

function diffOf(path: string, sim: SimulatorHandle): string[] {
  const db = openDatabase(path, { mustExist: true });
  try {
    return mirrorDiffAll(db, sim);
  } finally {
    db.close();
  }
}

describe("a folder that holds another state's mirror, further along than this state (issue 33)", () => {
  const store = useStateStore({ seed: 331, size: 'tiny' });
  let other: SimulatorHandle;
  beforeAll(async () => {
    other = await startSimulator({ seed: 332, size: 'tiny' });
  });
  afterAll(() => other.close());

  it("is set aside and this state restored: the mirror equals this program's, and no set-aside copy is overwritten", async () => {
    // Another program's state, saved several times from one folder: its mirror's epoch climbs past this state's.
    const shared = store.freshRun('theirs', { LOYALTY_API_KEY: other.keys.full, LOYALTY_BASE_URL: other.url });
    for (let run = 0; run < 4; run += 1) expect((await runCli(['sync'], shared)).code).toBe(0);
    const ours = store.freshRun('ours');
    expect((await runCli(['sync'], ours)).code).toBe(0);
    const theirMark = markOf(join(shared.dir, 'mirror.db'));
    const ourMark = markOf(join(ours.dir, 'mirror.db'));
    expect(theirMark.epoch).toBeGreaterThan(ourMark.epoch);

    // This state's run in that folder.
    const mirror = join(shared.dir, 'mirror.db');
    const here = { ...ours, env: { ...ours.env, LOYALTY_DB: mirror } };
    const run = await runCli(['sync'], here);
    expect(run.code, run.stderr).toBe(0);
    expect(markOf(mirror).stateId).toBe(ourMark.stateId);
    expect(diffOf(mirror, store.sim())).toEqual([]);
    expect(diffOf(`${mirror}.replaced`, other)).toEqual([]);

    // And back: the other state's run sets this one aside too, and the first copy moves along instead of being overwritten.
    expect((await runCli(['sync'], shared)).code).toBe(0);
    expect(diffOf(mirror, other)).toEqual([]);
    expect(diffOf(`${mirror}.replaced`, store.sim())).toEqual([]);
    expect(diffOf(`${mirror}.replaced.1`, other)).toEqual([]);
    expect(existsSync(`${mirror}.replaced.2`)).toBe(false);
  });
});
