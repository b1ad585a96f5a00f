import { createHash } from 'node:crypto';
import { plainHttpWarning, type Config } from '../../config.js';
import { BucketDeltaStore } from '../delta/bucketStore.js';
import type { Logger } from '../../log.js';
import { MANIFEST_DIR, parseDataFilePath, pointerOf, runIdTime } from '../layout.js';
import { manifestText, type Manifest, type ManifestFile } from '../manifest.js';
import { newerPublishedRun } from '../pointerOrder.js';
import { newestRuns } from '../retention.js';
import { EXPORT_TABLES } from '../schema.js';
import type { FileCopy } from '../writeTableFile.js';
import type { BucketPlace } from '../../bucket/place.js';
import { createBucketClient } from '../../bucket/client.js';
import { pointedRunIds, readPublishedRuns } from './manifests.js';
import { BucketObjects, type StoredObject } from '../../bucket/objects.js';
import { StreamingUpload } from '../../bucket/streamingUpload.js';

const HOUR_MS = 60 * 60 * 1000;
const MIB = 1024 * 1024;
/**
 * Unreferenced files of a run this mirror does not know (another machine's, or a mirror since
 * replaced) are removed only once the run is this old: no export takes a day, so such a run is dead.
 */
const UNKNOWN_RUN_GRACE_MS = 24 * HOUR_MS;

export interface LeftoverRuns {
  /** The run being exported now. */
  currentRunId: string;
  /** Runs this mirror recorded as failed or interrupted. */
  abandonedRunIds: ReadonlySet<string>;
  now: number;
}

export interface PublicationTotals {
  files: number;
  bytes: number;
}

/**
 * Publishes one export run to `s3://BUCKET/PREFIX` with the layout and manifest of the local export.
 * Object stores have no rename, so order gives the atomicity: every data file is uploaded and
 * confirmed first, then manifests/RUNID.json, then the pointer of the run's kind (manifests/latest.json
 * for a complete run). A run killed at any moment leaves the pointers on the previous runs; what it
 * uploaded is removed by a later export.
 */
export class BucketPublisher {
  private uploads: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;
  private readonly uploaded: string[] = [];
  private readonly started: StreamingUpload[] = [];
  /** Files enqueued whose upload is not finished yet. */
  private finishing = 0;
  readonly totals: PublicationTotals = { files: 0, bytes: 0 };

  private constructor(
    readonly objects: BucketObjects,
    private readonly partSizeBytes: number,
    private readonly logger: Logger,
  ) {}

  static create(settings: Readonly<Config['export']['s3']>, target: BucketPlace, logger: Logger): BucketPublisher {
    const child = logger.child({ target: target.url });
    const client = createBucketClient(settings);
    // endpointLabel is the custom endpoint's URL, or a name (AWS S3 itself, always https) that is no URL.
    const plain = plainHttpWarning(client.endpointLabel, 'The S3 endpoint');
    if (plain !== null) child.warn(plain);
    return new BucketPublisher(new BucketObjects(client, target, child), settings.partSizeMiB * MIB, child);
  }

  get url(): string {
    return this.objects.target.url;
  }

  /**
   * Removes data objects that no manifest references, of runs that failed or were killed, and aborts
   * their unfinished multipart uploads. Only keys of the layout are ever touched. Also the first
   * request of a run, so wrong credentials or a missing bucket stop it before any file is written.
   */
  async removeLeftovers(runs: LeftoverRuns): Promise<{ objects: number; uploads: number }> {
    const stored = await this.objects.list();
    // The listing proved the credentials and the bucket. A cleanup that fails after it costs only
    // storage until the next export tries again: it must not stop this export from publishing.
    try {
      return await this.removeUnreferenced(stored, runs);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not remove the leftovers of failed exports; the next export tries again');
      return { objects: 0, uploads: 0 };
    }
  }

  private async removeUnreferenced(stored: readonly StoredObject[], runs: LeftoverRuns): Promise<{ objects: number; uploads: number }> {
    const isDead = (runId: string): boolean =>
      runId !== runs.currentRunId && (runs.abandonedRunIds.has(runId) || runs.now - runIdTime(runId) > UNKNOWN_RUN_GRACE_MS);
    const published = await readPublishedRuns(this.objects, stored);
    const referenced = new Set(published.flatMap((run) => run.files ?? []));
    const listedRuns = new Set(published.map((run) => run.runId));
    const candidates = new Map<string, string[]>();
    for (const { path } of stored) {
      const layout = parseDataFilePath(path, EXPORT_TABLES);
      if (layout === null || referenced.has(path) || listedRuns.has(layout.runId) || !isDead(layout.runId)) continue;
      candidates.set(layout.runId, [...(candidates.get(layout.runId) ?? []), path]);
    }
    // A listing can come back short: a run's files go only when its manifest is certainly not there.
    const orphans: string[] = [];
    for (const [runId, paths] of candidates) {
      if ((await this.objects.head(`${MANIFEST_DIR}/${runId}.json`)) === null) orphans.push(...paths);
    }
    await this.objects.delete(orphans);
    const aborted = await this.abortUploads((runId) => isDead(runId));
    if (orphans.length + aborted > 0) this.logger.info({ objects: orphans.length, uploads: aborted }, `removed ${orphans.length} leftover object(s) and ${aborted} unfinished upload(s) of failed exports`);
    return { objects: orphans.length, uploads: aborted };
  }

  /** The Delta table of `table` under this target (PREFIX/delta/TABLE), on the publication's own client. */
  deltaStore(table: string): BucketDeltaStore {
    return BucketDeltaStore.create(this.objects.client, this.objects.target, table, this.logger, { partSizeBytes: this.partSizeBytes });
  }

