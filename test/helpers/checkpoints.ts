import { STREAM_NAMES, type StreamName } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { decodeCursor } from '../../src/simulator/cursor.js';
import type { SimulatorHandle, SimulatorStats } from '../../src/simulator/index.js';
import type { Pass, Plan } from '../../src/sync/types.js';

/** The API path each stream is read from, as the simulator counts requests. */
const STREAM_PATHS: Readonly<Record<StreamName, string>> = {
  customers: '/v2/customers',
  orders: '/v2/orders',
  activities: '/v2/activities',
  transactions: '/v2/transactions',
  unsubscribes: '/v2/loyalty_emails/unsubscribes',
};

export type StreamCounts = Record<StreamName, number>;

/**
 * Where one stream of a mirror's first sync stands, read from `sync_state`: never stored a page, in the
 * middle of a pass (its first read, or a later run's re-read after it completed once), or complete.
 */
type Standing = { kind: 'untouched' } | { kind: 'under way'; pass: Pass; cursor: string; completedOnce: boolean } | { kind: 'complete' };

interface StateRow {
  pass_state: string | null;
  cursor: string | null;
  last_success_at: string | null;
}

function standingOf(db: Db, stream: StreamName): Standing {
  const row = db.prepare('SELECT pass_state, cursor, last_success_at FROM sync_state WHERE stream = ?').get(stream) as StateRow | undefined;
  const plan = row?.pass_state == null ? null : (JSON.parse(row.pass_state) as Plan);
  if (plan === null) return row?.last_success_at == null ? { kind: 'untouched' } : { kind: 'complete' };
  const [pass] = plan.passes;
  // A first sync plans one pass per stream (a walk confirms only addresses that left, of which there are none).
  if (plan.passes.length !== 1 || pass === undefined || row?.cursor == null) throw new Error(`${stream}: a plan of ${plan.passes.length} passes at cursor ${row?.cursor}, not one pass under way`);
  return { kind: 'under way', pass, cursor: row.cursor, completedOnce: row.last_success_at !== null };
}

