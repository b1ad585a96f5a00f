import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitPath } from '../../../src/export/delta/actions.js';
import { DiskDeltaStore } from '../../../src/export/delta/diskStore.js';
import { tempDir } from '../../helpers/tempDir.js';

/** Every file name under `dir`, recursively, relative to it. */
function namesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ name: string; parentPath: string; isFile(): boolean }>)
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('DiskDeltaStore', () => {
  it('of two writers racing for one commit, exactly one wins, and the file holds its bytes whole', async () => {
    for (let round = 0; round < 20; round += 1) {
      const root = join(tempDir('delta-disk-'), 'table');
      const first = new DiskDeltaStore(root);
      const second = new DiskDeltaStore(root);
      const bodies = [Buffer.from(`{"commitInfo":{"writer":"first"}}\n`.repeat(20_000)), Buffer.from(`{"commitInfo":{"writer":"second"}}\n`.repeat(20_000))];
      const results = await Promise.all([first.putIfAbsent(commitPath(0), bodies[0]), second.putIfAbsent(commitPath(0), bodies[1])]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(readFileSync(join(root, commitPath(0))).equals(bodies[winner])).toBe(true);
      expect(namesUnder(root)).toEqual([commitPath(0)]);
      expect(statSync(join(root, commitPath(0))).mode & 0o777).toBe(0o600);
      expect(statSync(join(root, '_delta_log')).mode & 0o777).toBe(0o700);
      // A later writer of the same version loses too, and changes nothing.
      expect(await first.putIfAbsent(commitPath(0), Buffer.from('late\n'))).toBe(false);
      expect(readFileSync(join(root, commitPath(0))).equals(bodies[winner])).toBe(true);
    }
  });

  it('replaces _last_checkpoint, lists with sizes and times, and reads back', async () => {
    const root = join(tempDir('delta-disk-'), 'table');
    const store = new DiskDeltaStore(root);
    expect(await store.list()).toEqual([]);
    expect(await store.read('_delta_log/_last_checkpoint')).toBeNull();
    await store.put('_delta_log/_last_checkpoint', Buffer.from('{"version":10}'));
    await store.put('_delta_log/_last_checkpoint', Buffer.from('{"version":20}'));
    await store.putIfAbsent(commitPath(0), Buffer.from('{}\n'));
    expect((await store.read('_delta_log/_last_checkpoint'))?.toString()).toBe('{"version":20}');
    const log = await store.listLog();
    expect(log.map((entry) => [entry.path, entry.size])).toEqual([
      [commitPath(0), 3],
      ['_delta_log/_last_checkpoint', 14],
    ]);
    expect(log[0].modifiedMs).toBeGreaterThan(Date.parse('2020-01-01'));
    expect(namesUnder(root)).toEqual([commitPath(0), '_delta_log/_last_checkpoint']);
  });

  it('a data file keeps a temporary name until finish, and leaves nothing behind after abort', async () => {
    const root = join(tempDir('delta-disk-'), 'table');
    const store = new DiskDeltaStore(root);
    const sink = await store.createDataFile('part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet');
    await sink.write(Buffer.from('PAR1'));
    await sink.write(Buffer.from('data'));
    const [during] = namesUnder(root);
    expect(during).toMatch(/^\.tmp-[0-9a-f]+-part-20261122T201500Z-ab12-00000-a1b2c3d4\.parquet$/);
    expect(await sink.finish()).toMatchObject({ bytes: 8 });
    expect(namesUnder(root)).toEqual(['part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet']);
    expect(readFileSync(join(root, 'part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet'), 'utf8')).toBe('PARdata'.replace('PAR', 'PAR1'));

    const aborted = await store.createDataFile('part-20261122T201500Z-ab12-00001-a1b2c3d4.parquet');
    await aborted.write(Buffer.from('half'));
    await aborted.abort();
    expect(namesUnder(root)).toEqual(['part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet']);

    // A data file's name is never reused: finishing one under an existing name fails and keeps the old file.
    const again = await store.createDataFile('part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet');
    await again.write(Buffer.from('other'));
    await expect(again.finish()).rejects.toThrow(/EEXIST/);
    expect(namesUnder(root)).toEqual(['part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet']);
    expect(readFileSync(join(root, 'part-20261122T201500Z-ab12-00000-a1b2c3d4.parquet'), 'utf8')).toBe('PAR1data');
  });

  it('deletes only inside the table: no .., no absolute path, no symlinked folder leading out', async () => {
    const base = tempDir('delta-disk-');
    const root = join(base, 'table');
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.parquet'), 'precious');
    writeFileSync(join(base, 'sibling.parquet'), 'precious');
    const store = new DiskDeltaStore(root);
    await store.putIfAbsent('part-a.parquet', Buffer.from('x'));
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync(join(outside, 'keep.parquet'), join(root, 'link.parquet'));

    await expect(store.delete(['../sibling.parquet'])).rejects.toThrow(`"../sibling.parquet" is not a path inside the Delta table at ${root}; expected a relative path without '..', '.' or empty segments.`);
    await expect(store.delete([join(base, 'sibling.parquet')])).rejects.toThrow(/is not a path inside the Delta table/);
    await expect(store.delete(['escape/keep.parquet'])).rejects.toThrow(`escape/keep.parquet leads out of the Delta table at ${root} through a symlink; expected every file of the table inside its folder.`);
    await expect(store.putIfAbsent('escape/new.json', Buffer.from('x'))).rejects.toThrow(/leads out of the Delta table/);
    await expect(store.read('escape/keep.parquet')).rejects.toThrow(/leads out of the Delta table/);
    // A symlink at the final name is removed as a name; its target stays.
    await store.delete(['link.parquet', 'part-a.parquet', 'never-was.parquet']);

    expect(readFileSync(join(outside, 'keep.parquet'), 'utf8')).toBe('precious');
    expect(readFileSync(join(base, 'sibling.parquet'), 'utf8')).toBe('precious');
    expect(readdirSync(outside)).toEqual(['keep.parquet']);
    // The listing neither shows nor follows symlinks.
    expect((await store.list()).map((entry) => entry.path)).toEqual([]);
  });
});
