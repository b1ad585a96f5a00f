import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import type { Logger } from '../log.js';
import { type HashedFile, writeHashedFile } from '../writeHashedFile.js';
import type { BucketPlace } from './place.js';
import type { BucketClient } from './client.js';
import { BucketError, describeBucketError, isNotFound, isNotImplemented } from './errors.js';
import { withTries } from './tries.js';

/** DeleteObjects takes at most this many keys (S3 API reference, DeleteObjects). */
const DELETE_BATCH = 1000;
/** Listing pages in a row that add no object before a listing is taken as ended. */
const MAX_IDLE_PAGES = 3;
/** Tries of what the SDK does not retry itself (a body cut off mid-stream, per-key delete errors). */
const TRIES = 4;
/** Per-key DeleteObjects errors that a later try can clear (S3 error codes). */
const PASSING_DELETE_ERRORS = new Set(['InternalError', 'SlowDown', 'ServiceUnavailable', 'RequestTimeout', 'OperationAborted']);

export interface StoredObject {
  /** Relative to the target's prefix, with forward slashes: the layout's own paths. */
  path: string;
  size: number;
  /** When the store last wrote the object, in milliseconds since the epoch; 0 when the listing does not say. */
  modifiedMs: number;
  /** The store's tag of the object's bytes (its ETag, without quotes); absent when the store gives none. */
  etag?: string;
}

export interface OpenUpload {
  path: string;
  uploadId: string;
  /** When the upload was begun, in milliseconds since the epoch; 0 when the store does not say. */
  initiatedMs: number;
}

/**
 * The requests publication makes, each under the target's prefix, each turning a failure into one
 * sentence that names the operation and the bucket. Paths in and out are relative to the prefix.
 */
export class BucketObjects {
  constructor(
    readonly client: BucketClient,
    readonly target: BucketPlace,
    private readonly logger: Logger,
  ) {}

  key(path: string): string {
    return `${this.target.prefix}/${path}`;
  }

