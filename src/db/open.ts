import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { isoToMicros } from '../isoTimestamp.js';
import { migrate } from './migrate.js';
import { sameJson } from './sameJson.js';

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** How long a writer waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the mirror and brings its schema up to date.
 * The file holds customers' emails, so it is created readable by its owner only;
 * SQLite gives the -wal and -shm files the same mode.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (!options.readonly && path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  // The API's timestamps are ISO 8601 in any form; SQLite's own date functions read only some of them.
  db.function('iso_micros', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? isoToMicros(text) : null));
  // A record re-read with its members in another order is unchanged; SQLite only compares text.
  db.function('same_json', { deterministic: true }, (left: unknown, right: unknown) => (typeof left === 'string' && typeof right === 'string' && sameJson(left, right) ? 1 : 0));
  if (!options.readonly) {
    // Rows carry their whole JSON record (about 700 bytes for a transaction): 16 KiB pages hold
    // more of them per page, which cut a first sync's storage CPU by 5-10% (storage-only runs). SQLite applies
    // it only to a database that has no content yet, so existing mirrors keep their page size.
    db.pragma('page_size = 16384');
    db.pragma('journal_mode = WAL');
    // WAL with synchronous=NORMAL never corrupts and never loses a committed transaction on a process crash;
    // only an OS crash may drop the last commits, which the next incremental sync re-reads anyway.
    db.pragma('synchronous = NORMAL');
    migrate(db);
  }
  return db;
}
