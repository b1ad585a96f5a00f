import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import { sameJson } from '../db/sameJson.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';
import { toJsonText } from '../jsonText.js';
import type { StreamDefinition } from '../streams/index.js';
import { newestCreatedAt, newestUpdatedAt, windowIds } from '../sync/storedFacts.js';
import { lookbackStart, overlapStart, sinceIdForWindow, updatedAtMin } from '../sync/watermarks.js';
import type { StoredRow } from './mirrorRows.js';
import { deepRefreshClock, refreshClock, type PassClock } from './passClocks.js';
import { stateEvidence } from './stateEvidence.js';
import type { MirrorId, PassName } from './types.js';

/** How verify classes one difference between the API and the mirror. */
export type Verdict =
  /** No pass of the sync will bring it: the sync's own failure (or damage to the mirror). */
  | { class: 'defect' }
  /**
   * Changed upstream after the last pass that re-reads the row: `pass` brings it, falling due at `due`.
   * `aheadOfSync`: the next sync reads it as new, so a repair leaves it alone (storing it would move the
   * watermark past rows not read yet).
   */
  | { class: 'pending'; pass: PassName; due: string | null; aheadOfSync?: true }
  /** An activity whose state differs: judged by `settle`, once the mirror's transactions are read for all of them. */
  | { class: 'deferred' };

export const DEFECT: Verdict & { class: 'defect' } = { class: 'defect' };
export const NEXT_SYNC: Verdict & { class: 'pending' } = { class: 'pending', pass: 'next sync', due: null, aheadOfSync: true };
/** An activity queued in `activity_signals`: the next sync re-reads it below its watermark, so a repair may store it now. */
const SIGNALLED: Verdict = { class: 'pending', pass: 'next sync', due: null };
const DEFERRED: Verdict = { class: 'deferred' };

/**
 * Tells a pending difference from a defect, from what the mirror records of the sync's passes, with the
 * sync's own arithmetic, so a healthy mirror of a live program verifies clean:
 * - next sync: ids above where the next sync starts (its overlap included); customers' updated_at at or after
 *   it; an activity queued in `activity_signals`; anything on the unsubscribe list (read whole by every sync,
 *   with no order and no time), and an address gone from it that the last complete walk still saw;
 * - next refresh or next deep refresh (orders and activities, which the API cannot filter by update time):
 *   a change made after the start of the last refresh (rows created inside the lookback window) or of the
 *   last deep refresh (any row). An order's `updated_at` dates its change; an activity's is dated by the
 *   stored transaction that carries its new state, and one without is pending until its passes are overdue;
 * - everything else is a defect: rows missing below the next sync's start, extras, rows of customers and
 *   transactions stale below it, an order whose `updated_at` is not newer than the mirror's copy or is older
 *   than a completed pass that reads it, an activity differing in anything but its state, or whose new state
 *   a stored transaction showed once a deep refresh had completed (the sync should have re-read it at once),
 *   and a difference whose every pass is overdue.
 * Built before any repair, since repairs move the watermarks.
 */
export interface DifferenceJudge {
  /** Why the API's `record` differs from the mirror's `stored` (undefined, or marked removed: the mirror lacks it). */
  judge(record: ApiRecord, stored: StoredRow | undefined): Verdict;
  /** Why the mirror's `row`, still present, is not in the API. */
  judgeGone(row: StoredRow): Verdict;
  /** The verdicts of the differences `judge` deferred (all stale rows), read together; each is returned once. */
  settle(): Array<{ id: MirrorId; verdict: Exclude<Verdict, { class: 'deferred' }> }>;
}

