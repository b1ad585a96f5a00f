import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useStateStore } from './stateStore.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A writer killed between writing its temporary file and renaming it (or linking it) leaves the file in the
 * state's folder. The lease holder's sweep removes those older than several lease lengths, and only those:
 * a fresh one may be a write in flight, and an operator's own dotfiles are no temporary files at all.
 */
describe('temporary files of killed writers in a folder state (state.url=file://)', () => {
  const store = useStateStore({ seed: 331, size: 'tiny' }, 'folder');
  const PREFIX = 'temp-sweep';

  it('are removed by the next run that holds the lease once they are old, while fresh ones and other dotfiles stay', async () => {
    expect((await runCli(['sync'], store.freshRun(PREFIX))).code).toBe(0);
    const root = fileURLToPath(store.url(PREFIX));
    const plant = (folder: string, name: string, ageMs: number): string => {
      mkdirSync(join(root, folder), { recursive: true });
      const file = join(root, folder, name);
      writeFileSync(file, 'half a write');
      const at = new Date(Date.now() - ageMs);
      utimesSync(file, at, at);
      return file;
    };
    const oldDump = plant('state/dumps', '.000000000009-segment-killed.jsonl.zst.0123456789ab.tmp', DAY_MS);
    const oldResults = plant('outbox/add_points', '.june.results.csv.a1b2c3d4e5f6.tmp', DAY_MS);
    const freshEntry = plant('state/log', '.000000000099.json.fedcba987654.tmp', 0);
    const operatorsOwn = plant('inbox', '.keep', DAY_MS);

    const second = await runCli(['sync'], store.freshRun(PREFIX));
    expect(second.code, second.stderr).toBe(0);
    expect([oldDump, oldResults].filter((file) => existsSync(file)), 'old temporary files swept').toEqual([]);
    expect([freshEntry, operatorsOwn].filter((file) => existsSync(file)), 'a fresh temporary file and a dotfile stay').toEqual([freshEntry, operatorsOwn]);
  });
});
