import type { Db } from '../db/open.js';
import type { StreamDefinition } from '../streams/index.js';
import type { MirrorId } from './types.js';

/** A mirror row as verify compares it. */
export interface StoredRow {
  id: MirrorId;
  raw: string;
  /** Marked gone (`_removed_at`, or an unsubscribe's `removed_at`): the mirror no longer claims the row. */
  removed: boolean;
  /** Unsubscribes: when a walk last saw the address. */
  lastSeenAt: string | null;
}

interface RowOut {
  id: MirrorId;
  raw: string;
  removed: number;
  lastSeenAt: string | null;
}

/** The mirror rows verify reads: by id span, by id, and the ids no page covered. */
export interface MirrorRows {
  inSpan(low: number, high: number): Map<MirrorId, StoredRow>;
  byId(id: MirrorId): StoredRow | undefined;
  /** Ids of rows still present with `above < id < below` (a null bound is open). */
  presentIdsBetween(above: number | null, below: number | null): IterableIterator<MirrorId>;
  presentCount(): number;
  /** Smallest and largest id still present; null when none is. */
  idRange(): { low: number; high: number } | null;
  /** The since_id whose first page holds the newest `pageSize` rows present (0 when fewer are). */
  newestPageSince(pageSize: number): number;
  /** Every row still present; read it through before touching the mirror again (the connection is busy meanwhile). */
  presentRows(): IterableIterator<StoredRow>;
}

export function createMirrorRows(db: Db, stream: StreamDefinition): MirrorRows {
  const walk = stream.strategy.kind === 'full-walk';
  const removed = walk ? '(_removed_at IS NOT NULL OR removed_at IS NOT NULL)' : '_removed_at IS NOT NULL';
  const columns = `id, raw, ${removed} AS removed, ${walk ? 'last_seen_at' : 'NULL'} AS lastSeenAt`;
  const present = `NOT ${removed}`;
  const span = db.prepare(`SELECT ${columns} FROM ${stream.name} WHERE id >= ? AND id <= ?`);
  const one = db.prepare(`SELECT ${columns} FROM ${stream.name} WHERE id = ?`);
  const all = db.prepare(`SELECT id FROM ${stream.name} WHERE ${present}`).pluck();
  const allRows = db.prepare(`SELECT ${columns} FROM ${stream.name} WHERE ${present}`);
  const between = {
    both: db.prepare(`SELECT id FROM ${stream.name} WHERE id > ? AND id < ? AND ${present}`).pluck(),
    above: db.prepare(`SELECT id FROM ${stream.name} WHERE id > ? AND ${present}`).pluck(),
    below: db.prepare(`SELECT id FROM ${stream.name} WHERE id < ? AND ${present}`).pluck(),
  };
  const count = db.prepare(`SELECT count(*) FROM ${stream.name} WHERE ${present}`).pluck();
  const range = db.prepare(
    `SELECT (SELECT id FROM ${stream.name} WHERE ${present} ORDER BY id LIMIT 1) AS low, (SELECT id FROM ${stream.name} WHERE ${present} ORDER BY id DESC LIMIT 1) AS high`,
  );
  const nth = db.prepare(`SELECT id FROM ${stream.name} WHERE ${present} ORDER BY id DESC LIMIT 1 OFFSET ?`).pluck();
  const toStored = (row: RowOut): StoredRow => ({ id: row.id, raw: row.raw, removed: row.removed === 1, lastSeenAt: row.lastSeenAt });
  return {
    inSpan(low, high) {
      const rows = new Map<MirrorId, StoredRow>();
      for (const row of span.iterate(low, high) as IterableIterator<RowOut>) rows.set(row.id, toStored(row));
      return rows;
    },
    byId(id) {
      const row = one.get(id) as RowOut | undefined;
      return row === undefined ? undefined : toStored(row);
    },
    presentIdsBetween(above, below) {
      if (above !== null && below !== null) return between.both.iterate(above, below) as IterableIterator<MirrorId>;
      if (above !== null) return between.above.iterate(above) as IterableIterator<MirrorId>;
      if (below !== null) return between.below.iterate(below) as IterableIterator<MirrorId>;
      return all.iterate() as IterableIterator<MirrorId>;
    },
    presentCount() {
      return count.get() as number;
    },
    idRange() {
      const { low, high } = range.get() as { low: number | null; high: number | null };
      return low === null || high === null ? null : { low, high };
    },
    newestPageSince(pageSize) {
      const id = nth.get(pageSize - 1) as number | undefined;
      return id === undefined ? 0 : id - 1;
    },
    *presentRows() {
      for (const row of allRows.iterate() as IterableIterator<RowOut>) yield toStored(row);
    },
  };
}
