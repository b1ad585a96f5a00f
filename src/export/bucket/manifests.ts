import { MANIFEST_DIR, POINTER_MANIFESTS, runIdOfManifestPath } from '../layout.js';
import type { Manifest } from '../manifest.js';
import type { BucketObjects, StoredObject } from '../../bucket/objects.js';

export interface PublishedRun {
  runId: string;
  createdAt: string;
  /** The data files the run's manifest lists; null when the manifest could not be read or parsed. */
  files: string[] | null;
}

/** The runs the pointers (`manifests/latest.json` and the others) name; a pointer that is absent or unreadable names none. */
export async function pointedRunIds(bucket: BucketObjects): Promise<string[]> {
  const runIds: string[] = [];
  for (const pointer of POINTER_MANIFESTS) {
    const text = await bucket.readText(`${MANIFEST_DIR}/${pointer}`);
    try {
      const runId = text === null ? null : (JSON.parse(text) as Partial<Manifest>).runId;
      if (typeof runId === 'string') runIds.push(runId);
    } catch {
      // Unreadable: it names no run this retention could keep.
    }
  }
  return runIds;
}

/** Every run manifest among `objects`, read from the bucket, oldest first (creation time, then run id, as on disk). */
export async function readPublishedRuns(bucket: BucketObjects, objects: readonly StoredObject[]): Promise<PublishedRun[]> {
  const runs: PublishedRun[] = [];
  for (const object of objects) {
    const runId = runIdOfManifestPath(object.path);
    if (runId === null) continue;
    // Listed but not found (a listing that lags, or another export's retention): its files are not known, so they stay.
    const text = await bucket.readText(object.path);
    const manifest = text === null ? null : parseManifest(text);
    runs.push({ runId, createdAt: manifest?.createdAt ?? '', files: manifest?.files.map((file) => file.path) ?? null });
  }
  return runs.sort((a, b) => (a.createdAt === b.createdAt ? a.runId.localeCompare(b.runId) : a.createdAt.localeCompare(b.createdAt)));
}

function parseManifest(text: string): Pick<Manifest, 'createdAt' | 'files'> | null {
  try {
    const parsed = JSON.parse(text) as Partial<Manifest>;
    if (typeof parsed.createdAt !== 'string' || !Array.isArray(parsed.files) || !parsed.files.every((file) => typeof file?.path === 'string')) return null;
    return { createdAt: parsed.createdAt, files: parsed.files };
  } catch {
    return null;
  }
}
