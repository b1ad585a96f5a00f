import type { Db } from './open.js';

/**
 * WAL size between automatic checkpoints while a sync writes, instead of SQLite's 1,000 pages.
 * The WAL file grows to about this size on disk and stays there while `run` keeps the mirror open,
 * so it is kept moderate: a larger one measured within run-to-run noise.
 */
const SYNC_WAL_AUTOCHECKPOINT_BYTES = 40 * 1024 * 1024;

/**
 * A bulk sync commits batch after batch; each automatic checkpoint costs two fsyncs and copies index
 * pages that the next commits rewrite anyway. The setting belongs to each connection, but a commit on
 * any of them checkpoints the WAL that all of them wrote: so every connection writing during a sync
 * gets it, or the main thread's small commits (push queue, lock, run log) would checkpoint the storage
 * thread's WAL on the event loop. Durability is untouched: commits are unchanged.
 * Returns the function that restores the connection's setting.
 */
export function checkpointLessOften(db: Db): () => void {
  const previous = Number(db.pragma('wal_autocheckpoint', { simple: true }));
  // The setting counts pages, whose size depends on when the mirror was created (4 or 16 KiB).
  const pages = Math.ceil(SYNC_WAL_AUTOCHECKPOINT_BYTES / Number(db.pragma('page_size', { simple: true })));
  db.pragma(`wal_autocheckpoint = ${Math.max(previous, pages)}`);
  return () => {
    db.pragma(`wal_autocheckpoint = ${previous}`);
  };
}