export function createDifferenceJudge(db: Db, stream: StreamDefinition, settings: Config['sync'], now: Date): DifferenceJudge {
  const none = (): [] => [];
  switch (stream.strategy.kind) {
    case 'full-walk': {
      const lastWalk =
        (db.prepare("SELECT started_at FROM sync_runs WHERE stream = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1").pluck().get(stream.name) as
          | string
          | undefined) ?? null;
      return {
        judge: () => NEXT_SYNC,
        judgeGone: (row) => (lastWalk !== null && row.lastSeenAt !== null && row.lastSeenAt >= lastWalk ? NEXT_SYNC : DEFECT),
        settle: none,
      };
    }
    case 'updated-at': {
      const from = micros(updatedAtMin(newestUpdatedAt(db, stream), settings.updatedAtOverlapMinutes) ?? null);
      return {
        judge: (record) => (from === null || (micros(record.updated_at) ?? -Infinity) >= from ? NEXT_SYNC : DEFECT),
        judgeGone: () => DEFECT,
        settle: none,
      };
    }
    case 'since-id': {
      const newest = newestCreatedAt(db, stream);
      const sinceId = newest === null ? 0 : sinceIdForWindow(windowIds(db, stream, overlapStart(newest, settings.idOverlapHours)));
      const aboveReach = (record: ApiRecord): boolean => typeof record.id === 'number' && record.id > sinceId;
      // Transactions never change: below the next sync's start, any difference is a defect.
      if (stream.strategy.refresh === undefined) {
        return { judge: (record) => (aboveReach(record) ? NEXT_SYNC : DEFECT), judgeGone: () => DEFECT, settle: none };
      }
      return rereadStreamJudge(db, stream, settings, now, newest, aboveReach);
    }
  }
}

/** Orders and activities: re-read by the refresh (inside the lookback window) and by the deep refresh (whole). */
function rereadStreamJudge(
  db: Db,
  stream: StreamDefinition,
  settings: Config['sync'],
  now: Date,
  newestCreated: string | null,
  aboveReach: (record: ApiRecord) => boolean,
): DifferenceJudge {
  const refresh = refreshClock(db, stream, settings, now);
  const deep = deepRefreshClock(db, stream, settings, now);
  const windowStart = micros(lookbackStart(now, newestCreated, settings.lookbackDays)) ?? -Infinity;
  const passesFor = (record: ApiRecord): PassClock[] => ((micros(record.created_at) ?? -Infinity) >= windowStart ? [refresh, deep] : [deep]);
  const datedByTransactions = stream.columns.some((column) => column.name === 'state');
  const signalled = db.prepare('SELECT 1 FROM activity_signals WHERE activity_id = ?').pluck();
  const undated: Array<{ id: number; state: string; passes: PassClock[] }> = [];

  return {
    judge(record, stored) {
      if (aboveReach(record)) return NEXT_SYNC;
      if (stored === undefined || stored.removed) return DEFECT;
      const mirrored = parseRaw(stored.raw);
      if (datedByTransactions) {
        if (signalled.get(record.id) !== undefined) return SIGNALLED;
        // The API changes an activity by its state alone (an approval, a void, a decline, an expiry).
        if (typeof record.state !== 'string' || record.state === mirrored?.state || !sameJson(toJsonText({ ...mirrored, state: record.state }), toJsonText(record))) return DEFECT;
        undated.push({ id: record.id as number, state: record.state, passes: passesFor(record) });
        return DEFERRED;
      }
      const changedAt = micros(record.updated_at);
      const storedAt = micros(mirrored?.updated_at);
      // The API's copy is no newer than the mirror's, yet differs: the mirror's copy is wrong.
      if (changedAt === null || storedAt === null || changedAt <= storedAt) return DEFECT;
      return verdictOf(passesFor(record), changedAt);
    },
    judgeGone: () => DEFECT,
    settle() {
      const evidence = stateEvidence(db, undated, now.toISOString());
      const settled = undated.map(({ id, passes }) => {
        const changedAt = evidence.get(id);
        // The sync stored the transaction that told of the change: its signal, or the deep refresh, should have brought it.
        if (changedAt !== undefined && deep.completed) return { id, verdict: DEFECT };
        return { id, verdict: verdictOf(passes, changedAt ?? null) };
      });
      undated.length = 0;
      return settled;
    },
  };
}

/**
 * A change made at `changedAt` (API clock; null when nothing dates it) to a row the `passes` re-read: a defect
 * when a completed one started after it or all are overdue, else pending until the one due first.
 */
function verdictOf(passes: readonly PassClock[], changedAt: number | null): Exclude<Verdict, { class: 'deferred' }> {
  if (changedAt !== null && passes.some((pass) => pass.startedBefore !== null && changedAt <= pass.startedBefore)) return DEFECT;
  const waiting = passes.filter((pass) => !pass.overdue).sort((a, b) => Date.parse(a.due) - Date.parse(b.due));
  return waiting.length === 0 ? DEFECT : { class: 'pending', pass: waiting[0].pass, due: waiting[0].due };
}

function micros(value: unknown): number | null {
  return typeof value === 'string' ? isoToMicrosNumber(value) : null;
}

function parseRaw(raw: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
