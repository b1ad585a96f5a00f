import { STREAM_NAMES, type StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import { getStream } from '../streams/index.js';
import { createCheckpointStore } from './checkpoint.js';

/** One stream as `status` shows it. */
export interface StreamStatus {
  stream: StreamName;
  /** Rows in the mirror; for unsubscribes, the addresses currently on the list. */
  rows: number;
  /** Unsubscribes only: addresses that have left the list (tombstoned). */
  removed?: number;
  watermark: string | null;
  lastSuccessAt: string | null;
  /** Seconds since the last success; null when there was none. */
  ageSeconds: number | null;
  lastRefreshAt: string | null;
  /** The latest failure, kept after later successes so its time can be compared with theirs. */
  lastError: { message: string; at: string } | null;
  /** A run stopped part-way; the next sync resumes it. */
  resumable: boolean;
  lastRun: { status: string; startedAt: string; finishedAt: string | null; rowsRead: number } | null;
}

/** Per stream: rows, watermark, last success and its age, last error. */
export function readSyncStatus(db: Db, now: Date = new Date()): StreamStatus[] {
  const checkpoints = createCheckpointStore(db);
  const lastRun = db.prepare(
    'SELECT status, started_at AS startedAt, finished_at AS finishedAt, rows_read AS rowsRead FROM sync_runs WHERE stream = ? ORDER BY id DESC LIMIT 1',
  );
  return STREAM_NAMES.map((name) => {
    const state = checkpoints.load(name);
    const stream = getStream(name);
    const walk = stream.strategy.kind === 'full-walk';
    const rows = db.prepare(`SELECT count(*) FROM ${name}${walk ? ' WHERE removed_at IS NULL' : ''}`).pluck().get() as number;
    const status: StreamStatus = {
      stream: name,
      rows,
      watermark: state.watermark,
      lastSuccessAt: state.lastSuccessAt,
      ageSeconds: state.lastSuccessAt === null ? null : Math.max(0, Math.round((now.getTime() - Date.parse(state.lastSuccessAt)) / 1000)),
      lastRefreshAt: state.lastRefreshAt,
      lastError: state.lastError === null || state.lastErrorAt === null ? null : { message: state.lastError, at: state.lastErrorAt },
      resumable: state.plan !== null,
      lastRun: (lastRun.get(name) as StreamStatus['lastRun'] | undefined) ?? null,
    };
    if (walk) status.removed = db.prepare(`SELECT count(*) FROM ${name} WHERE removed_at IS NOT NULL`).pluck().get() as number;
    return status;
  });
}
