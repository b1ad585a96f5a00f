import { MANIFEST_DIR, pidOfLegacyTmpFile, runIdOfDataFile, runIdOfTmpFile } from './layout.js';
import type { ExportFolder } from './insideExportFolder.js';

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
  /** The run now starting: its files are never leftovers. */
  currentRunId: string;
  /** Runs recorded as failed or interrupted: any of their files that reached a final name are removed. */
  abandonedRunIds: ReadonlySet<string>;
  /** Whether another live process is still running that export (runLock.ts). */
  isRunLive: (runId: string) => boolean;
  /** For the temporary files of earlier versions, which carry a pid instead of a run id. */
  isAlive: (pid: number) => boolean;
}

/**
 * Removes what a killed or failed export left behind: temporary files of runs that no live process
 * holds, and data files renamed into place by a run that died before writing its manifest. A data file
 * is removed only when its run is recorded as failed or interrupted and has no manifest; files of runs
 * the mirror does not know are never touched, and nothing is removed through a folder that leads out of
 * the export folder. Returns the relative paths removed.
 */
export async function removeLeftovers(folder: ExportFolder, options: LeftoverOptions): Promise<string[]> {
  const isDeadTmp = (name: string): boolean => {
    const runId = runIdOfTmpFile(name);
    if (runId !== null) return runId !== options.currentRunId && !options.isRunLive(runId);
    // This version writes no pid-named files, so one carrying this process's pid is a predecessor's (pid 1 in a container).
    const pid = pidOfLegacyTmpFile(name);
    return pid !== null && (pid === process.pid || !options.isAlive(pid));
  };
  const manifestNames = await folder.list(MANIFEST_DIR);
  const manifests = new Set(manifestNames.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)));
  const removed: string[] = [];
  const removeEach = async (relativeFolder: string, names: readonly string[]): Promise<void> => {
    for (const name of names) if (await folder.remove(`${relativeFolder}/${name}`)) removed.push(`${relativeFolder}/${name}`);
  };

  await removeEach(MANIFEST_DIR, manifestNames.filter(isDeadTmp));
  for (const table of options.tables) {
    for (const partition of (await folder.list(table)).filter((name) => name.startsWith('dt='))) {
      const relative = `${table}/${partition}`;
      const leftovers = (await folder.list(relative)).filter((name) => {
        const runId = runIdOfDataFile(table, name);
        return isDeadTmp(name) || (runId !== null && options.abandonedRunIds.has(runId) && !manifests.has(runId));
      });
      await removeEach(relative, leftovers);
      await folder.removeIfEmpty(relative);
    }
  }
  return removed;
}
