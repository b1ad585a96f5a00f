import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config.js';
import { isoToMicros } from '../isoTimestamp.js';
import { listMigrations, migrate } from './migrate.js';
import { sameJson } from './sameJson.js';

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** Refuse to create the file and its folder: a mistyped path is an error, not a new empty mirror. */
  mustExist?: boolean;
  /** How long a writer waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
}

/** How the mirror is named to a user, wherever an error about it is told. */
export function mirrorName(path: string): string {
  return `the mirror ${path} (db.path or LOYALTY_DB)`;
}

/** The mirror a command needs is not there: most likely a mistyped LOYALTY_DB. */
export class MirrorMissingError extends Error {
  override readonly name = 'MirrorMissingError';
  constructor(readonly path: string) {
    super(`${mirrorName(path)} does not exist; check the path, or run "loyalty-sync sync" to create it.`);
  }
}

/** SQLite's codes for a file that is not a database, or one whose pages are damaged. */
export function isDamagedDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/**
 * SQLite's codes for a write to a file this process may not write: a mirror opened read-write falls back to
 * read-only when its file is, and says so only at the first write, without naming the file.
 */
export function isReadOnlyDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_READONLY');
}

/** Names the mirror in an error SQLite raised about it, which otherwise says only "database disk image is malformed". */
export function mirrorError(path: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes(mirrorName(path))) return error instanceof Error ? error : new Error(message);
  const what = isDamagedDatabase(error) ? 'is damaged or not a SQLite database' : isReadOnlyDatabase(error) ? 'cannot be written by this user' : 'cannot be opened';
  return new Error(`${mirrorName(path)} ${what}: ${message}.`, { cause: error });
}

/**
 * Opens the mirror (creating it and its folder unless `mustExist` or `readonly`) and brings its schema up to date.
 * The file holds customers' emails, so it is created readable by its owner only;
 * SQLite gives the -wal and -shm files the same mode.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const mustExist = options.readonly === true || options.mustExist === true;
  if (path !== ':memory:' && isFolder(path)) {
    // SQLite would only say "disk I/O error"; the setting is what is wrong, whatever the command.
    throw new ConfigError(`Config key "db.path" (or LOYALTY_DB) is "${path}", which is a folder, not a file; expected the path of the mirror file, such as ${join(path, 'mirror.db')}.`);
  }
  if (path !== ':memory:' && mustExist && !existsSync(path)) throw new MirrorMissingError(path);
  try {
    if (!mustExist && path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, 'a', 0o600));
    }
    return prepare(new Database(path, { readonly: options.readonly ?? false, fileMustExist: mustExist }), options);
  } catch (error) {
    throw mirrorError(path, error);
  }
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * Opens an existing mirror for a command that only reads it (status, queue list): writable when it
 * can be, so pending migrations apply, else read-only, so the owner of a mirror they may not write
 * (a read-only copy or volume) can still read it.
 */
export function openDatabaseForReading(path: string): Db {
  try {
    return openDatabase(path, { mustExist: true });
  } catch (error) {
    if (!cannotWrite(error)) throw error;
  }
  let db: Db;
  try {
    db = openDatabase(path, { readonly: true });
  } catch (error) {
    // A WAL-mode file is read through its -shm index, which SQLite must create beside it when no writer
    // has it open; in a folder this process may not write it cannot, and better-sqlite3 cannot open the
    // file `immutable` (it takes no URI file names). A copy in memory is read instead.
    if (!cannotWrite(error)) throw error;
    db = readCopyInMemory(path);
  }
  requireCurrentSchema(db, path);
  return db;
}

function prepare(db: Db, options: OpenOptions): Db {
  try {
    configure(db, options);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Db, options: OpenOptions): void {
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
  } else {
    // Reads the header and schema now, so a damaged or unreadable file fails here, where it is named.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  }
}

/** What SQLite or the file system say when this process may read the mirror but not write it (or its folder). */
function cannotWrite(error: unknown): boolean {
  const code = ((error as { cause?: { code?: unknown } }).cause ?? error) as { code?: unknown };
  return typeof code.code === 'string' && (code.code.startsWith('SQLITE_READONLY') || code.code === 'SQLITE_CANTOPEN' || code.code === 'EACCES' || code.code === 'EROFS' || code.code === 'EPERM');
}

/** Bytes 18 and 19 of a SQLite header: 2 marks a WAL-mode file, 1 a rollback-journal one. */
const HEADER_WRITE_VERSION = 18;
const HEADER_READ_VERSION = 19;

function readCopyInMemory(path: string): Db {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new Error(`${mirrorName(path)} cannot be read by this user: its write-ahead log ${wal} holds changes, and SQLite cannot create the index it needs to read them in a folder this user may not write. Run the command as the mirror's writer, or after the writer has stopped.`);
  }
  const bytes = readFileSync(path);
  // An in-memory database cannot be in WAL mode; with no log to replay, the file alone is the whole mirror.
  if (bytes.length > HEADER_READ_VERSION && bytes[HEADER_WRITE_VERSION] === 2) {
    bytes[HEADER_WRITE_VERSION] = 1;
    bytes[HEADER_READ_VERSION] = 1;
  }
  try {
    return prepare(new Database(bytes, { readonly: true }), { readonly: true });
  } catch (error) {
    throw mirrorError(path, error);
  }
}

/** A read-only connection cannot migrate: a mirror an older version left behind would lack tables the queries use. */
function requireCurrentSchema(db: Db, path: string): void {
  const needed = Math.max(...listMigrations().map((migration) => migration.version));
  const applied = (db.prepare("SELECT max(version) FROM schema_migrations").pluck().get() as number | null) ?? 0;
  if (applied < needed) {
    db.close();
    throw new Error(`${mirrorName(path)} has schema version ${applied} and this loyalty-sync needs ${needed}, which it cannot apply without write access; run "loyalty-sync sync" once as the mirror's writer.`);
  }
}
