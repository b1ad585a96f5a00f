import { createHash, type Hash } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { BucketClient } from '../../bucket/client.js';
import { createOnlyWritesAt, putCreateOnly, type CreateOnlyWrites } from '../../bucket/createOnlyWrites.js';
import { BucketObjects, type StoredObject } from '../../bucket/objects.js';
import { StreamingUpload } from '../../bucket/streamingUpload.js';
import type { BucketPlace } from '../../bucket/place.js';
import type { DataFileSink, DeltaStore, StoredEntry } from './store.js';

const LOG_DIR = '_delta_log/';

const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  parquet: 'application/vnd.apache.parquet',
};

/** Why commits take the checked plain PUT, by what the probe found; said once per place, not per table or commit. */
const CHECKED_PUT_WARNINGS: Record<Exclude<CreateOnlyWrites, 'enforced'>, string> = {
  refused:
    "the object store does not support put-if-absent (If-None-Match: * on PutObject): Delta commits are checked first and then written with a plain PUT, so two writers on different machines could race; one mirror's exports are still serialised by its writer lock",
  ignored:
    "the object store accepts If-None-Match: * on PutObject but ignores it (a second create-only PUT of one key overwrote it): Delta commits are checked first and then written with a plain PUT, so two writers on different machines could race; one mirror's exports are still serialised by its writer lock",
};

export interface BucketDeltaStoreOptions {
  /** Size of each part of a data file's multipart upload (config `export.s3.partSizeMiB` in bytes). */
  partSizeBytes: number;
}

/**
 * A Delta table at `PREFIX/delta/TABLE/` of an export target in an S3-compatible bucket. Every request
 * goes through a BucketObjects whose prefix is the table root, so no key outside it is ever read,
 * written or deleted; paths in and out are relative to that root.
 */
export class BucketDeltaStore implements DeltaStore {
  readonly location: string;

  private constructor(
    private readonly objects: BucketObjects,
    /** The export target the table lives under: the place whose create-only writes are probed once for all its tables. */
    private readonly place: BucketObjects,
    private readonly partSizeBytes: number,
    private readonly logger: Logger,
  ) {
    this.location = objects.target.url;
  }

  /**
   * The store of `table` at `target`. Pass the client every table of the export shares (for instance
   * the publisher's `objects.client`, or one `createBucketClient(config.export.s3)`).
   */
  static create(client: BucketClient, target: BucketPlace, table: string, logger: Logger, options: BucketDeltaStoreOptions): BucketDeltaStore {
    if (!/^[A-Za-z0-9_-]+$/.test(table)) throw new Error(`A Delta table name must be letters, digits, "_" or "-"; got "${table}".`);
    const root: BucketPlace = { bucket: target.bucket, prefix: `${target.prefix}/delta/${table}`, url: `${target.url}/delta/${table}` };
    const child = logger.child({ delta: root.url });
    return new BucketDeltaStore(new BucketObjects(client, root, child), new BucketObjects(client, target, logger), options.partSizeBytes, child);
  }

  async list(): Promise<StoredEntry[]> {
    return (await this.objects.list()).map(entryOf);
  }

  async listLog(): Promise<StoredEntry[]> {
    return (await this.objects.list(LOG_DIR)).map(entryOf);
  }

  async read(path: string): Promise<Buffer | null> {
    return this.objects.readBytes(checkPath(path));
  }

  /**
   * `PutObject` with `If-None-Match: *` where the place enforces it (createOnlyWrites.ts probes each
   * place once, before its first commit). How each answer is read:
   * - 200: this call created the object.
   * - 412 PreconditionFailed: an object is there. That is not always another writer's: when the store
   *   applied our PUT but the connection dropped before its answer, the SDK sends the PUT again and
   *   that retry meets our own object. So the object is read back: if it holds exactly our bytes, it
   *   is our commit (true); otherwise the race is lost (false). No two writers write the same bytes:
   *   a commit carries its run id and timestamp in commitInfo.
   * - 409 ConditionalRequestConflict: another conditional write to this key was in flight; tried again.
   * A place that refuses the header (Swift before 2.36, some gateways) or accepts and ignores it (s3rver)
   * gets `putUnconditionally` instead, with one warning per place.
   */
  async putIfAbsent(path: string, body: Buffer): Promise<boolean> {
    checkPath(path);
    const writes = await createOnlyWritesAt(this.place, (found) => {
      if (found !== 'enforced') this.warnCheckedPut(found);
    });
    if (writes !== 'enforced') return this.putUnconditionally(path, body);
    const answer = await putCreateOnly(this.objects, path, body, contentType(path));
    if (answer === 'refused') {
      // A gateway that took the probe's header but refuses this PUT's: the checked PUT, as for a store without it.
      this.warnCheckedPut('refused');
      return this.putUnconditionally(path, body);
    }
    return answer === 'created' || this.holds(path, body);
  }

