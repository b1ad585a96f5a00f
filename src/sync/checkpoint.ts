import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import type { Pass, Plan } from './types.js';

/** A stream's row of `sync_state`, decoded. */
export interface StreamState {
  /** The unfinished run's remaining passes, or null when the last run completed. */
  plan: Plan | null;
  /** Where the first pass of `plan` continues: an API cursor, or the next page number of a walk. */
  cursor: string | null;
  watermark: string | null;
  lastRefreshAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

interface StateRow {
  watermark: string | null;
  cursor: string | null;
  pass_state: string | null;
  last_refresh_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

export interface Completion {
  watermark: string | null;
  refreshed: boolean;
  at: string;
}

/** Reads and writes checkpoints; each write is meant to run inside the page's transaction. */
export interface CheckpointStore {
  load(stream: StreamName): StreamState;
  /** Records the plan still to run and where its first pass continues. */
  save(stream: StreamName, plan: Plan, cursor: string | null, at: string): void;
  /** The run finished: no plan left; the watermark, success time and (if refreshed) refresh time move. */
  complete(stream: StreamName, completion: Completion): void;
  fail(stream: StreamName, message: string, at: string): void;
  /** `--full`: drop the unfinished plan and the watermark, keep the history. */
  forget(stream: StreamName, at: string): void;
  /** Drop the unfinished plan only: the next run plans afresh from what is stored. */
  abandon(stream: StreamName, at: string): void;
}

export function createCheckpointStore(db: Db): CheckpointStore {
  const select = db.prepare(
    'SELECT watermark, cursor, pass_state, last_refresh_at, last_success_at, last_error, last_error_at FROM sync_state WHERE stream = ?',
  );
  const ensure = db.prepare('INSERT INTO sync_state (stream, updated_at) VALUES (?, ?) ON CONFLICT (stream) DO NOTHING');
  const save = db.prepare('UPDATE sync_state SET pass_state = ?, cursor = ?, cursor_pass = ?, updated_at = ? WHERE stream = ?');
  const complete = db.prepare(
    `UPDATE sync_state SET pass_state = NULL, cursor = NULL, cursor_pass = NULL, watermark = ?, last_success_at = ?,
       last_refresh_at = CASE WHEN ? THEN ? ELSE last_refresh_at END, updated_at = ? WHERE stream = ?`,
  );
  const fail = db.prepare('UPDATE sync_state SET last_error = ?, last_error_at = ?, updated_at = ? WHERE stream = ?');
  const abandon = db.prepare('UPDATE sync_state SET pass_state = NULL, cursor = NULL, cursor_pass = NULL, updated_at = ? WHERE stream = ?');
  const forget = db.prepare('UPDATE sync_state SET pass_state = NULL, cursor = NULL, cursor_pass = NULL, watermark = NULL, updated_at = ? WHERE stream = ?');

  return {
    load(stream) {
      const row = select.get(stream) as StateRow | undefined;
      return {
        plan: row?.pass_state ? (JSON.parse(row.pass_state) as Plan) : null,
        cursor: row?.cursor ?? null,
        watermark: row?.watermark ?? null,
        lastRefreshAt: row?.last_refresh_at ?? null,
        lastSuccessAt: row?.last_success_at ?? null,
        lastError: row?.last_error ?? null,
        lastErrorAt: row?.last_error_at ?? null,
      };
    },
    save(stream, plan, cursor, at) {
      ensure.run(stream, at);
      save.run(JSON.stringify(plan), cursor, passLabel(plan.passes[0]), at, stream);
    },
    complete(stream, completion) {
      ensure.run(stream, completion.at);
      complete.run(completion.watermark, completion.at, completion.refreshed ? 1 : 0, completion.at, completion.at, stream);
    },
    fail(stream, message, at) {
      ensure.run(stream, at);
      fail.run(message, at, at, stream);
    },
    forget(stream, at) {
      ensure.run(stream, at);
      forget.run(at, stream);
    },
    abandon(stream, at) {
      abandon.run(at, stream);
    },
  };
}

/** `cursor_pass`: which pass the stored cursor belongs to, for people reading the table. */
function passLabel(pass: Pass | undefined): string | null {
  if (pass === undefined) return null;
  return pass.kind === 'walk' ? 'walk' : pass.role;
}