  async call<T>(operation: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(operation, error);
    }
  }

  /** The error to throw for a failed request: one sentence naming the operation and the bucket. */
  failure(operation: string, error: unknown): unknown {
    if (error instanceof BucketError || (error instanceof Error && error.name === 'AbortError')) return error;
    return new BucketError(describeBucketError(operation, this.target.bucket, this.client.endpointLabel, error), { cause: error });
  }

  /**
   * Every object under the prefix, listed flat: some stores drop deep common prefixes from delimiter
   * listings. A listing can still come back short (a store that pages badly); what deletes on its
   * strength asks for positive evidence first. `under` (a folder relative to the prefix, ending with
   * a slash) narrows the listing to that folder; paths stay relative to the prefix.
   */
  async list(under = ''): Promise<StoredObject[]> {
    const found = new Map<string, StoredObject>();
    const base = `${this.target.prefix}/`;
    const listed = `${base}${under}`;
    const seenTokens = new Set<string>();
    let token: string | undefined;
    let startAfter: string | undefined;
    let idlePages = 0;
    for (;;) {
      const page = await this.call('ListObjectsV2', () =>
        this.client.s3.send(new ListObjectsV2Command({ Bucket: this.target.bucket, Prefix: listed, ContinuationToken: token, StartAfter: startAfter })),
      );
      const contents = page.Contents ?? [];
      const before = found.size;
      for (const object of contents) {
        if (object.Key?.startsWith(listed)) found.set(object.Key, { path: object.Key.slice(base.length), size: object.Size ?? 0, modifiedMs: object.LastModified?.getTime() ?? 0, ...entityTag(object.ETag) });
      }
      if (!page.IsTruncated) return [...found.values()];
      // A store that goes on handing out new tokens for pages with nothing new would page for ever.
      idlePages = found.size === before ? idlePages + 1 : 0;
      if (idlePages >= MAX_IDLE_PAGES) {
        this.logger.warn({ bucket: this.target.bucket }, 'the object store kept listing pages with no new object; what it did not list is left alone');
        return [...found.values()];
      }
      // A store that truncates without a continuation token is paged by the last key seen instead;
      // one that hands out a token it already gave has nothing new to say.
      const next = page.NextContinuationToken;
      const lastKey = contents.at(-1)?.Key;
      if (next && !seenTokens.has(next)) {
        seenTokens.add(next);
        token = next;
        startAfter = undefined;
      } else if (lastKey !== undefined && lastKey !== startAfter) {
        token = undefined;
        startAfter = lastKey;
      } else {
        this.logger.warn({ bucket: this.target.bucket }, 'the object store ended a listing without saying where to go on; what it did not list is left alone');
        return [...found.values()];
      }
    }
  }

  /** The object's text, or null when it is gone (another export's retention may remove a manifest meanwhile). */
  async readText(path: string): Promise<string | null> {
    return (await this.readBytes(path))?.toString('utf8') ?? null;
  }

  /**
   * The object's bytes, or null when there is none. The SDK retries until the headers come; a body cut
   * off after them is read again here.
   */
  readBytes(path: string): Promise<Buffer | null> {
    return this.get(path, async ({ Body }) => Buffer.from((await Body?.transformToByteArray()) ?? new Uint8Array(0)));
  }

  /** The object's bytes with the tag the store gave them (see StoredObject.etag), or null when there is none. */
  readVersion(path: string): Promise<{ bytes: Buffer; etag?: string } | null> {
    return this.get(path, async ({ Body, ETag }) => ({ bytes: Buffer.from((await Body?.transformToByteArray()) ?? new Uint8Array(0)), ...entityTag(ETag) }));
  }

  /**
   * Streams the object into `file` (replacing it), hashing as it goes; null when there is none. A body
   * cut off midway is fetched again from the start.
   */
  download(path: string, file: string): Promise<HashedFile | null> {
    return this.get(path, ({ Body }) => writeHashedFile((Body as Readable | undefined) ?? Readable.from([]), file));
  }

  /** GetObject with its body handed to `consume`, tried again when the body fails midway; null when there is no object. */
  private async get<T>(path: string, consume: (answer: GetObjectCommandOutput) => Promise<T>): Promise<T | null> {
    try {
      return await withTries(
        TRIES,
        (error) => !isNotFound(error),
        async () => consume(await this.client.s3.send(new GetObjectCommand({ Bucket: this.target.bucket, Key: this.key(path) }))),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.failure('GetObject', error);
    }
  }

  /** A whole object in one PUT, checked by the store: SHA-256 on AWS, Content-MD5 elsewhere. */
  async putBytes(path: string, body: Buffer, sha256Hex: string, extra: Partial<PutObjectCommandInput>, signal?: AbortSignal): Promise<void> {
    const check: Partial<PutObjectCommandInput> = this.client.isAws
      ? { ChecksumAlgorithm: 'SHA256', ChecksumSHA256: Buffer.from(sha256Hex, 'hex').toString('base64') }
      : { ContentMD5: createHash('md5').update(body).digest('base64') };
    await this.call('PutObject', () =>
      this.client.s3.send(
        new PutObjectCommand({ Bucket: this.target.bucket, Key: this.key(path), Body: body, ContentLength: body.byteLength, Metadata: { sha256: sha256Hex }, ...check, ...extra }),
        { abortSignal: signal },
      ),
    );
  }

  /** Size and recorded SHA-256 of an object, or null when there is none. */
  async head(path: string): Promise<{ size: number; sha256: string | null } | null> {
    try {
      const answer = await this.client.s3.send(new HeadObjectCommand({ Bucket: this.target.bucket, Key: this.key(path) }));
      // A store may leave Content-Length off a HEAD answer; its listing still gives the size.
      const size = answer.ContentLength ?? (await this.listedSize(path));
      return { size, sha256: answer.Metadata?.sha256 ?? null };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.failure('HeadObject', error);
    }
  }

  /** The size the listing gives for one object; -1 when the listing does not show it. */
  private async listedSize(path: string): Promise<number> {
    const key = this.key(path);
    const page = await this.call('ListObjectsV2', () => this.client.s3.send(new ListObjectsV2Command({ Bucket: this.target.bucket, Prefix: key, MaxKeys: 1 })));
    const object = page.Contents?.find((entry) => entry.Key === key);
    return object?.Size ?? -1;
  }

  /**
   * Deletes in batches; a store without DeleteObjects gets one DeleteObject per key. A 200 answer can
   * still list keys the store did not delete: those that failed for a passing reason are sent again.
   */
  async delete(paths: readonly string[]): Promise<void> {
    for (let start = 0; start < paths.length; start += DELETE_BATCH) {
      const batch = paths.slice(start, start + DELETE_BATCH);
      try {
        let left = batch.map((path) => this.key(path));
        await withTries(
          TRIES,
          (error) => error instanceof LeftKeys && error.passing,
          async () => {
            const answer = await this.client.s3.send(new DeleteObjectsCommand({ Bucket: this.target.bucket, Delete: { Quiet: true, Objects: left.map((Key) => ({ Key })) } }));
            const failed = (answer.Errors ?? []).filter((entry) => entry.Code !== 'NoSuchKey');
            if (failed.length === 0) return;
            left = failed.flatMap((entry) => (entry.Key === undefined ? [] : [entry.Key]));
            throw new LeftKeys(
              `DeleteObjects on bucket "${this.target.bucket}" left ${failed.length} object(s), e.g. ${failed[0].Key} (${failed[0].Code ?? 'no code'}).`,
              left.length > 0 && failed.every((entry) => PASSING_DELETE_ERRORS.has(entry.Code ?? '')),
            );
          },
        );
      } catch (error) {
        if (!isNotImplemented(error)) throw this.failure('DeleteObjects', error);
        for (const path of batch) {
          await this.call('DeleteObject', () => this.client.s3.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key: this.key(path) })));
        }
      }
    }
  }

  /**
   * Multipart uploads begun under the prefix and never completed or aborted; null when the store does
   * not list them (an optional operation: a warning, never a failed export).
   */
  async openUploads(): Promise<OpenUpload[] | null> {
    const base = `${this.target.prefix}/`;
    const found: OpenUpload[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    try {
      for (;;) {
        const page = await this.client.s3.send(
          new ListMultipartUploadsCommand({ Bucket: this.target.bucket, Prefix: base, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          if (upload.Key?.startsWith(base) && upload.UploadId) found.push({ path: upload.Key.slice(base.length), uploadId: upload.UploadId, initiatedMs: upload.Initiated?.getTime() ?? 0 });
        }
        // A store that truncates without markers is paged by the last upload seen instead.
        const last = page.Uploads?.at(-1);
        const nextKey = page.NextKeyMarker || last?.Key;
        const nextUploadId = page.NextKeyMarker ? page.NextUploadIdMarker : last?.UploadId;
        if (!page.IsTruncated || !nextKey || (nextKey === keyMarker && nextUploadId === uploadIdMarker)) return found;
        keyMarker = nextKey;
        uploadIdMarker = nextUploadId;
      }
    } catch (error) {
      if (!isNotImplemented(error)) throw this.failure('ListMultipartUploads', error);
      this.logger.warn({ bucket: this.target.bucket }, 'the object store does not list multipart uploads; set a lifecycle rule (AbortIncompleteMultipartUpload) to clear unfinished ones');
      return null;
    }
  }

  async abortUpload(upload: Pick<OpenUpload, 'path' | 'uploadId'>): Promise<void> {
    try {
      await this.client.s3.send(new AbortMultipartUploadCommand({ Bucket: this.target.bucket, Key: this.key(upload.path), UploadId: upload.uploadId }));
    } catch (error) {
      if (isNotFound(error)) return;
      if (isNotImplemented(error)) {
        this.logger.warn({ bucket: this.target.bucket, path: upload.path }, 'the object store does not abort multipart uploads; a lifecycle rule (AbortIncompleteMultipartUpload) clears them');
        return;
      }
      throw this.failure('AbortMultipartUpload', error);
    }
  }
}

/** Keys a DeleteObjects answer says it did not delete; `passing` when every one failed for a reason a later try can clear. */
class LeftKeys extends BucketError {
  constructor(
    message: string,
    readonly passing: boolean,
  ) {
    super(message);
  }
}

/**
 * An ETag as a comparable value: stores quote it or not, and may mark it weak (W/), for the same bytes. Empty is
 * no tag.
 */
function entityTag(header: string | undefined): { etag?: string } {
  const tag = header?.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  return tag === undefined || tag === '' ? {} : { etag: tag };
}
