import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_DIR, pidOfTmpFile, runIdOfDataFile } from './layout.js';

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LeftoverOptions {
  tables: readonly string[];
  /** Runs recorded as failed or interrupted: any of their files that reached a final name are removed. */
  abandonedRunIds: ReadonlySet<string>;
  isAlive: (pid: number) => boolean;
}

/**
 * Removes what a killed or failed export left behind: `.tmp-` files of processes that are gone, and
 * data files renamed into place by a run that died before writing its manifest. A file is removed
 * only when its run is recorded as failed or interrupted and has no manifest; files of runs the
 * mirror does not know are never touched. Returns the relative paths removed.
 */
export async function removeLeftovers(root: string, options: LeftoverOptions): Promise<string[]> {
  const removed: string[] = [];
  const manifests = new Set((await list(join(root, MANIFEST_DIR))).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)));
  const isDeadTmp = (name: string): boolean => {
    const pid = pidOfTmpFile(name);
    return pid !== null && pid !== process.pid && !options.isAlive(pid);
  };

  for (const name of await list(join(root, MANIFEST_DIR))) {
    if (isDeadTmp(name)) {
      await rm(join(root, MANIFEST_DIR, name), { force: true });
      removed.push(`${MANIFEST_DIR}/${name}`);
    }
  }
  for (const table of options.tables) {
    for (const partition of (await list(join(root, table))).filter((name) => name.startsWith('dt='))) {
      const folder = join(root, table, partition);
      for (const name of await list(folder)) {
        const runId = runIdOfDataFile(table, name);
        const orphan = runId !== null && options.abandonedRunIds.has(runId) && !manifests.has(runId);
        if (isDeadTmp(name) || orphan) {
          await rm(join(folder, name), { force: true });
          removed.push(`${table}/${partition}/${name}`);
        }
      }
      await removeIfEmpty(folder);
    }
  }
  return removed;
}

export async function list(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function removeIfEmpty(folder: string): Promise<void> {
  try {
    await rmdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw error;
  }
}
