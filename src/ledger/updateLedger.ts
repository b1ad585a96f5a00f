import type { Db } from '../db/open.js';
import { recordDrift } from '../drift/recordDrift.js';
import type { DriftFinding } from '../drift/types.js';
import { CLASSIFIED_RESOURCES, UNCLASSIFIED_SQL } from './classify.js';
import { BEFORE_ALL_DAYS, createLocalDay, dayFormatter } from './localDay.js';
import { DayMovementsTally, type UnclassifiedCount } from './dayMovements.js';
import { type BuildContext, MODELS } from './models/index.js';
import { noteRowChanges, TRACKED_MODELS, updatedWithoutNotes } from './rowChanges.js';
import { touchedDays } from './touchedDays.js';

/** The settings that shape the model tables: a change of either rebuilds them whole. */
export interface LedgerSettings {
  timeZone: string;
  pointValue: string | null;
}

/** What one update did. */
export interface LedgerUpdate {
  /** Whether the tables were rebuilt whole (first build, or program.timeZone or ledger.pointValue changed). */
  full: boolean;
  /** Per model, the day its rows were rebuilt from. */
  rebuiltFrom: Record<string, string>;
  /** Today in program.timeZone: the last day of the daily tables. */
  today: string;
  ms: number;
}

interface LedgerState {
  built_change_seq: number;
  time_zone: string;
  point_value: string | null;
  last_day: string | null;
}

/**
 * Registers `local_day(timestamp)`, the calendar day of an ISO timestamp in the program's zone, on `db`: SQLite
 * knows no time zones, and the models group by it. Needed by every statement of src/ledger that groups by day.
 */
export function registerLocalDay(db: Db, timeZone: string): (timestamp: string | null) => string | null {
  const localDay = createLocalDay(timeZone);
  db.function('local_day', { deterministic: true }, localDay);
  return localDay;
}

/**
 * Brings the model tables up to date with the mirror, in one transaction: each is rebuilt from the earliest day
 * that records changed since the last build touch (the last build's today at the latest, so today's row and the
 * days since are always written). Unclassified transactions found among the new ones are recorded as schema drift.
 */
export function updateLedger(db: Db, settings: LedgerSettings, now: Date): LedgerUpdate {
  const started = performance.now();
  const localDay = registerLocalDay(db, settings.timeZone);
  const today = dayFormatter(settings.timeZone)(now.getTime());
  return db
    .transaction((): LedgerUpdate => {
      const state = db.prepare('SELECT built_change_seq, time_zone, point_value, last_day FROM ledger_state WHERE id = 1').get() as LedgerState | undefined;
      const seq = db.prepare('SELECT value FROM change_counter WHERE id = 1').pluck().get() as number;
      const full = state === undefined || state.time_zone !== settings.timeZone || state.point_value !== settings.pointValue;
      if (full) {
        for (const model of MODELS) db.prepare(`DELETE FROM ${model.name}`).run();
        db.prepare('DELETE FROM ledger_members').run();
      }
      const afterSeq = full ? -1 : state.built_change_seq;
      const touched = touchedDays(db, afterSeq, full);

      // A version that keeps no notes updated the tables since this one last did: their rows' changes are unknown.
      if (!full && updatedWithoutNotes(db)) for (const model of TRACKED_MODELS) noteRowChanges(db, model, seq + 1, 'every');

      const rebuiltFrom: Record<string, string> = {};
      const ctx: BuildContext = { db, localDay, today, pointValue: settings.pointValue, movements: new DayMovementsTally(localDay), changeSeq: seq + 1 };
      for (const model of MODELS) {
        const from = full ? BEFORE_ALL_DAYS : earliest([state.last_day ?? today, today, ...model.touchedBy.map((source) => touched[source])]);
        model.rebuildFrom(ctx, from);
        rebuiltFrom[model.name] = from;
      }
      recordUnclassified(db, full ? ctx.movements.unclassifiedCounts() : newUnclassified(db, afterSeq), now.toISOString());
      const ms = Math.round(performance.now() - started);
      db.prepare(
        `INSERT INTO ledger_state (id, built_change_seq, time_zone, point_value, last_day, built_at, notes_built_at, build_ms, rebuilt_from)
         VALUES (1, @seq, @timeZone, @pointValue, @today, @at, @at, @ms, @from)
         ON CONFLICT (id) DO UPDATE SET built_change_seq = excluded.built_change_seq, time_zone = excluded.time_zone, point_value = excluded.point_value,
           last_day = excluded.last_day, built_at = excluded.built_at, notes_built_at = excluded.notes_built_at, build_ms = excluded.build_ms, rebuilt_from = excluded.rebuilt_from`,
      ).run({ seq, timeZone: settings.timeZone, pointValue: settings.pointValue, today, at: now.toISOString(), ms, from: earliest(Object.values(rebuiltFrom)) });
      return { full, rebuiltFrom, today, ms };
    })
    .immediate();
}

function earliest(days: ReadonlyArray<string | null>): string {
  return days.reduce<string>((min, day) => (day !== null && day < min ? day : min), '9999-12-31');
}

/** The unclassified transactions among those changed since `afterSeq`, by the index of `_change_seq`. */
function newUnclassified(db: Db, afterSeq: number): UnclassifiedCount[] {
  return db
    .prepare(`SELECT resource, activity_state AS state, count(*) AS count FROM transactions WHERE _change_seq > ? AND ${UNCLASSIFIED_SQL} GROUP BY resource, activity_state`)
    .all(afterSeq) as UnclassifiedCount[];
}

/** Transactions of a resource or activity state the ledger does not classify (counted as `other`) become schema drift. */
function recordUnclassified(db: Db, rows: readonly UnclassifiedCount[], at: string): void {
  const findings = new Map<string, DriftFinding>();
  for (const row of rows) {
    const unknownResource = !(CLASSIFIED_RESOURCES as readonly (string | null)[]).includes(row.resource);
    const path = unknownResource ? 'resource' : 'activity.state';
    const example = String(unknownResource ? row.resource : row.state);
    const key = `${path}\n${example}`;
    const finding = findings.get(key);
    if (finding !== undefined) finding.count += row.count;
    else findings.set(key, { stream: 'transactions', kind: 'enum_value', path, example, count: row.count });
  }
  recordDrift(db, [...findings.values()], at);
}
