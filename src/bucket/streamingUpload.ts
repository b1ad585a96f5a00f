import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { crc32 } from 'node:zlib';
import type { ByteSink } from './byteSink.js';
import { BucketError, isNotFound } from './errors.js';
import type { BucketObjects } from './objects.js';
import { readUntil } from './tries.js';

/** Parts on the wire at once for one file; with the part being filled, memory holds three parts. */
const PARTS_IN_FLIGHT = 2;
/** HeadObject tries to see an uploaded object whole (0.25 + 0.5 + 1 s of waiting at most). */
const CONFIRM_TRIES = 4;

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

export interface FinishedFile {
  bytes: number;
  sha256: string;
}

/**
 * Uploads a data file while it is being written: the bytes the exporter writes to disk are also
 * cut into parts, and each full part goes up as soon as it is full, so the upload of a large file
 * overlaps its writing instead of following it. A file that never fills one part goes up as one
 * PUT once complete, with its SHA-256 on AWS and its Content-MD5 elsewhere for the store to verify.
 * A part is covered by its SigV4 signature, which signs the part's SHA-256 (x-amz-content-sha256) and
 * which the store checks; a Content-MD5 of its own would cost the exporting thread a second digest
 * (0.8 s for a 600 MB file) for no further check. Writes wait while two parts are on the wire, so a
 * slow store holds the exporter back instead of piling parts up in memory.
 */