  /** An upload of the file at `path` in the layout, fed with its bytes as the exporter writes them. */
  startFile(path: string, format: string, signal?: AbortSignal): StreamingUpload {
    const upload = new StreamingUpload(this.objects, path, format, this.partSizeBytes, signal);
    this.started.push(upload);
    return upload;
  }

  /** Finishes and confirms a written file's upload while the next file is written; one at a time, in order. */
  enqueue(upload: FileCopy, entry: ManifestFile): void {
    this.finishing += 1;
    this.uploads = this.uploads.then(async () => {
      if (this.failure !== null) {
        this.finishing -= 1;
        return upload.abort();
      }
      try {
        await upload.finish(entry);
        this.uploaded.push(entry.path);
        this.totals.files += 1;
        this.totals.bytes += entry.bytes;
        this.logger.debug({ path: entry.path, bytes: entry.bytes }, 'uploaded');
      } catch (error) {
        this.failure = { error };
        await upload.abort();
      } finally {
        this.finishing -= 1;
      }
    });
  }

  /** Throws the first upload failure, so the export stops writing files no one will publish. */
  throwIfFailed(): void {
    if (this.failure !== null) throw this.failure.error;
  }

  /**
   * Waits until at most `files` written files are still finishing their uploads: with a slow store,
   * the exporter then waits instead of holding the last part of file after file in memory.
   */
  async waitForRoom(files: number): Promise<void> {
    while (this.finishing > files) await this.uploads;
    this.throwIfFailed();
  }

  /** Waits for every enqueued upload; each was confirmed by HeadObject before this resolves. */
  async drain(): Promise<void> {
    await this.uploads;
    this.throwIfFailed();
  }

  /**
   * manifests/RUNID.json, then the pointer of its kind (latest.json, latest-partial.json or
   * latest-changes.json), once `drain` resolved: after this, loaders see the run. Returns the manifest's URL.
   */
  async putManifest(manifest: Manifest): Promise<string> {
    const body = Buffer.from(manifestText(manifest));
    const sha256 = createHash('sha256').update(body).digest('hex');
    const runPath = `${MANIFEST_DIR}/${manifest.runId}.json`;
    await this.objects.putBytes(runPath, body, sha256, { ContentType: 'application/json' });
    // Readers poll the pointers: no cache may serve them an older one.
    const pointer = pointerOf(manifest);
    let pointed = false;
    if (pointer !== null) {
      const pointerPath = `${MANIFEST_DIR}/${pointer}`;
      const newer = newerPublishedRun(await this.objects.readText(pointerPath), manifest, Date.now());
      if (newer !== null) {
        this.logger.warn({ runId: manifest.runId, newer }, `${pointer} already names run ${newer}, which began after this one: it stays; this run is at ${runPath}`);
      } else {
        await this.objects.putBytes(pointerPath, body, sha256, { ContentType: 'application/json', CacheControl: 'no-cache' });
        pointed = true;
      }
    }
    this.totals.bytes += body.byteLength * (pointed ? 2 : 1);
    return `${this.url}/${runPath}`;
  }

  /** Aborts this run's own unfinished uploads: a retried CreateMultipartUpload can leave one behind. */
  async finishRun(runId: string): Promise<void> {
    if (this.started.some((upload) => upload.multipart)) await this.abortUploads((uploadRunId) => uploadRunId === runId);
  }

  /** After a failure before the manifest: removes what this run uploaded (a later export would, too). */
  async discardRun(): Promise<void> {
    await this.uploads;
    await this.objects.delete(this.uploaded).catch((error: unknown) => this.logger.warn({ err: error }, 'could not remove the objects of the failed run; the next export removes them'));
  }

  /**
   * Keeps the newest `keep` runs, the current one and those the pointers name (latest.json's complete
   * run above all, however many partial runs or runs of changes came after it); deletes the older
   * runs' manifests in batches, then their files, never a file that a kept manifest lists. Manifests
   * go first, so no listed manifest ever names a deleted file; files an interruption leaves behind
   * are leftovers the next export removes. Returns the run ids removed.
   */
  async applyRetention(keep: number, currentRunId: string): Promise<string[]> {
    const runs = (await readPublishedRuns(this.objects, await this.objects.list())).filter((run) => run.files !== null);
    const kept = new Set([currentRunId, ...(await pointedRunIds(this.objects)), ...newestRuns(runs, keep)]);
    const expired = runs.filter((run) => !kept.has(run.runId));
    if (expired.length === 0) return [];
    const keptFiles = new Set(runs.filter((run) => kept.has(run.runId)).flatMap((run) => run.files ?? []));
    const files = expired.flatMap((run) => run.files ?? []).filter((path) => !keptFiles.has(path) && parseDataFilePath(path, EXPORT_TABLES) !== null);
    await this.objects.delete(expired.map((run) => `${MANIFEST_DIR}/${run.runId}.json`));
    await this.objects.delete(files);
    return expired.map((run) => run.runId);
  }

  private async abortUploads(matches: (runId: string) => boolean): Promise<number> {
    const open = await this.objects.openUploads();
    let aborted = 0;
    for (const upload of open ?? []) {
      const layout = parseDataFilePath(upload.path, EXPORT_TABLES);
      if (layout === null || !matches(layout.runId)) continue;
      await this.objects.abortUpload(upload);
      aborted += 1;
    }
    return aborted;
  }

  destroy(): void {
    this.objects.client.s3.destroy();
  }
}