  private warnCheckedPut(writes: Exclude<CreateOnlyWrites, 'enforced'>): void {
    this.logger.warn({ bucket: this.place.target.bucket, endpoint: this.place.client.endpointLabel }, CHECKED_PUT_WARNINGS[writes]);
  }

  async put(path: string, body: Buffer): Promise<void> {
    await this.objects.putBytes(checkPath(path), body, sha256Hex(body), { ContentType: contentType(path) });
  }

  async createDataFile(path: string, signal?: AbortSignal): Promise<DataFileSink> {
    return new UploadedDataFile(this.objects, new StreamingUpload(this.objects, checkPath(path), 'parquet', this.partSizeBytes, signal));
  }

  async delete(paths: readonly string[]): Promise<void> {
    await this.objects.delete(paths.map(checkPath));
  }

  /**
   * Aborts the multipart uploads under the table root begun before `beforeMs`: the data files of runs
   * killed mid-upload, whose parts the store keeps (and bills) but never lists as objects. Outside this
   * interface, since a folder on disk has no such thing. Returns how many were aborted; 0 when the store
   * does not list uploads (BucketObjects warns then).
   */
  async abortUploadsBegunBefore(beforeMs: number): Promise<number> {
    const stale = ((await this.objects.openUploads()) ?? []).filter((upload) => upload.initiatedMs > 0 && upload.initiatedMs < beforeMs);
    for (const upload of stale) await this.objects.abortUpload(upload);
    return stale.length;
  }

  /**
   * Put-if-absent on a store without conditional writes: a read, then a plain PUT. An object already
   * there counts as ours only when it holds our bytes, as after a 412. Between the read and the PUT
   * another machine's writer could put the same key; only the writer lock keeps that from happening.
   * A PUT whose answer is lost is retried by the SDK and writes the same bytes again.
   */
  private async putUnconditionally(path: string, body: Buffer): Promise<boolean> {
    const there = await this.objects.readBytes(path);
    if (there !== null) return there.equals(body);
    await this.objects.putBytes(path, body, sha256Hex(body), { ContentType: contentType(path) });
    return true;
  }

  /** Whether the object at `path` holds exactly `body`. */
  private async holds(path: string, body: Buffer): Promise<boolean> {
    const there = await this.objects.readBytes(path);
    return there !== null && there.equals(body);
  }
}

/**
 * A data file streamed to a multipart upload as the encoder writes it (no local copy), hashed on the
 * way. Small files go up as one PUT on `finish`; an aborted one leaves no object and no open upload.
 */
class UploadedDataFile implements DataFileSink {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private finishing = false;

  constructor(
    private readonly objects: BucketObjects,
    private readonly upload: StreamingUpload,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
    await this.upload.write(chunk);
  }

  async finish(): Promise<{ bytes: number; sha256: string }> {
    const file = { bytes: this.bytes, sha256: this.hash.digest('hex') };
    this.finishing = true;
    await this.upload.finish(file);
    return file;
  }

  async abort(): Promise<void> {
    await this.upload.abort().catch(() => undefined);
    // A finish that failed after the object landed (its confirmation did not match) leaves it stored.
    if (this.finishing) await this.objects.delete([this.upload.path]).catch(() => undefined);
  }
}

/**
 * A path relative to the table root: no leading slash, no empty, "." or ".." segment, no backslash,
 * so that the key it makes stays under the root. Anything else is a bug in the caller.
 */
function checkPath(path: string): string {
  const segments = path.split('/');
  if (path === '' || path.includes('\\') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`A Delta store path must be relative to the table root, without empty, "." or ".." segments; got "${path}".`);
  }
  return path;
}

function entryOf(object: StoredObject): StoredEntry {
  return { path: object.path, size: object.size, modifiedMs: object.modifiedMs };
}

function contentType(path: string): string {
  if (path.endsWith('/_last_checkpoint')) return CONTENT_TYPES.json;
  return CONTENT_TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
