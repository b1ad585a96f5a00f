import type { StoredObject } from '../../bucket/objects.js';

export type { StoredObject };

/** The time by which leases are judged: the store's own where it says it, so runs on several machines agree. */
export interface StateClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Whether this is a time to judge a lease's expiry by: the store's own, credibly. Without it no run
   * takes over a lease that looks run out, since the clock that says so may be the broken one.
   */
  readonly usable: boolean;
  /** Why the clock is not usable, as a clause ("the store sends no Date header"); null when it is. */
  readonly unusableBecause: string | null;
  /** How far the store's time may be ahead of `now()`. */
  readonly uncertaintyMs: number;
}

/**
 * What the state needs of the place that keeps it (`state.url`): a bucket (s3://) or a folder
 * (file://). Paths are relative to the place, with forward slashes, as the state's layout names them.
 * Every failure is thrown as one sentence naming the place.
 */
export interface StateStore {
  /** `state.url`, normalised: s3://BUCKET/PREFIX or file:///PATH. */
  readonly url: string;
  /** The place for messages: `bucket "NAME"` or `folder /PATH`. */
  readonly label: string;
  readonly clock: StateClock;
  /** One path's place for messages: its key in the bucket, or its file. */
  where(path: string): string;
  /** Every object under `under` (a folder ending with a slash; all when empty). */
  list(under?: string): Promise<StoredObject[]>;
  /** The object's bytes, or null when there is none. */
  readBytes(path: string): Promise<Buffer | null>;
  /** The object's bytes with the store's tag of them, when it gives one (see StoredObject.etag); null when there is none. */
  readVersion(path: string): Promise<{ bytes: Buffer; etag?: string } | null>;
  readText(path: string): Promise<string | null>;
  /** Writes the object whole, replacing any: a reader sees the old bytes or the new, never a part. */
  putBytes(path: string, body: Buffer, sha256Hex: string, contentType?: string): Promise<void>;
  /**
   * Writes the object only when there is none, atomically: of two writers of one path exactly one gets
   * `created`. `refused` when the store cannot do that at all.
   */
  putCreateOnly(path: string, body: Buffer, contentType?: string): Promise<'created' | 'exists' | 'refused'>;
  /** Deletes the objects; one already gone is no error. */
  delete(paths: readonly string[]): Promise<void>;
  /** Copies the object into the local `file`, hashing it; null when there is none. */
  download(path: string, file: string): Promise<{ bytes: number; sha256: string } | null>;
  /** Stores the local `file` as the object, checked against what the caller wrote into it. */
  upload(path: string, file: string, expected: { bytes: number; sha256: string }): Promise<void>;
}
