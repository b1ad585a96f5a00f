import { createHash, type Hash } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { BucketClient } from '../bucket/client.js';
import { BucketError, isNotImplemented } from '../bucket/errors.js';
import { BucketObjects, type StoredObject } from '../bucket/objects.js';
import { StreamingUpload } from '../bucket/streamingUpload.js';
import { withTries } from '../bucket/tries.js';
import type { ExportTarget } from '../target.js';
import type { DataFileSink, DeltaStore, StoredEntry } from './store.js';

const LOG_DIR = '_delta_log/';
/** Tries of a conditional PUT the store answered 409 ConditionalRequestConflict (another conditional write to the key was in flight). */
const CONFLICT_TRIES = 5;

const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  parquet: 'application/vnd.apache.parquet',
};

/** What one store client has shown about conditional writes; shared by the tables that use the client. */
interface ConditionalWrites {
  supported: boolean;
}

/**
 * Per client, not per table: the five tables of an export share one client, and the warning that the
 * store ignores `If-None-Match` is said once per client, not once per table or per commit.
 */
const conditionalWrites = new WeakMap<BucketClient, ConditionalWrites>();

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
    private readonly partSizeBytes: number,
    private readonly logger: Logger,
  ) {
    this.location = objects.target.url;
  }

  /**
   * The store of `table` at `target`. Pass the client every table of the export shares (for instance
   * the publisher's `objects.client`, or one `createBucketClient(config.export.s3)`).
   */
  static create(client: BucketClient, target: ExportTarget, table: string, logger: Logger, options: BucketDeltaStoreOptions): BucketDeltaStore {
    if (!/^[A-Za-z0-9_-]+$/.test(table)) throw new Error(`A Delta table name must be letters, digits, "_" or "-"; got "${table}".`);
    const root: ExportTarget = { bucket: target.bucket, prefix: `${target.prefix}/delta/${table}`, url: `${target.url}/delta/${table}` };
    const child = logger.child({ delta: root.url });
    return new BucketDeltaStore(new BucketObjects(client, root, child), options.partSizeBytes, child);
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
   * `PutObject` with `If-None-Match: *`. How each answer is read:
   * - 200: this call created the object.
   * - 412 PreconditionFailed: an object is there. That is not always another writer's: when the store
   *   applied our PUT but the connection dropped before its answer, the SDK sends the PUT again and
   *   that retry meets our own object. So the object is read back: if it holds exactly our bytes, it
   *   is our commit (true); otherwise the race is lost (false). No two writers write the same bytes:
   *   a commit carries its run id and timestamp in commitInfo. (The SDK's attempt count is not used:
   *   our own 409 retries below resend too, and the read costs a request only when a race happened.)
   * - 409 ConditionalRequestConflict: another conditional write to this key was in flight; tried again.
   * - 501 NotImplemented (Swift before 2.36, some gateways): the store does not support conditional
   *   writes. One warning per client, then every later call goes straight to `putUnconditionally`.
   */
  async putIfAbsent(path: string, body: Buffer): Promise<boolean> {
    checkPath(path);
    const support = conditionalWrites.get(this.objects.client) ?? { supported: true };
    conditionalWrites.set(this.objects.client, support);
    if (!support.supported) return this.putUnconditionally(path, body);
    try {
      await withTries(
        CONFLICT_TRIES,
        (error) => isConflict(sdkError(error)),
        () => this.objects.putBytes(path, body, sha256Hex(body), { ContentType: contentType(path), IfNoneMatch: '*' }),
      );
      return true;
    } catch (error) {
      const cause = sdkError(error);
      if (isPreconditionFailed(cause)) return this.holds(path, body);
      if (!ignoresConditions(cause)) throw error;
      if (support.supported) {
        support.supported = false;
        this.logger.warn(
          { bucket: this.objects.target.bucket, endpoint: this.objects.client.endpointLabel },
          'the object store does not support put-if-absent (If-None-Match: * on PutObject): Delta commits are checked first and then written with a plain PUT, so two writers on different machines could race; one mirror\'s exports are still serialised by its writer lock',
        );
      }
      return this.putUnconditionally(path, body);
    }
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

/** BucketObjects wraps the SDK's error in a sentence; the answer's name and status are on its cause. */
function sdkError(error: unknown): unknown {
  return error instanceof BucketError ? error.cause : error;
}

interface AnswerFields {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

function answer(error: unknown): AnswerFields {
  return typeof error === 'object' && error !== null ? (error as AnswerFields) : {};
}

function isPreconditionFailed(error: unknown): boolean {
  const { name, $metadata } = answer(error);
  return name === 'PreconditionFailed' || $metadata?.httpStatusCode === 412;
}

function isConflict(error: unknown): boolean {
  const { name, $metadata } = answer(error);
  return name === 'ConditionalRequestConflict' || $metadata?.httpStatusCode === 409;
}

/**
 * Whether the store refused the PUT because it does not implement conditional writes: 501, or a 400
 * whose message names the condition (stores differ in the code they give).
 */
function ignoresConditions(error: unknown): boolean {
  if (isNotImplemented(error)) return true;
  const { message, $metadata } = answer(error);
  return $metadata?.httpStatusCode === 400 && /if-none-match|conditional/i.test(message ?? '');
}
