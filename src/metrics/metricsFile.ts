import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Registry } from 'prom-client';

/**
 * Writes the registry's exposition to `path` for node_exporter's textfile collector: first to a
 * temporary file beside it, then renamed over `path`, so a reader sees the previous file or the new
 * one, never a part. The temporary name is hidden, random and does not end in `.prom` (the collector
 * never reads it), and the file is created exclusively (`wx`, O_EXCL): whatever already sits at that
 * name, a symlink planted in a shared folder included, makes the write fail instead of being followed.
 */
export async function writeMetricsFile(path: string, registry: Registry): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  const text = await registry.metrics();
  try {
    await writeFile(temporary, text, { mode: 0o644, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    // What already held the name (EEXIST) is not this run's to remove; a half-written file is.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await rm(temporary, { force: true });
    throw error;
  }
}
