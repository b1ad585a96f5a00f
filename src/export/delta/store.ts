import type { ByteSink } from '../../bucket/byteSink.js';

/** An object under a Delta table's root. */
export interface StoredEntry {
  /** Relative to the table root, with forward slashes: `_delta_log/…json`, `part-….parquet`. */
  path: string;
  size: number;
  /** Milliseconds since the epoch. */
  modifiedMs: number;
}

/** A data file being written: bytes go in as the encoder makes them; `finish` makes it whole under its final name. */
export interface DataFileSink extends ByteSink {
  finish(): Promise<{ bytes: number; sha256: string }>;
  /** Drops what was written; never throws. */
  abort(): Promise<void>;
}

/**
 * One place a Delta table lives: a folder on disk or a prefix in a bucket. The table code only ever
 * goes through this, so the same commit, checkpoint and vacuum write both places. Every path is
 * relative to the table root, and nothing outside it is ever written or deleted.
 */
export interface DeltaStore {
  /** For messages: the table's folder or its s3:// URL. */
  readonly location: string;
  /** Every object under the table root (data files, `_delta_log/…`); empty when there is none. */
  list(): Promise<StoredEntry[]>;
  /** Only the entries under `_delta_log/`. */
  listLog(): Promise<StoredEntry[]>;
  /** The object's bytes, or null when it does not exist. */
  read(path: string): Promise<Buffer | null>;
  /**
   * Creates the object only if it does not exist yet (O_EXCL / link(2) on disk, `If-None-Match: *` on
   * S3): true when this call created it, false when it was already there. This is what makes a Delta
   * commit atomic and single-writer.
   */
  putIfAbsent(path: string, body: Buffer): Promise<boolean>;
  /** Creates or replaces the object (only `_delta_log/_last_checkpoint`, which is a hint). */
  put(path: string, body: Buffer): Promise<void>;
  /** A new data file at `path`, which no other file has ever had: written under a temporary name or upload until `finish`. */
  createDataFile(path: string, signal?: AbortSignal): Promise<DataFileSink>;
  /** Deletes the objects; those already gone are no error. */
  delete(paths: readonly string[]): Promise<void>;
  /** A bucket only: aborts multipart uploads under the table begun before this instant (data files of killed runs). */
  abortUploadsBegunBefore?(beforeMs: number): Promise<number>;
}
