import type { Db } from '../db/open.js';
import { isoToMicrosNumber } from '../isoTimestamp.js';
import { STREAMS, type StreamDefinition } from '../streams/index.js';
import type { Pass } from './types.js';

/**
 * Changes one stream's new records reveal in another's (see `ChangeSignal`): a transaction stored by this
 * group that embeds an activity in another state than the mirror's queues that activity for a re-read.
 * Only the group's own new rows (`_change_seq` = the group's) are looked at, through their index, so a
 * group costs one query, and of an activity's transactions in the group only the newest speaks (an approval
 * then a void in one sync is one change). The caller skips the groups of a whole read of the signalling
 * stream (a first sync): years of transactions, read just after the activities themselves, are no news.
 * Call it inside the group's transaction.
 */
export function recordChangeSignals(db: Db, from: StreamDefinition, changeSeq: number): void {
  for (const target of Object.values(STREAMS)) {
    const signal = target.changeSignal;
    if (signal === undefined || signal.from !== from.name) continue;
    db.prepare(
      `INSERT INTO activity_signals (activity_id, created_at, signalled_seq)
       SELECT t.id, t.created_at, @seq FROM (
         SELECT ${signal.idColumn} AS id, ${signal.stateColumn} AS state, created_at, max(id)
         FROM ${from.name} WHERE _change_seq = @seq AND ${signal.idColumn} IS NOT NULL GROUP BY ${signal.idColumn}
       ) s JOIN ${target.name} t ON t.id = s.id
       WHERE s.state IS NOT NULL AND s.state <> @initial AND s.state IS NOT t.state AND t._removed_at IS NULL
       ON CONFLICT (activity_id) DO UPDATE SET signalled_seq = excluded.signalled_seq`,
    ).run({ seq: changeSeq, initial: signal.initialState });
  }
}

/** Signalled records still to re-read. */
export function countSignals(db: Db): number {
  return db.prepare('SELECT count(*) FROM activity_signals').pluck().get() as number;
}

/** Completing a plan that re-read the signals up to `throughSeq` clears them; later ones wait for the next plan. */
export function clearSignals(db: Db, throughSeq: number): void {
  db.prepare('DELETE FROM activity_signals WHERE signalled_seq <= ?').run(throughSeq);
}

const SECOND_US = 1_000_000;

/**
 * The reads that bring the signalled records current: created_at windows, each around signalled records
 * whose stored neighbours fit in about one page, so a day of approvals of activities created on a few
 * days costs a few requests, and one approval costs one. Signals created at or after `coveredFrom` are
 * left to a refresh of that window planned beside (null: none). Null when nothing is signalled.
 */
export function planSignalledReads(db: Db, stream: StreamDefinition, pageSize: number, coveredFrom: string | null): { passes: Pass[]; throughSeq: number } | null {
  if (stream.changeSignal === undefined) return null;
  const rows = db.prepare('SELECT created_at, signalled_seq FROM activity_signals').all() as Array<{ created_at: string | null; signalled_seq: number }>;
  if (rows.length === 0) return null;
  const throughSeq = Math.max(...rows.map((row) => row.signalled_seq));
  const covered = coveredFrom === null ? Infinity : (isoToMicrosNumber(coveredFrom) ?? Infinity);
  // A record without a readable created_at cannot be found by window: the deep refresh brings it.
  const times = rows
    .map((row) => (row.created_at === null ? null : { text: row.created_at, micros: isoToMicrosNumber(row.created_at) }))
    .filter((time): time is { text: string; micros: number } => time !== null && time.micros !== null && time.micros < covered)
    .sort((a, b) => a.micros - b.micros);
  // The stored row a page's worth after a window's start: signals before it share the window's page.
  const pageAhead = db.prepare(`SELECT created_at FROM ${stream.name} WHERE created_at >= ? ORDER BY created_at LIMIT 1 OFFSET ?`).pluck();
  const passes: Pass[] = [];
  for (let i = 0; i < times.length; ) {
    const start = times[i];
    const aheadText = pageAhead.get(start.text, pageSize - 1) as string | undefined;
    const bound = aheadText === undefined ? Infinity : (isoToMicrosNumber(aheadText) ?? Infinity);
    let last = start;
    for (i += 1; i < times.length && times[i].micros < bound; i += 1) last = times[i];
    // created_at_max is exclusive and may be read to the second only: a second past the last signal.
    passes.push({ kind: 'list', role: 'signalled', params: { created_at_min: isoFromMicros(start.micros, 'floor'), created_at_max: isoFromMicros(last.micros + SECOND_US, 'ceil') } });
  }
  return { passes, throughSeq };
}

function isoFromMicros(micros: number, round: 'floor' | 'ceil'): string {
  const ms = round === 'floor' ? Math.floor(micros / 1000) : Math.ceil(micros / 1000);
  return new Date(ms).toISOString();
}
