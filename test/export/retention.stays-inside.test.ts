import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runExport } from '../../src/export/index.js';
import { captureLogger } from '../api/helpers.js';
import { exportConfig, tempDir } from './helpers.js';

const PLANTED = '20200101T000000Z-aaaa';

it('a planted manifest and symlinked folders make an export delete nothing outside its folder', async () => {
  const dir = tempDir();
  const config = exportConfig(dir, { retainRuns: 1, formats: ['csv'] });
  const db = openDatabase(config.db.path);
  const root = config.export.dir;
  const { logger, lines } = captureLogger('warn');
  const first = await runExport({ db, config, logger, tables: ['orders', 'customers'], now: new Date('2026-11-01T02:00:00Z') });

  // What lives beside the export folder: the mirror itself, a file, and a folder reached through symlinks.
  const outsideFile = join(dir, 'outside.txt');
  writeFileSync(outsideFile, 'keep me');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(join(elsewhere, 'dt=2020-01-01'), { recursive: true });
  const behindPartitionLink = join(elsewhere, `orders-${PLANTED}.csv`);
  writeFileSync(behindPartitionLink, 'keep me');
  symlinkSync(elsewhere, join(root, 'orders', 'dt=2020-01-01'));
  // A whole table folder that is a symlink, holding what looks like a dead writer's temporary file of an earlier version.
  const behindTableLink = join(elsewhere, 'dt=2020-01-01', '.tmp-999999-transactions-20200101T000000Z-ffff.csv');
  writeFileSync(behindTableLink, 'keep me');
  symlinkSync(elsewhere, join(root, 'transactions'));

  const keptRunFile = first.files.find((file) => file.table === 'customers')!.path.replace(first.runId, '20261101T020000Z-0000');
  writeFileSync(
    join(root, 'manifests', `${PLANTED}.json`),
    JSON.stringify({
      runId: PLANTED,
      createdAt: '2020-01-01T00:00:00.000Z',
      files: [
        { path: '../mirror.db' },
        { path: '../outside.txt' },
        { path: outsideFile },
        { path: `orders/../../outside.txt` },
        { path: `orders/dt=2020-01-01/orders-${PLANTED}.csv` },
        { path: keptRunFile },
        null,
      ],
    }),
  );
  writeFileSync(join(root, keptRunFile), 'another run');

  const second = await runExport({ db, config, logger, tables: ['orders', 'customers'], now: new Date('2026-11-02T02:00:00Z') });

  expect(readFileSync(outsideFile, 'utf8')).toBe('keep me');
  expect(readFileSync(behindPartitionLink, 'utf8')).toBe('keep me');
  expect(readFileSync(behindTableLink, 'utf8')).toBe('keep me');
  expect(existsSync(join(root, keptRunFile))).toBe(true);
  expect(db.prepare('SELECT count(*) FROM export_runs').pluck().get()).toBe(2);
  // Retention itself still works: the first run went, the planted manifest with it, the second stays.
  for (const file of first.files) expect(existsSync(join(root, file.path))).toBe(false);
  for (const file of second.files) expect(existsSync(join(root, file.path))).toBe(true);
  expect(existsSync(join(root, 'manifests', `${PLANTED}.json`))).toBe(false);
  const warnings = lines.join('\n');
  expect(warnings).toContain('retention skipped \\"../mirror.db\\"');
  expect(warnings).toContain('leads out of the export folder');
  db.close();
});
