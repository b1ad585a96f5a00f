import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
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

/**
 * Why `path` cannot take the metrics file, or null: checked before a run, so that a mistyped folder
 * is said at once (exit 2) rather than after the sync, the push and the export have run.
 */
export function metricsFileProblem(path: string): string | null {
  const folder = dirname(resolve(path));
  const stats = statOf(folder);
  if (stats === null) return `its folder ${folder} does not exist`;
  if (!stats.isDirectory()) return `${folder} is not a folder`;
  if (statOf(path)?.isDirectory() === true) return 'it is a folder';
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    return `its folder ${folder} may not be written by this user`;
  }
  return null;
}

function statOf(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
