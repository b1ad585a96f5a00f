import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { list, removeIfEmpty } from './leftovers.js';
import { MANIFEST_DIR, POINTER_MANIFESTS, RUN_ID_PATTERN } from './layout.js';
import { readManifest } from './manifest.js';

/**
 * Keeps the newest `keep` runs (by manifest creation time, then run id) and removes older runs'
 * files and manifests. The current run is always kept, so the newest can never be removed, and so is
 * every run a pointer names (latest.json's complete run above all, however many partial runs or runs
 * of changes came after it). Returns the run ids removed.
 */
export async function applyRetention(root: string, keep: number, currentRunId: string): Promise<string[]> {
  const runs = [];
  for (const name of await list(join(root, MANIFEST_DIR))) {
    const runId = name.replace(/\.json$/, '');
    if (!RUN_ID_PATTERN.test(runId) || !name.endsWith('.json')) continue;
    // A manifest that cannot be read is left alone rather than guessed at.
    const manifest = await readManifest(join(root, MANIFEST_DIR, name)).catch(() => null);
    if (manifest === null) continue;
    runs.push({ runId, createdAt: manifest.createdAt, files: manifest.files.map((file) => file.path) });
  }
  runs.sort((a, b) => (a.createdAt === b.createdAt ? a.runId.localeCompare(b.runId) : a.createdAt.localeCompare(b.createdAt)));
  const kept = new Set([currentRunId, ...(await pointedRunIds(root)), ...runs.slice(-keep).map((run) => run.runId)]);
  const removed: string[] = [];
  for (const run of runs) {
    if (kept.has(run.runId)) continue;
    for (const file of run.files) {
      await rm(join(root, file), { force: true });
      await removeIfEmpty(dirname(join(root, file)));
    }
    // The manifest goes last: if this is interrupted, the next export still knows the remaining files.
    await rm(join(root, MANIFEST_DIR, `${run.runId}.json`), { force: true });
    removed.push(run.runId);
  }
  return removed;
}

/** The runs the pointer files name; a pointer that cannot be read names none. */
async function pointedRunIds(root: string): Promise<string[]> {
  const runIds: string[] = [];
  for (const pointer of POINTER_MANIFESTS) {
    const manifest = await readManifest(join(root, MANIFEST_DIR, pointer)).catch(() => null);
    if (typeof manifest?.runId === 'string') runIds.push(manifest.runId);
  }
  return runIds;
}
