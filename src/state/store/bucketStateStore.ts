import { createReadStream } from 'node:fs';
import type { BucketClient } from '../../bucket/client.js';
import { putCreateOnly } from '../../bucket/createOnlyWrites.js';
import { BucketObjects, type StoredObject } from '../../bucket/objects.js';
import type { BucketPlace } from '../../bucket/place.js';
import { trackStoreClock, type StoreClock } from '../../bucket/storeClock.js';
import type { Logger } from '../../log.js';
import { StreamingUpload } from '../../bucket/streamingUpload.js';
import type { StateStore } from './stateStore.js';

/** The state at `place` through `client`, whose answers' Date headers become the store's clock. */
export function bucketStateStore(client: BucketClient, place: BucketPlace, logger: Logger, partSizeBytes: number): BucketStateStore {
  return new BucketStateStore(new BucketObjects(client, place, logger), trackStoreClock(client), partSizeBytes);
}

/** The state in a bucket, under a prefix: each operation one or a few S3 requests (BucketObjects). */
export class BucketStateStore implements StateStore {
  readonly url: string;
  readonly label: string;

  constructor(
    readonly objects: BucketObjects,
    readonly clock: StoreClock,
    /** A dump larger than this is uploaded in parts of this size (export.s3.partSizeMiB). */
    private readonly partSizeBytes: number,
  ) {
    this.url = objects.target.url;
    this.label = `bucket "${objects.target.bucket}"`;
  }

  where(path: string): string {
    return this.objects.key(path);
  }

  list(under = ''): Promise<StoredObject[]> {
    return this.objects.list(under);
  }

  readBytes(path: string): Promise<Buffer | null> {
    return this.objects.readBytes(path);
  }

  readVersion(path: string): Promise<{ bytes: Buffer; etag?: string } | null> {
    return this.objects.readVersion(path);
  }

  readText(path: string): Promise<string | null> {
    return this.objects.readText(path);
  }

  putBytes(path: string, body: Buffer, sha256Hex: string, contentType?: string): Promise<void> {
    return this.objects.putBytes(path, body, sha256Hex, contentType === undefined ? {} : { ContentType: contentType });
  }

  putCreateOnly(path: string, body: Buffer, contentType?: string): Promise<'created' | 'exists' | 'refused'> {
    return putCreateOnly(this.objects, path, body, contentType);
  }

  delete(paths: readonly string[]): Promise<void> {
    return this.objects.delete(paths);
  }

  download(path: string, file: string): Promise<{ bytes: number; sha256: string } | null> {
    return this.objects.download(path, file);
  }

  /** In parts of the configured size (one PUT when it fits one), checked by the store. */
  async upload(path: string, file: string, expected: { bytes: number; sha256: string }): Promise<void> {
    const upload = new StreamingUpload(this.objects, path, 'zst', this.partSizeBytes);
    try {
      for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) await upload.write(chunk as Buffer);
      await upload.finish(expected);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
  }
}