/** A truth record's place in a list read in ascending order: `[id]`, or `[updated_at ms, id]`. */
function keyOf(record: { id: number | string; updated_at?: string }, sort: 'id' | 'updated_at'): number[] {
  return sort === 'id' ? [Number(record.id)] : [Date.parse(String(record.updated_at)), Number(record.id)];
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/**
 * The truth's records of `stream` split at a stored checkpoint: those a read stopped at `cursor` has
 * passed, and those still ahead of it. A list cursor is the simulator's own (its position is a key);
 * a walk's is the next page number.
 */
function splitAt(sim: Pick<SimulatorHandle, 'truth'>, stream: StreamName, pass: Pass, cursor: string, pageSize: number): { passed: unknown[]; ahead: unknown[] } {
  const truth = sim.truth(stream) as Array<{ id: number | string; updated_at?: string }>;
  if (pass.kind === 'walk') {
    const done = (Number(cursor) - 1) * pageSize;
    return { passed: truth.slice(0, done), ahead: truth.slice(done) };
  }
  const state = decodeCursor(cursor, stream);
  if (state === null || state.dir !== 'asc' || state.back) throw new Error(`${stream}: the checkpoint's cursor ${cursor} is not an ascending simulator cursor`);
  const passed: unknown[] = [];
  const ahead: unknown[] = [];
  for (const record of truth) (compareKeys(keyOf(record, state.sort), state.position) <= 0 ? passed : ahead).push(record);
  return { passed, ahead };
}

/**
 * Requests that reading `rows` more rows costs: a list stops at its first short page (a full page
 * always offers `next`), a walk at its first empty page.
 */
function pagesFor(stream: StreamName, rows: number, pageSize: number): number {
  return stream === 'unsubscribes' ? Math.ceil(rows / pageSize) + 1 : Math.floor(rows / pageSize) + 1;
}

/**
 * Differences between what each checkpoint of a first sync claims and the rows the mirror holds, as
 * readable lines (empty when they agree): a stream never checkpointed holds nothing, one under way in
 * its first read holds exactly the truth's records its cursor has passed, and one that completed once
 * holds every record of the truth. The truth must not have changed since the sync began.
 */
export function checkpointProblems(db: Db, sim: Pick<SimulatorHandle, 'truth'>, pageSize: number): string[] {
  return STREAM_NAMES.flatMap((stream) => {
    const standing = standingOf(db, stream);
    const stored = new Set((db.prepare(`SELECT id FROM ${stream}`).pluck().all() as Array<number | string>).map(String));
    let claimed: unknown[];
    if (standing.kind === 'untouched') claimed = [];
    else if (standing.kind === 'complete' || standing.completedOnce) claimed = sim.truth(stream);
    else claimed = splitAt(sim, stream, standing.pass, standing.cursor, pageSize).passed;
    const ids = new Set(claimed.map((record) => String((record as { id: number | string }).id)));
    const missing = [...ids].filter((id) => !stored.has(id));
    const extra = [...stored].filter((id) => !ids.has(id));
    if (missing.length === 0 && extra.length === 0) return [];
    return [`${stream} (${standing.kind}): ${missing.length} rows before the checkpoint are not stored (${missing.slice(0, 3).join(', ')}), ${extra.length} stored rows lie beyond it (${extra.slice(0, 3).join(', ')})`];
  });
}

/** What the next run of an interrupted first sync has to read of one stream, by its checkpoint. */
export interface ResumeWork {
  /** Requests for the pages the checkpoint left unread: the whole list when the stream never stored a page. */
  pagesLeft: number;
  /** The stream stored a page: after its pages left, the run re-reads the overlap every incremental run reads. */
  thenOverlap: boolean;
}

/**
 * What the next run of an interrupted first sync has to read, from the checkpoints it left: a stream never
 * checkpointed reads all of its list; one under way reads the pages after its cursor, then the overlap; a
 * complete one reads the overlap only. The truth must not have changed since the sync began.
 */
export function resumeWork(db: Db, sim: Pick<SimulatorHandle, 'truth'>, pageSize: number): Record<StreamName, ResumeWork> {
  const work = {} as Record<StreamName, ResumeWork>;
  for (const stream of STREAM_NAMES) {
    const standing = standingOf(db, stream);
    if (standing.kind === 'complete') work[stream] = { pagesLeft: 0, thenOverlap: true };
    else if (standing.kind === 'untouched') work[stream] = { pagesLeft: pagesFor(stream, sim.truth(stream).length, pageSize), thenOverlap: false };
    else work[stream] = { pagesLeft: pagesFor(stream, splitAt(sim, stream, standing.pass, standing.cursor, pageSize).ahead.length, pageSize), thenOverlap: true };
  }
  return work;
}

/** The requests `work` costs each stream, given what an incremental run costs each on a complete mirror of the same truth (`overlap`). */
export function resumeCost(work: Record<StreamName, ResumeWork>, overlap: StreamCounts): StreamCounts {
  const cost = {} as StreamCounts;
  for (const stream of STREAM_NAMES) cost[stream] = work[stream].pagesLeft + (work[stream].thenOverlap ? overlap[stream] : 0);
  return cost;
}

/** The requests each stream's list received between two readings of the simulator's stats; every request must belong to one. */
export function requestsByStream(before: SimulatorStats, after: SimulatorStats): StreamCounts {
  const counts = {} as StreamCounts;
  for (const stream of STREAM_NAMES) counts[stream] = (after.byPath[STREAM_PATHS[stream]] ?? 0) - (before.byPath[STREAM_PATHS[stream]] ?? 0);
  const listed = Object.values(counts).reduce((sum, n) => sum + n, 0);
  if (listed !== after.requests - before.requests) throw new Error(`${after.requests - before.requests - listed} requests went to paths other than the five lists: ${JSON.stringify(after.byPath)}`);
  return counts;
}
