import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sentences } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

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
  chmodSync(path, 0o444);
  if (folderReadOnly) chmodSync(folder, 0o555);
  return path;
}

// The commands run bound by file modes: root in CI would otherwise write any file whatever its mode.
describe('a mirror its owner may read but not write', () => {
  it.each([
    ['a read-only file in a read-only folder', true],
    ['a read-only file in a folder the owner may write', false],
  ])('%s: status and queue list read it', async (_name, folderReadOnly) => {
    const path = await readOnlyMirror(folderReadOnly);
    const env = { LOYALTY_DB: path };
    const status = await runCli(['status', '--json'], { env, boundByFileModes: true });
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { queue: { queued: number } }).queue.queued).toBe(1);
    const list = await runCli(['queue', 'list'], { env, boundByFileModes: true });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^1\s+queued\s+add_points\s+customer c-7/m);
  });

  it('a command that must write it says so, naming the mirror', async () => {
    const path = await readOnlyMirror(true);
    const result = await runCli(['queue', 'add-points', '--customer', 'c-8', '--points', '5', '--reason', 'welcome'], { env: { LOYALTY_DB: path }, boundByFileModes: true });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr)).toMatch(new RegExp(`^loyalty-sync: the mirror ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(db.path or LOYALTY_DB\\) cannot be opened: `));
  });

  it('verify --ledger, which records its result in the mirror, says it cannot write a read-only file, naming the mirror', async () => {
    // The folder may be written: the mirror opens, and only the write of the result fails.
    const path = await readOnlyMirror(false);
    const result = await runCli(['verify', '--ledger'], { env: { LOYALTY_DB: path }, boundByFileModes: true });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr)).toMatch(new RegExp(`^loyalty-sync: the mirror ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(db.path or LOYALTY_DB\\) cannot be written by this user: attempt to write a readonly database`));
  });
});
