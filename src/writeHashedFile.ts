import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What was written: the byte count and SHA-256 (hex) of the file's content, taken as it streamed. */
export interface HashedFile {
  bytes: number;
  sha256: string;
}

/**
 * Streams `source` into `file` (created 0600, or replaced), hashing the bytes on their way, so a copy of a mirror or
 * a download is checked against its expected size and hash without a second read.
 */
export async function writeHashedFile(source: Readable, file: string): Promise<HashedFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      done(null, chunk);
    },
  });
  await pipeline(source, counted, createWriteStream(file, { mode: 0o600 }));
  return { bytes, sha256: hash.digest('hex') };
}
