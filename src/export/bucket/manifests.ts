import { LATEST_MANIFEST, MANIFEST_DIR, runIdOfManifestPath } from '../layout.js';
import type { Manifest } from '../manifest.js';
import type { BucketObjects, StoredObject } from './objects.js';

export interface PublishedRun {
  runId: string;
  createdAt: string;
  /** The data files the run's manifest lists; null when the manifest could not be read or parsed. */
  files: string[] | null;
}

/** The run `manifests/latest.json` names, or null when there is none or it cannot be read. */
export async function latestRunId(bucket: BucketObjects): Promise<string | null> {
  const text = await bucket.readText(`${MANIFEST_DIR}/${LATEST_MANIFEST}`);
  try {
    const runId = text === null ? null : (JSON.parse(text) as Partial<Manifest>).runId;
    return typeof runId === 'string' ? runId : null;
  } catch {
    return null;
  }
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
