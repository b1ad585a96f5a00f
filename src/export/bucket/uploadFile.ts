import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Upload } from '@aws-sdk/lib-storage';
import type { ManifestFile } from '../manifest.js';
import { BucketError } from './errors.js';
import type { BucketObjects } from './objects.js';

/** Parts in flight at once for one file: memory stays at about this many part buffers. */
const PARTS_IN_FLIGHT = 2;

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * Uploads one finished data file from its local path to the key of its manifest path, then confirms
 * with HeadObject that the stored object has the file's size and carries the file's SHA-256 (set as
 * user metadata with the upload, so it proves the object is this run's whole file; a store that keeps
 * no user metadata is held to the size alone). A file larger than one part goes up as a multipart
 * upload streamed from disk, never read into memory whole. Returns whether parts were used.
 */
export async function uploadFile(objects: BucketObjects, localPath: string, entry: ManifestFile, partSizeBytes: number, signal?: AbortSignal): Promise<{ multipart: boolean }> {
  const multipart = entry.bytes > partSizeBytes;
  const contentType = CONTENT_TYPES[entry.format] ?? 'application/octet-stream';
  try {
    if (multipart) {
      const upload = new Upload({
        client: objects.client.s3,
        params: { Bucket: objects.target.bucket, Key: objects.key(entry.path), Body: createReadStream(localPath), ContentType: contentType, Metadata: { sha256: entry.sha256 } },
        partSize: partSizeBytes,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      const onAbort = (): void => void upload.abort().catch(() => undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await objects.call('multipart upload', () => upload.done());
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    } else {
      await objects.putBytes(entry.path, await readFile(localPath), entry.sha256, { ContentType: contentType }, signal);
    }
  } catch (error) {
    // A dropped connection can hide a write the store applied (CompleteMultipartUpload then answers
    // NoSuchUpload on retry): the object itself says whether it is this file.
    signal?.throwIfAborted();
    if (!(await isStored(objects, entry))) throw error;
    return { multipart };
  }
  if (!(await isStored(objects, entry))) {
    const found = await objects.head(entry.path);
    throw new BucketError(
      `The object store holds ${objects.key(entry.path)} in bucket "${objects.target.bucket}" with ${found === null ? 'nothing' : `${found.size} bytes and SHA-256 ${found.sha256 ?? 'unrecorded'}`} after uploading ${entry.bytes} bytes with SHA-256 ${entry.sha256}.`,
    );
  }
  return { multipart };
}

async function isStored(objects: BucketObjects, entry: ManifestFile): Promise<boolean> {
  const found = await objects.head(entry.path);
  return found !== null && found.size === entry.bytes && (found.sha256 === null || found.sha256 === entry.sha256);
}
