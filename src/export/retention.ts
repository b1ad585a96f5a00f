import type { Logger } from '../log.js';
import type { ExportFolder } from './insideExportFolder.js';
import { MANIFEST_DIR, parseDataFilePath, POINTER_MANIFESTS, RUN_ID_PATTERN } from './layout.js';
import { readManifest } from './manifest.js';
import { EXPORT_TABLES } from './schema.js';

/**
 * Keeps the newest `keep` runs (by manifest creation time, then run id) and removes older runs' files
 * and manifests. The current run is always kept, so the newest can never be removed, and so is every run
 * a pointer names (latest.json's complete run above all, however many partial runs or runs of changes
 * came after it). A manifest may have been planted (a shared volume), so only what the layout names a
 * data file of that manifest's own run is removed (the rule the bucket side applies to keys); anything
 * else it lists is skipped with a warning. Returns the run ids removed.
 */
export async function applyRetention(folder: ExportFolder, keep: number, currentRunId: string, logger: Logger): Promise<string[]> {
  const runs = [];
  for (const name of await folder.list(MANIFEST_DIR)) {
    const runId = name.replace(/\.json$/, '');
    if (!RUN_ID_PATTERN.test(runId) || !name.endsWith('.json')) continue;
    // A manifest that cannot be read is left alone rather than guessed at.
    const manifest = await readManifest(`${folder.root}/${MANIFEST_DIR}/${name}`).catch(() => null);
    if (manifest === null || !Array.isArray(manifest.files)) continue;
    runs.push({ runId, createdAt: String(manifest.createdAt), files: (manifest.files as unknown[]).map(pathOf) });
  }
  runs.sort((a, b) => (a.createdAt === b.createdAt ? a.runId.localeCompare(b.runId) : a.createdAt.localeCompare(b.createdAt)));
  const kept = new Set([currentRunId, ...(await pointedRunIds(folder)), ...newestRuns(runs, keep)]);
  const removed: string[] = [];
  for (const run of runs) {
    if (kept.has(run.runId)) continue;
    for (const path of run.files) {
      const layout = typeof path === 'string' ? parseDataFilePath(path, EXPORT_TABLES) : null;
      if (typeof path !== 'string' || layout === null || layout.runId !== run.runId) {
        logger.warn({ manifest: `${MANIFEST_DIR}/${run.runId}.json`, path }, `retention skipped ${JSON.stringify(path)} listed in ${MANIFEST_DIR}/${run.runId}.json: it is not a data file of that run in the export layout`);
        continue;
      }
      if (await folder.remove(path)) await folder.removeIfEmpty(path.slice(0, path.lastIndexOf('/')));
    }
    // The manifest goes last: if this is interrupted, the next export still knows the remaining files.
    await folder.remove(`${MANIFEST_DIR}/${run.runId}.json`);
    removed.push(run.runId);
  }
  return removed;
}

/**
 * The newest `keep` runs, and the newest `keep` runs that wrote snapshot files: runs of Delta tables
 * alone (no files) expire with the others but never push a snapshot run out, so an hourly Delta export
 * beside a daily snapshot still leaves `keep` days of snapshots.
 */
export function newestRuns(runs: ReadonlyArray<{ runId: string; files: readonly unknown[] | null }>, keep: number): string[] {
  const withFiles = runs.filter((run) => run.files === null || run.files.length > 0);
  return [...runs.slice(-keep), ...withFiles.slice(-keep)].map((run) => run.runId);
}

/** The runs the pointer files name; a pointer that cannot be read names none. */
async function pointedRunIds(folder: ExportFolder): Promise<string[]> {
  const runIds: string[] = [];
  for (const pointer of POINTER_MANIFESTS) {
    const manifest = await readManifest(`${folder.root}/${MANIFEST_DIR}/${pointer}`).catch(() => null);
    if (typeof manifest?.runId === 'string') runIds.push(manifest.runId);
  }
  return runIds;
}

/** A manifest entry's path, whatever the entry holds. */
function pathOf(entry: unknown): unknown {
  return typeof entry === 'object' && entry !== null ? (entry as { path?: unknown }).path : entry;
}
