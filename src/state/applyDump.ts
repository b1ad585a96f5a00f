import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createZstdDecompress } from 'node:zlib';
import type Database from 'better-sqlite3';
import type { Db } from '../db/open.js';
import { quoteName, WHOLE_TABLE } from './changeTracking.js';
import { decodeValue, DUMP_FORMAT, type DumpHeader, type DumpValue } from './dumpFormat.js';
import { StateError } from './errors.js';

/** Rows applied per transaction: few enough to keep a transaction's memory small, many enough to be fast. */
const ROWS_PER_TRANSACTION = 5000;

/**
 * Replays a dump file into `db`. A base builds its tables, fills them, then creates the indexes
 * (faster than filling indexed tables); a segment puts each row in place by rowid, deletes the rows
 * it lists as gone, and replaces its whole tables. Each row it touches is marked with the segment's
 * epoch, so a later merge of segments, made from this mirror, still finds it.
 */
export async function applyDump(db: Db, file: string, expect: { kind: 'base' | 'segment'; epoch: number; name: string }): Promise<number> {
  const lines = createInterface({ input: createReadStream(file).pipe(createZstdDecompress()), crlfDelay: Infinity });
  let header: DumpHeader | null = null;
  let statements: Array<{ put: Database.Statement; remove: Database.Statement | null }> = [];
  let mark: Database.Statement | null = null;
  let pending: unknown[][] = [];
  let rows = 0;

  const flush = (): void => {
    const batch = pending;
    pending = [];
    db.transaction(() => {
      for (const line of batch) {
        const [table, rid, ...values] = line as [number, number | null, ...DumpValue[]];
        const target = statements[table];
        if (target === undefined) throw new StateError(`The state's ${expect.name} names table number ${table}, which its header does not list; the dump is damaged.`);
        if (values.length === 0) target.remove?.run(rid);
        else if (rid === null) target.put.run(...values.map(decodeValue));
        else target.put.run(rid, ...values.map(decodeValue));
        if (mark !== null && header !== null) mark.run(header.tables[table].name, rid ?? WHOLE_TABLE, header.epoch);
      }
    })();
  };

  for await (const text of lines) {
    if (text === '') continue;
    if (header === null) {
      header = parseHeader(text, expect);
      const known = header;
      if (known.kind === 'base') for (const sql of (known.schema ?? []).filter((sql) => /^CREATE TABLE/i.test(sql))) db.exec(sql);
      else mark = db.prepare('INSERT INTO state_changes (tbl, rid, epoch) VALUES (?, ?, ?) ON CONFLICT (tbl, rid) DO UPDATE SET epoch = excluded.epoch');
      statements = known.tables.map((table) => {
        const names = table.columns.map(quoteName).join(', ');
        const marks = table.columns.map(() => '?').join(', ');
        const quoted = quoteName(table.name);
        if (table.whole) {
          // A whole table comes complete: what the mirror had of it is replaced. Marked here too, for a
          // table the segment emptied carries no row to mark, and a merge made from this mirror must empty it again.
          if (table.replaced) {
            db.prepare(`DELETE FROM ${quoted}`).run();
            mark?.run(table.name, WHOLE_TABLE, known.epoch);
          }
          return { put: db.prepare(`INSERT INTO ${quoted} (${names}) VALUES (${marks})`), remove: null };
        }
        return { put: db.prepare(`INSERT OR REPLACE INTO ${quoted} (rowid, ${names}) VALUES (?, ${marks})`), remove: db.prepare(`DELETE FROM ${quoted} WHERE rowid = ?`) };
      });
      continue;
    }
    pending.push(JSON.parse(text) as unknown[]);
    rows += 1;
    if (pending.length >= ROWS_PER_TRANSACTION) flush();
  }
  if (header === null) throw new StateError(`The state's ${expect.name} is empty; expected a ${DUMP_FORMAT} header.`);
  flush();
  if (header.kind === 'base') for (const sql of (header.schema ?? []).filter((sql) => !/^CREATE TABLE/i.test(sql))) db.exec(sql);
  return rows;
}

function parseHeader(text: string, expect: { kind: 'base' | 'segment'; epoch: number; name: string }): DumpHeader {
  let header: Partial<DumpHeader>;
  try {
    header = JSON.parse(text) as Partial<DumpHeader>;
  } catch {
    throw new StateError(`The state's ${expect.name} does not begin with a JSON header; the dump is damaged.`);
  }
  if (header.format !== DUMP_FORMAT || header.version !== 1) {
    throw new StateError(`The state's ${expect.name} is "${String(header.format)}" version ${String(header.version)}; expected ${DUMP_FORMAT} version 1 (a newer loyalty-sync wrote it?).`);
  }
  if (header.kind !== expect.kind || header.epoch !== expect.epoch || !Array.isArray(header.tables)) {
    throw new StateError(`The state's ${expect.name} holds a ${String(header.kind)} of epoch ${String(header.epoch)}; the state's manifest expected a ${expect.kind} of epoch ${expect.epoch}.`);
  }
  return header as DumpHeader;
}
