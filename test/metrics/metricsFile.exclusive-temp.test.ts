import { lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { writeMetricsFile } from '../../src/metrics/metricsFile.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { tempDir } from '../helpers/tempDir.js';

// The temporary name's random part is fixed here, so the link can be planted exactly where the write goes:
// an attacker who guessed the name (README: `.NAME.RANDOM.tmp`).
const GUESSED = vi.hoisted(() => '5eed5eed5eed5eed');
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, randomBytes: (size: number) => Buffer.from(GUESSED, 'hex').subarray(0, size) };
});

it('a symlink planted at the temporary name fails the write instead of redirecting it', async () => {
  const textfiles = tempDir('loyalty-textfile-');
  const elsewhere = tempDir('loyalty-victim-');
  const victim = join(elsewhere, 'mirror.db');
  writeFileSync(victim, 'the mirror, not metrics');
  const path = join(textfiles, 'loyalty_sync.prom');
  const planted = join(textfiles, `.loyalty_sync.prom.${GUESSED}.tmp`);
  symlinkSync(victim, planted);

  await expect(writeMetricsFile(path, createMetrics().registry)).rejects.toMatchObject({ code: 'EEXIST' });

  expect(readFileSync(victim, 'utf8')).toBe('the mirror, not metrics');
  // The link is not this run's to remove, and no metrics file came of the write.
  expect(readdirSync(textfiles)).toEqual([`.loyalty_sync.prom.${GUESSED}.tmp`]);
  expect(lstatSync(planted).isSymbolicLink()).toBe(true);
});