export class StreamingUpload implements ByteSink {
  private part: Buffer | null = null;
  private filled = 0;
  private uploadId: string | null = null;
  private usedParts = false;
  private nextPartNumber = 1;
  private readonly parts: CompletedPart[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly objects: BucketObjects,
    /** Relative to the target's prefix: the file's path in the manifest. */
    readonly path: string,
    private readonly format: string,
    private readonly partSizeBytes: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Whether the file went up in parts (rather than as one PUT). */
  get multipart(): boolean {
    return this.usedParts;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.throwIfFailed();
    let offset = 0;
    while (offset < chunk.byteLength) {
      const length = Math.min(chunk.byteLength - offset, this.partSizeBytes - this.filled);
      this.reserve(this.filled + length);
      this.part!.set(chunk.subarray(offset, offset + length), this.filled);
      this.filled += length;
      offset += length;
      if (this.filled === this.partSizeBytes) await this.sendPart();
    }
  }

  /**
   * Once the file is complete: sends what is left, completes the upload, and confirms with HeadObject
   * that the object has the file's size (and, for a single PUT, carries its SHA-256).
   */
  async finish(file: FinishedFile): Promise<void> {
    this.throwIfFailed();
    if (this.uploadId === null) {
      await this.objects.putBytes(this.path, (this.part ?? Buffer.alloc(0)).subarray(0, this.filled), file.sha256, { ContentType: this.contentType }, this.signal);
      this.part = null;
    } else {
      if (this.filled > 0) await this.sendPart();
      await Promise.all(this.inFlight);
      this.throwIfFailed();
      await this.complete(file);
    }
    // A store whose reads lag behind its writes may not show the object, or its new size, at once.
    const found = await readUntil(CONFIRM_TRIES, () => this.objects.head(this.path), (object) => object !== null && object.size === file.bytes);
    if (found === null || found.size !== file.bytes || (found.sha256 !== null && found.sha256 !== file.sha256)) {
      throw new BucketError(
        `The object store holds ${this.objects.key(this.path)} in bucket "${this.objects.target.bucket}" with ${found === null ? 'nothing' : `${found.size} bytes`} after uploading ${file.bytes} bytes.`,
      );
    }
  }

  /** After a failure: waits for the parts on the wire and aborts the upload, so no parts stay stored. */
  async abort(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    this.part = null;
    if (this.uploadId === null) return;
    const uploadId = this.uploadId;
    this.uploadId = null;
    // What cannot be aborted now is aborted by the next export's cleanup.
    await this.objects.abortUpload({ path: this.path, uploadId }).catch(() => undefined);
  }

  /**
   * Room for `bytes` in the part being filled. The buffer grows as bytes arrive, so a small file never
   * holds a whole part's worth of memory.
   */
  private reserve(bytes: number): void {
    if (this.part !== null && this.part.byteLength >= bytes) return;
    const grown = Buffer.allocUnsafe(Math.min(this.partSizeBytes, Math.max(bytes, 2 * (this.part?.byteLength ?? 0), 64 * 1024)));
    if (this.part !== null) this.part.copy(grown, 0, 0, this.filled);
    this.part = grown;
  }

  private get contentType(): string {
    return CONTENT_TYPES[this.format] ?? 'application/octet-stream';
  }

  private async sendPart(): Promise<void> {
    const body = this.part!.subarray(0, this.filled);
    this.part = null;
    this.filled = 0;
    this.uploadId ??= await this.create();
    while (this.inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const partNumber = this.nextPartNumber++;
    const sending: Promise<void> = this.uploadPart(partNumber, body).then(
      (part) => {
        this.parts.push(part);
      },
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  private async create(): Promise<string> {
    const answer = await this.objects.call('CreateMultipartUpload', () =>
      this.objects.client.s3.send(
        new CreateMultipartUploadCommand({ Bucket: this.objects.target.bucket, Key: this.objects.key(this.path), ContentType: this.contentType, ...this.partChecksumAlgorithm }),
        { abortSignal: this.signal },
      ),
    );
    if (!answer.UploadId) throw new BucketError(`CreateMultipartUpload on bucket "${this.objects.target.bucket}" answered without an upload id.`);
    this.usedParts = true;
    return answer.UploadId;
  }

  /**
   * On AWS the SDK sends each part with a CRC32, which AWS refuses for an upload created without a
   * checksum algorithm ("Checksum Type mismatch"): the upload names CRC32, each part carries its own,
   * and the completion lists them. Other stores get none (they reject or mangle the SDK's checksums).
   */
  private get partChecksumAlgorithm(): { ChecksumAlgorithm?: 'CRC32' } {
    return this.objects.client.isAws ? { ChecksumAlgorithm: 'CRC32' } : {};
  }

  private async uploadPart(partNumber: number, body: Buffer): Promise<CompletedPart> {
    const checksum = this.objects.client.isAws ? { ChecksumAlgorithm: 'CRC32' as const, ChecksumCRC32: crc32Base64(body) } : {};
    const answer = await this.objects.call('UploadPart', () =>
      this.objects.client.s3.send(
        new UploadPartCommand({
          Bucket: this.objects.target.bucket,
          Key: this.objects.key(this.path),
          UploadId: this.uploadId!,
          PartNumber: partNumber,
          Body: body,
          ContentLength: body.byteLength,
          ...checksum,
        }),
        { abortSignal: this.signal },
      ),
    );
    return { PartNumber: partNumber, ETag: answer.ETag, ...(checksum.ChecksumCRC32 === undefined ? {} : { ChecksumCRC32: checksum.ChecksumCRC32 }) };
  }

  private async complete(file: FinishedFile): Promise<void> {
    const parts = [...this.parts].sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    try {
      await this.objects.call('CompleteMultipartUpload', () =>
        this.objects.client.s3.send(
          new CompleteMultipartUploadCommand({ Bucket: this.objects.target.bucket, Key: this.objects.key(this.path), UploadId: this.uploadId!, MultipartUpload: { Parts: parts } }),
          { abortSignal: this.signal },
        ),
      );
    } catch (error) {
      // A dropped connection can hide a completion the store applied: its retry then answers
      // NoSuchUpload, and the object itself (keyed by this run) says whether it is whole.
      const found = isNotFound(error instanceof BucketError ? error.cause : error) ? await this.objects.head(this.path) : null;
      if (found === null || found.size !== file.bytes) throw error;
    }
    this.uploadId = null;
  }

  private throwIfFailed(): void {
    this.signal?.throwIfAborted();
    if (this.failure !== null) throw this.failure.error;
  }
}

/** A part's CRC32 as S3 takes it: the 4 big-endian bytes, base64. */
function crc32Base64(bytes: Buffer): string {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(bytes));
  return digest.toString('base64');
}
