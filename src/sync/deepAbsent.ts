import type { Db } from '../db/open.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import type { StreamDefinition } from '../streams/index.js';
import { IdSpans } from './idSpans.js';

/**
 * What a deep refresh learns of rows the API no longer has. A page covers the ids from its smallest to its
 * largest; a mirror row inside that span that the page did not return is noted absent. Pages need not hold
 * disjoint spans (a list ordered by time interleaves late-visible ids), so a page judges only the ground no
 * earlier page covered: inside an earlier span a row was either returned, and is present whatever later
 * pages' spans cover, or already noted. A page that returns a noted row un-notes it. Ids only grow, so a row
 * created after a span was read never falls inside it. Call inside the group's transaction.
 */
export function noteAbsentRows(db: Db, stream: StreamDefinition, items: readonly ApiRecord[], spans: IdSpans): void {
  const ids = items.map((item) => item.id).filter((id): id is number => typeof id === 'number');
  if (ids.length === 0) return;
  let low = ids[0];
  let high = ids[0];
  for (const id of ids) {
    if (id < low) low = id;
    if (id > high) high = id;
  }
  const returned = new Set(ids);
  const noted = db.prepare('SELECT id FROM deep_refresh_absent WHERE stream = ? AND id BETWEEN ? AND ?').pluck().all(stream.name, low, high) as number[];
  const unnote = db.prepare('DELETE FROM deep_refresh_absent WHERE stream = ? AND id = ?');
  for (const id of noted) if (returned.has(id)) unnote.run(stream.name, id);
  const fresh = spans.uncovered(low, high);
  spans.add(low, high);
  for (const [from, to] of fresh) noteUnreturned(db, stream, from, to, returned);
}

/** Notes the present mirror rows in [from, to] that the page did not return. */
function noteUnreturned(db: Db, stream: StreamDefinition, from: number, to: number, returned: ReadonlySet<number>): void {
  // Every returned id was just stored, so the interval holds exactly the page's ids unless some stored row is absent.
  const stored = db.prepare(`SELECT count(*) FROM ${stream.name} WHERE id BETWEEN ? AND ? AND _removed_at IS NULL`).pluck().get(from, to) as number;
  let returnedInside = 0;
  for (const id of returned) if (id >= from && id <= to) returnedInside += 1;
  if (stored <= returnedInside) return;
  const note = db.prepare('INSERT INTO deep_refresh_absent (stream, id) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const inInterval = db.prepare(`SELECT id FROM ${stream.name} WHERE id BETWEEN ? AND ? AND _removed_at IS NULL`).pluck().all(from, to) as number[];
  for (const id of inInterval) if (!returned.has(id)) note.run(stream.name, id);
}

/**
 * When the refresh reached the end of the list: the rows between and below its spans were on no page either
 * (the list starts at since_id 0). Rows above the last span are newer than the read and left alone, unless
 * the list came back empty: then every row is absent, which the mass-removal rule refuses unless confirmed.
 */
export function noteRowsOutsideSpans(db: Db, stream: StreamDefinition, spans: IdSpans): void {
  const note = db.prepare(
    `INSERT INTO deep_refresh_absent (stream, id) SELECT ?, id FROM ${stream.name} WHERE id > ? AND id < ? AND _removed_at IS NULL ON CONFLICT DO NOTHING`,
  );
  const gaps = spans.gaps();
  for (const gap of gaps) {
    if (gap.below === null && gaps.length > 1) continue;
    note.run(stream.name, gap.above ?? Number.MIN_SAFE_INTEGER, gap.below ?? Number.MAX_SAFE_INTEGER);
  }
}

/** Rows noted absent that are still present in the mirror. */
export function countAbsent(db: Db, stream: StreamDefinition): number {
  return db
    .prepare(`SELECT count(*) FROM deep_refresh_absent a JOIN ${stream.name} r ON r.id = a.id WHERE a.stream = ? AND r._removed_at IS NULL`)
    .pluck()
    .get(stream.name) as number;
}

export function countPresentRows(db: Db, stream: StreamDefinition): number {
  return db.prepare(`SELECT count(*) FROM ${stream.name} WHERE _removed_at IS NULL`).pluck().get() as number;
}

/** Marks the rows noted absent removed, as `verify --repair` marks extras; returns how many. */
export function markAbsentRemoved(db: Db, stream: StreamDefinition, at: string, changeSeq: number): number {
  return db
    .prepare(
      `UPDATE ${stream.name} SET _removed_at = @at, _synced_at = @at, _change_seq = @seq
       WHERE _removed_at IS NULL AND id IN (SELECT id FROM deep_refresh_absent WHERE stream = @stream)`,
    )
    .run({ at, seq: changeSeq, stream: stream.name }).changes;
}
