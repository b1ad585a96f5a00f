import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { useStateStore } from './stateStore.js';

function jobsIn(path: string): Array<{ kind: string; state: string }> {
  const db = openDatabase(path, { mustExist: true });
  try {
    return db.prepare('SELECT kind, state FROM write_jobs ORDER BY id').all() as Array<{ kind: string; state: string }>;
  } finally {
    db.close();
  }
}

describe('state restore --as-of TIME', () => {
  const store = useStateStore({ seed: 314, size: 'tiny' });

  it('restores the state as saved then into an empty folder, and leaves the live state alone', async () => {
    const customer = (store.sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    expect((await runCli(['sync'], store.freshRun('asof'))).code).toBe(0);
    // The store dates entries in whole seconds: a second either side keeps "then" apart from the saves around it.
    await sleep(1500);
    const then = new Date().toISOString();
    await sleep(1500);
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '7', '--reason', 'as-of test'], store.freshRun('asof'));
    expect(queued.code, queued.stderr).toBe(0);

    const older = join(tempDir('loyalty-asof-'), 'restored', 'mirror.db');
    const restored = await runCli(['state', 'restore', '--as-of', then, '--to', older], store.freshRun('asof'));
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^restored the state at s3:\/\/\S+\/asof as saved at \S+ \(log entry \d+, epoch \d+\) into \S+mirror\.db: \d+ rows from \d+ dump\(s\)\n$/);
    // Rows as of then: the program's records, and not the write queued after.
    const db = openDatabase(older, { mustExist: true });
    try {
      expect(mirrorDiffAll(db, store.sim())).toEqual([]);
    } finally {
      db.close();
    }
    expect(jobsIn(older)).toEqual([]);

    // Now, into the default place (LOYALTY_DB) of a fresh folder: the newest state, with the write.
    const now = store.freshRun('asof');
    const newest = await runCli(['state', 'restore', '--as-of', new Date(Date.now() + 60_000).toISOString()], now);
    expect(newest.code, newest.stderr).toBe(0);
    expect(jobsIn(join(now.dir, 'mirror.db'))).toEqual([{ kind: 'add_points', state: 'queued' }]);
  });

  it('refuses a folder that holds anything, and a time without its zone, each in one sentence', async () => {
    const busy = tempDir('loyalty-asof-busy-');
    mkdirSync(busy, { recursive: true });
    writeFileSync(join(busy, 'notes.txt'), 'mine\n');
    const refused = await runCli(['state', 'restore', '--as-of', '2026-11-27T06:00:00Z', '--to', join(busy, 'mirror.db')], store.freshRun('asof'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`loyalty-sync: The folder ${busy} holds 1 file(s) (notes.txt); state restore writes only into an empty or new folder, so that no mirror is replaced.\n`);

    const zoneless = await runCli(['state', 'restore', '--as-of', '2026-11-27 06:00'], store.freshRun('asof'));
    expect(zoneless.code).toBe(2);
    expect(zoneless.stderr).toBe('loyalty-sync: --as-of is "2026-11-27 06:00"; expected an ISO 8601 time with its zone, e.g. 2026-11-27T06:00:00Z.\n');
  });
});
