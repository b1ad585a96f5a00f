import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { awsEnv, listKeys } from '../s3/helpers.js';
import { startAnswerGate, type AnswerGate } from './answerGate.js';
import { useStateStore } from './stateStore.js';

const TWO_HOURS_MS = 2 * 60 * 60 * 1000;

describe('a run that stalls for hours at its end while another run saves (finding 2)', () => {
  const store = useStateStore({ seed: 313, size: 'tiny' });
  // The stalled run's listing of the dumps: sent when the gate opens, and every object in it two hours older than
  // it is, as a run that wakes from a pause of two hours finds them: the store lists what it holds then.
  let gate: AnswerGate;
  beforeAll(async () => {
    gate = await startAnswerGate(store.endpoint(), {
      hold: (request) => request.method === 'GET' && request.path.includes('list-type=2') && request.path.includes('prefix=stalled/state/dumps/'),
      before: true,
      heldListingAgedMs: TWO_HOURS_MS,
    });
  });
  afterAll(() => gate.close());

  it("deletes none of the other run's dumps: the state stays restorable and equals the program", async () => {
    expect((await runCli(['sync'], store.freshRun('stalled'))).code).toBe(0);

    const stalled = startCli(['sync'], { ...store.freshRun('stalled').env, ...awsEnv(gate.endpoint) });
    await gate.held;
    // Meanwhile another run saves what it synced; it waits for the lease if the stalled run still holds it.
    const dumps = async () => (await listKeys(store.client, store.bucket(), 'stalled/state/dumps/')).length;
    const before = await dumps();
    let otherDone = false;
    const other = runCli(['sync'], store.freshRun('stalled')).finally(() => (otherDone = true));
    // Until the other run has uploaded its segment, or, kept out by a lease the stalled run still holds, for a while.
    for (let waited = 0; !otherDone && waited < 20_000 && (await dumps()) === before; waited += 250) await sleep(250);
    gate.open();
    expect((await stalled.exited).code, stalled.stderr()).toBe(0);
    const otherEnded = await other;
    expect(otherEnded.code, otherEnded.stderr).toBe(0);

    const last = store.freshRun('stalled');
    const restored = await runCli(['sync'], last);
    expect(restored.code, restored.stderr).toBe(0);
    const db = openDatabase(join(last.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, store.sim())).toEqual([]);
    } finally {
      db.close();
    }
  });
});
