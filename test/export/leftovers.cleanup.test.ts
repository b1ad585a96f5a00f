import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeLeftovers } from '../../src/export/leftovers.js';
import { tempDir } from './helpers.js';

describe('removeLeftovers', () => {
  it('removes dead writers\' temporary files and the final-named files of abandoned runs, and nothing else', async () => {
    const root = tempDir();
    const partition = join(root, 'orders', 'dt=2026-11-22');
    mkdirSync(partition, { recursive: true });
    mkdirSync(join(root, 'manifests'));
    const DEAD = 999_999;
    const LIVE = 424_242;
    const files = {
      deadTmp: join(partition, `.tmp-${DEAD}-orders-20261122T200000Z-aaaa.csv`),
      liveTmp: join(partition, `.tmp-${LIVE}-orders-20261122T200000Z-bbbb.csv`),
      orphan: join(partition, 'orders-20261122T200000Z-cccc.parquet'),
      unknownRun: join(partition, 'orders-20261122T200000Z-dddd.parquet'),
      complete: join(partition, 'orders-20261122T190000Z-eeee.csv'),
      unrelated: join(partition, 'notes.txt'),
      deadManifestTmp: join(root, 'manifests', `.tmp-${DEAD}-20261122T200000Z-aaaa.json`),
    };
    for (const path of Object.values(files)) writeFileSync(path, 'x');
    writeFileSync(join(root, 'manifests', '20261122T190000Z-eeee.json'), '{}');

    const removed = await removeLeftovers(root, { tables: ['orders'], abandonedRunIds: new Set(['20261122T200000Z-cccc', '20261122T190000Z-eeee']), isAlive: (pid) => pid === LIVE });

    expect(removed.sort()).toEqual(
      [files.deadTmp, files.orphan, files.deadManifestTmp].map((path) => path.slice(root.length + 1)).sort(),
    );
    for (const kept of [files.liveTmp, files.unknownRun, files.complete, files.unrelated]) expect(existsSync(kept)).toBe(true);
  });
});
