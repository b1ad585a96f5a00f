import { createHash, type Hash } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ByteSink } from '../bucket/byteSink.js';

/** Folders and files of an export hold customers' emails: owner only. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * Written bytes are flushed to disk in the background every so often: the flush that makes a file
 * durable before its rename then waits for the last few MB only (0.2 s saved on a 600 MB file).
 */
const FLUSH_EVERY_BYTES = 64 * 1024 * 1024;


export interface WrittenFile {
  bytes: number;
  sha256: string;
}

/**
 * A file written under its temporary name, hashed as it goes. `commit` makes it durable and
 * renames it into place; `discard` removes it. Each write is awaited, so a slow disk holds back
 * the reader instead of letting buffers pile up. A `copy` sink (an upload to object storage)
 * receives every chunk too, and holds the writer back the same way.
 */
export class FileSink {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private unflushed = 0;
  /** A flush to disk running beside the writes, so the one in `finish` has little left to wait for. */
  private flushing: Promise<void> | null = null;

  private constructor(
    private readonly handle: FileHandle,
    readonly tmpPath: string,
    private readonly copy: ByteSink | null,
  ) {}

  static async create(tmpPath: string, copy: ByteSink | null = null): Promise<FileSink> {
    await mkdir(dirname(tmpPath), { recursive: true, mode: DIR_MODE });
    return new FileSink(await open(tmpPath, 'wx', FILE_MODE), tmpPath, copy);
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
    await (this.copy === null ? this.writeToDisk(chunk) : Promise.all([this.writeToDisk(chunk), this.copy.write(chunk)]));
  }

  private async writeToDisk(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const { bytesWritten } = await this.handle.write(chunk, offset, chunk.byteLength - offset);
      offset += bytesWritten;
    }
    this.unflushed += chunk.byteLength;
    if (this.unflushed >= FLUSH_EVERY_BYTES && this.flushing === null) {
      this.unflushed = 0;
      // A failed flush stays in `flushing`, and `finish` reports it.
      const flushing: Promise<void> = this.handle.datasync().then(() => {
        if (this.flushing === flushing) this.flushing = null;
      });
      flushing.catch(() => undefined);
      this.flushing = flushing;
    }
  }

  /** Flushes to disk and closes; the file keeps its temporary name until `publish`. */
  async finish(): Promise<WrittenFile> {
    await this.flushing;
    await this.handle.sync();
    await this.handle.close();
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.tmpPath, { force: true });
  }
}

/** Atomic on one filesystem, which holds because the temporary file sits in the target's folder. */
export async function publish(tmpPath: string, finalPath: string): Promise<void> {
  await rename(tmpPath, finalPath);
}
