import type { Db } from '../db/open.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import type { StreamDefinition } from '../streams/index.js';
import { IdSpans } from './idSpans.js';

/**
 * What a deep refresh learns of rows the API no longer has. A page covers the ids from its smallest to its
 * largest; a mirror row inside that span that the page did not return is noted absent, unless another page
 * returns it (pages need not hold disjoint spans: a list ordered by time interleaves late-visible ids). Ids
 * only grow, so a row created after a span was read never falls inside it. Call inside the group's transaction.
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
  spans.add(low, high);
  const returned = new Set(ids);
  // Rows noted absent by an earlier page that this one returns are not absent after all.
  const noted = db.prepare('SELECT id FROM deep_refresh_absent WHERE stream = ? AND id BETWEEN ? AND ?').pluck().all(stream.name, low, high) as number[];
  const unnote = db.prepare('DELETE FROM deep_refresh_absent WHERE stream = ? AND id = ?');
  for (const id of noted) if (returned.has(id)) unnote.run(stream.name, id);
  // Every returned id was just stored, so the span holds exactly the page's ids unless some stored row is absent.
  const stored = db.prepare(`SELECT count(*) FROM ${stream.name} WHERE id BETWEEN ? AND ? AND _removed_at IS NULL`).pluck().get(low, high) as number;
  if (stored <= returned.size) return;
  const note = db.prepare('INSERT INTO deep_refresh_absent (stream, id) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const inSpan = db.prepare(`SELECT id FROM ${stream.name} WHERE id BETWEEN ? AND ? AND _removed_at IS NULL`).pluck().all(low, high) as number[];
  for (const id of inSpan) if (!returned.has(id)) note.run(stream.name, id);
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
