/**
 * The storage thread of a sync: its own connection to the mirror, writing the pages the main thread
 * fetches. Each group is applied as it arrives, but commits are batched (up to a second of pages at a
 * time): a commit writes every index page the group touched, and page-by-page commits made
 * that the largest cost of a first sync. A kill loses only the uncommitted groups, whose checkpoint
 * rolls back with them, so the next run re-reads them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { checkpointLessOften } from '../db/walCheckpoint.js';
import { createCheckpointStore } from './checkpoint.js';
import { abandonDeepRefresh } from './deepRefreshState.js';
import { MassRemovalRefusedError } from './massRemoval.js';
import { createGroupStore } from './storeGroup.js';
import type { StoreReply, StoreRequest, StoreWorkerData } from './storeMessages.js';

/** Longest a write transaction stays open while pages keep coming. */
const MAX_OPEN_MS = 1_000;
/**
 * A transaction commits once no page has come for this long. The main thread's own writes (the push
 * queue, the run log, the instance lock) stop it sending pages while SQLite makes them wait for this
 * thread's write lock: committing when idle hands the lock over within this delay instead of MAX_OPEN_MS.
 */
const IDLE_COMMIT_MS = 20;
/** Rows per commit at most: bounds what a kill loses and how long one commit holds up the pages behind it. */
const MAX_ROWS_PER_COMMIT = 64_000;
/**
 * Page cache of this connection (SQLite's default is 2 MB): enough for the index pages a bulk load keeps
 * touching, measured 10% faster than the default on a 1,000,000-row first sync; a larger one gained nothing.
 */
const CACHE_KIB = 16 * 1024;

if (parentPort === null) throw new Error('storeWorker.js runs as a worker thread of a sync');
const port = parentPort;
const { dbPath } = workerData as StoreWorkerData;
const db = openDatabase(dbPath);
checkpointLessOften(db);
db.pragma(`cache_size = -${CACHE_KIB}`);
const storeGroup = createGroupStore(db);

let open = false;
let rowsInTransaction = 0;
let deadline: NodeJS.Timeout | undefined;
let idle: NodeJS.Timeout | undefined;
/** A commit that failed after its groups were acknowledged: reported on the next request. */
let lostCommit: Error | null = null;

function begin(): void {
  // IMMEDIATE takes the write lock now; a deferred transaction could fail to upgrade it later.
  db.exec('BEGIN IMMEDIATE');
  open = true;
  rowsInTransaction = 0;
  deadline = setTimeout(commit, MAX_OPEN_MS);
}

function commit(): void {
  clearTimeout(deadline);
  clearTimeout(idle);
  if (!open) return;
  open = false;
  try {
    db.exec('COMMIT');
  } catch (error) {
    rollback();
    lostCommit = error instanceof Error ? error : new Error(String(error));
  }
}

function rollback(): void {
  clearTimeout(deadline);
  clearTimeout(idle);
  open = false;
  if (db.inTransaction) db.exec('ROLLBACK');
}

/** The failure of a commit whose groups were already acknowledged, as a reply; null if none. */
function takeLostCommit(id: number): StoreReply | null {
  if (lostCommit === null) return null;
  const message = `the mirror could not commit stored pages: ${lostCommit.message}`;
  lostCommit = null;
  return { id, ok: false, message };
}

function handle(request: StoreRequest): StoreReply {
  const lost = takeLostCommit(request.id);
  if (lost !== null) return lost;
  switch (request.type) {
    case 'group': {
      clearTimeout(idle);
      try {
        if (!open) begin();
        const outcome = storeGroup(request);
        rowsInTransaction += outcome.results.reduce((sum, result) => sum + result.inserted + result.updated + result.unchanged, 0);
        // A deep refresh re-reads rows already stored, paced by the API rather than by this thread: committing
        // each of its groups costs little and keeps a kill from losing a second of pages (which a resumed run
        // would have to fetch again).
        if (rowsInTransaction >= MAX_ROWS_PER_COMMIT || request.checkpoint.kind === 'deep') commit();
        else idle = setTimeout(commit, IDLE_COMMIT_MS);
        return takeLostCommit(request.id) ?? { id: request.id, ok: true, outcome };
      } catch (error) {
        // The groups before it in the transaction roll back too, with their checkpoints: the stream fails
        // here and its next run reads them again. (A savepoint per group would keep them, at the price of
        // copying every page a group touches.)
        rollback();
        if (error instanceof MassRemovalRefusedError) {
          const at = new Date().toISOString();
          if (request.checkpoint.kind === 'deep') abandonDeepRefresh(db, request.stream, at);
          else createCheckpointStore(db).abandon(request.stream, at);
        }
        return { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    }
    case 'flush':
      commit();
      return takeLostCommit(request.id) ?? { id: request.id, ok: true };
    case 'close':
      commit();
      db.close();
      return takeLostCommit(request.id) ?? { id: request.id, ok: true };
  }
}

port.on('message', (request: StoreRequest) => {
  port.postMessage(handle(request));
  if (request.type === 'close') port.close();
});
