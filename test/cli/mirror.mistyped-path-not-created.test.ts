import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, sentences } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
const dir = tempDir('ls-mistyped-');
const mistyped = join(dir, 'no', 'such', 'folder', 'mirror.db');

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, size: 'tiny' });
});
afterAll(async () => sim.close());

const env = (db: string) => ({ LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: db, LOYALTY_EXPORT_DIR: join(dir, 'exports') });

describe('a mistyped LOYALTY_DB', () => {
  // Commands that read or change a mirror need one; only sync, once, run, demo and the queue's additions create it.
  const needsMirror = [['status'], ['status', '--check'], ['queue', 'list'], ['queue', 'retry', '1'], ['queue', 'cancel', '1'], ['export'], ['push'], ['verify']];

  it.each(needsMirror.map((args) => [args.join(' '), args]))('%s exits 1 naming the path, and creates nothing', async (_name, args) => {
    const result = await runCli(args as string[], { env: env(mistyped) });
    expect(result.code, result.stderr).toBe(1);
    expect(sentences(result.stderr)).toBe(`loyalty-sync: the mirror ${mistyped} (db.path or LOYALTY_DB) does not exist; check the path, or run "loyalty-sync sync" to create it.\n`);
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('whoami never opens the mirror, so it creates nothing either', async () => {
    const result = await runCli(['whoami'], { env: env(mistyped) });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('sync and a queue addition still create a new mirror and its folder', async () => {
    const added = await runCli(['queue', 'add-points', '--customer', 'c-1', '--points', '5', '--reason', 'welcome'], { env: env(join(dir, 'queued', 'mirror.db')) });
    expect(added.code, added.stderr).toBe(0);
    expect(existsSync(join(dir, 'queued', 'mirror.db'))).toBe(true);
    const synced = await runCli(['sync', '--stream', 'unsubscribes'], { env: env(join(dir, 'synced', 'mirror.db')) });
    expect(synced.code, synced.stderr).toBe(0);
    expect(existsSync(join(dir, 'synced', 'mirror.db'))).toBe(true);
  });

  it.each([['sync'], ['status'], ['queue', 'list'], ['once']].map((args) => [args.join(' '), args]))(
    'naming a folder: %s exits 2 with one sentence saying it is a folder, not a file',
    async (_name, args) => {
      const result = await runCli(args as string[], { env: env(dir) });
      expect(result.code, result.stderr).toBe(2);
      expect(sentences(result.stderr)).toBe(
        `loyalty-sync: Config key "db.path" (or LOYALTY_DB) is "${dir}", which is a folder, not a file; expected the path of the mirror file, such as ${join(dir, 'mirror.db')}.\n`,
      );
      expect(existsSync(join(dir, 'mirror.db'))).toBe(false);
    },
  );
});
