import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { writeMetricsFile } from '../../src/metrics/metricsFile.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { tempDir } from '../helpers/tempDir.js';

it('a symlink planted at a predictable temporary name does not redirect the write', async () => {
  const textfiles = tempDir('loyalty-textfile-');
  const elsewhere = tempDir('loyalty-victim-');
  const victim = join(elsewhere, 'mirror.db');
  writeFileSync(victim, 'the mirror, not metrics');
  const path = join(textfiles, 'loyalty_sync.prom');
  // The name the metrics file used to be written through: PATH.PID.tmp.
  symlinkSync(victim, `${path}.${process.pid}.tmp`);

  await writeMetricsFile(path, createMetrics().registry);

  expect(readFileSync(victim, 'utf8')).toBe('the mirror, not metrics');
  expect(readFileSync(path, 'utf8')).toContain('# TYPE loyalty_');
  // Nothing of the write is left beside the file but the planted link.
  expect(readdirSync(textfiles).sort()).toEqual(['loyalty_sync.prom', `loyalty_sync.prom.${process.pid}.tmp`]);
});
