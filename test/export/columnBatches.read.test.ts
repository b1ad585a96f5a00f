import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readColumnBatches, type BatchColumn, type ColumnBatch } from '../../src/export/columnBatches.js';
import { tempDir } from './helpers.js';

/** Rowids at both ends of the 64-bit range, beyond 2^53, and with gaps; texts that are empty, NULL, multi-byte and long. */
const ROWS: Array<{ id: bigint; n: number | null; s: string | null; seq: number }> = [
  { id: -(2n ** 63n), n: 1, s: 'first', seq: 2 },
  { id: -5n, n: null, s: '', seq: 1 },
  { id: 0n, n: -42, s: null, seq: 3 },
  { id: 7n, n: 2 ** 40, s: 'a,b "c"\nline', seq: 1 },
  { id: 2n ** 53n + 1n, n: 0, s: 'é漢字🙂', seq: 4 },
  { id: 2n ** 62n, n: 5, s: 'x'.repeat(20_000), seq: 2 },
  { id: 2n ** 63n - 1n, n: 6, s: 'last', seq: 5 },
];

const COLUMNS: BatchColumn[] = [
  // Read as text, the rowid comes back exact even beyond 2^53.
  { name: 'id', read: 'text' },
  { name: 'n', read: 'values' },
  { name: 's', read: 'text' },
];

function mirrorWithRows(): Database.Database {
  const db = new Database(join(tempDir(), 'batches.db'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, s TEXT, _change_seq INTEGER NOT NULL); CREATE INDEX t_change_seq ON t (_change_seq)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
  // Inserted out of order, so storage order is the rowid order and not the insertion order.
  for (const row of [...ROWS].reverse()) insert.run(row.id, row.n, row.s, row.seq);
  return db;
}

/** The batches put back together as rows: [id text, n, s]. */
function rowsOf(batches: Iterable<ColumnBatch>): { rows: Array<[string | null, number | string | null, string | null]>; sizes: number[] } {
  const rows: Array<[string | null, number | string | null, string | null]> = [];
  const sizes: number[] = [];
  const decoder = new TextDecoder();
  for (const batch of batches) {
    sizes.push(batch.length);
    const texts = batch.columns.map((piece) => {
      if (piece.kind !== 'text') return null;
      let offset = 0;
      return piece.lengths.map((length) => {
        if (length === null) return null;
        const text = decoder.decode(piece.bytes.subarray(offset, offset + length));
        offset += length;
        return text;
      });
    });
    const numbers = batch.columns[1];
    if (numbers.kind !== 'values') throw new Error('n should come as values');
    for (let i = 0; i < batch.length; i += 1) rows.push([texts[0]![i], numbers.values[i], texts[2]![i]]);
  }
  return { rows, sizes };
}

describe('reading a table column by column in batches', () => {
  const db = mirrorWithRows();

  it.each([1, 2, 3, 100])('returns every row once, in rowid order, aligned across columns (%i rows per batch)', (batchRows) => {
    const { rows, sizes } = rowsOf(readColumnBatches(db, 't', COLUMNS, null, batchRows));
    expect(rows).toEqual(ROWS.map((row) => [String(row.id), row.n, row.s]));
    expect(sizes.every((size) => size <= batchRows)).toBe(true);
    expect(sizes.length).toBe(Math.ceil(ROWS.length / batchRows));
  });

  it('keeps only rows changed after a change sequence, still in rowid order although _change_seq has an index', () => {
    const { rows } = rowsOf(readColumnBatches(db, 't', COLUMNS, 1, 2));
    expect(rows).toEqual(ROWS.filter((row) => row.seq > 1).map((row) => [String(row.id), row.n, row.s]));
  });

  it('turns text that is not valid UTF-8 into valid UTF-8, with U+FFFD for the broken bytes, and leaves its neighbours alone', () => {
    const broken = new Database(join(tempDir(), 'broken.db'));
    broken.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, s TEXT, _change_seq INTEGER NOT NULL)');
    // Half a surrogate pair, as JSON can carry it, and a byte that starts no UTF-8 character.
    broken.prepare('INSERT INTO t VALUES (1, 1, ?, 1)').run(JSON.parse('"Zo\\ud83d!"') as string);
    broken.exec("INSERT INTO t VALUES (2, 2, CAST(X'ff61' AS TEXT), 1), (3, 3, 'fine é', 1)");
    const [batch] = [...readColumnBatches(broken, 't', COLUMNS, null, 10)];
    const text = batch.columns[2];
    if (text.kind !== 'text') throw new Error('s should come as text');
    expect(isUtf8(text.bytes)).toBe(true);
    // How many U+FFFD stand for one broken sequence is the decoder's choice (Node 20 wrote three here,
    // Node 24 writes one), so the test asserts what a reader sees: the broken bytes replaced, the rest intact.
    const [zo, ff, fine] = rowsOf([batch]).rows.map((row) => row[2]);
    expect(zo).toMatch(/^Zo\uFFFD+!$/);
    expect(ff).toMatch(/^\uFFFD+a$/);
    expect(fine).toBe('fine é');
  });

  it('yields nothing for an empty table or when nothing changed', () => {
    expect([...readColumnBatches(db, 't', COLUMNS, 5, 2)]).toEqual([]);
    db.exec('CREATE TABLE empty (id INTEGER PRIMARY KEY, n INTEGER, s TEXT, _change_seq INTEGER)');
    expect([...readColumnBatches(db, 'empty', COLUMNS, null, 2)]).toEqual([]);
  });
});
