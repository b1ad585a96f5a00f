import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sentences } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

/**
 * Root may write any file whatever its mode, so under root (as in CI) the commands run as `nobody`, who
 * owns the mirror but finds it and its folder read-only: the situation of a read-only copy or volume.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };
const user = asRoot ? NOBODY : undefined;

/** A mirror with one queued job, closed cleanly (so no -wal or -shm file is left), made read-only. */
async function readOnlyMirror(folderReadOnly: boolean): Promise<string> {
  const parent = tempDir('ls-readonly-');
  chmodSync(parent, 0o755);
  const folder = join(parent, 'mirror');
  mkdirSync(folder);
  const path = join(folder, 'mirror.db');
  const added = await runCli(['queue', 'add-points', '--customer', 'c-7', '--points', '5', '--reason', 'welcome'], { env: { LOYALTY_DB: path } });
  expect(added.code, added.stderr).toBe(0);
  expect(existsSync(`${path}-wal`) || existsSync(`${path}-shm`)).toBe(false);
  if (user) {
    chownSync(folder, user.uid, user.gid);
    chownSync(path, user.uid, user.gid);
  }
  chmodSync(path, 0o444);
  if (folderReadOnly) chmodSync(folder, 0o555);
  return path;
}

describe('a mirror its owner may read but not write', () => {
  it.each([
    ['a read-only file in a read-only folder', true],
    ['a read-only file in a folder the owner may write', false],
  ])('%s: status and queue list read it', async (_name, folderReadOnly) => {
    const path = await readOnlyMirror(folderReadOnly);
    const env = { LOYALTY_DB: path };
    const status = await runCli(['status', '--json'], { env, user });
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { queue: { queued: number } }).queue.queued).toBe(1);
    const list = await runCli(['queue', 'list'], { env, user });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^1\s+queued\s+add_points\s+customer c-7/m);
  });

  it('a command that must write it says so, naming the mirror', async () => {
    const path = await readOnlyMirror(true);
    const result = await runCli(['queue', 'add-points', '--customer', 'c-8', '--points', '5', '--reason', 'welcome'], { env: { LOYALTY_DB: path }, user });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr)).toMatch(new RegExp(`^loyalty-sync: the mirror ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(db.path or LOYALTY_DB\\) cannot be opened: `));
  });
});
