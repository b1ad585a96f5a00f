import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { constants, createZstdCompress } from 'node:zlib';
import type { Db } from '../db/open.js';
import { quoteName, savedTables, UNSAVED_TABLES, WHOLE_TABLE } from './changeTracking.js';
import { DUMP_FORMAT, encodeValue, type DumpHeader } from './dumpFormat.js';

/** Rows read per step: the event loop breathes between steps, and memory holds one step's lines. */
const ROWS_PER_STEP = 2000;
/** zstd level 3 (its default) packs mirror rows about 4x at well over 100 MB/s on one core. */
const ZSTD_LEVEL = 3;

export interface WrittenDump {
  bytes: number;
  sha256: string;
  rows: number;
}

export type DumpRange = { kind: 'base'; epoch: number } | { kind: 'segment'; fromEpoch: number; epoch: number };

/**
 * Writes the dump of `range` from `reader` to `file`. The caller holds `reader` in one read
 * transaction, begun right after the epoch closed, so the dump is one instant of the mirror whatever
 * the writers do meanwhile: a segment's rows are those marked in its epochs or later, read as of that
 * instant. A row another connection (the sync's storage thread) changed between the close and the
 * snapshot is marked with the next epoch by then; it goes in this segment as the snapshot holds it, and
 * again in the next one, rather than in neither.
 */
export async function writeDump(reader: Db, range: DumpRange, file: string): Promise<WrittenDump> {
  const tables = savedTables(reader);
  // A segment carries a table without rowids only when one of its rows changed in the segment's epochs (or since).
  const shipped = tables.map(
    (table) =>
      range.kind === 'base' ||
      table.name === 'sqlite_sequence' ||
      (table.whole && reader.prepare('SELECT 1 FROM state_changes WHERE tbl = ? AND rid = ? AND epoch > ?').get(table.name, WHOLE_TABLE, range.fromEpoch) !== undefined),
  );
  const columns = tables.map((table) => (reader.prepare(`SELECT * FROM ${quoteName(table.name)} LIMIT 0`).columns() as Array<{ name: string }>).map((column) => column.name));
  const header: DumpHeader = {
    format: DUMP_FORMAT,
    version: 1,
    kind: range.kind,
    epoch: range.epoch,
    fromEpoch: range.kind === 'segment' ? range.fromEpoch : null,
    schema: range.kind === 'base' ? schemaStatements(reader) : null,
    tables: tables.map((table, index) => ({ name: table.name, columns: columns[index], whole: table.whole, replaced: table.whole && shipped[index] })),
  };
  let rows = 0;
  const lines = async function* (): AsyncGenerator<string> {
    yield `${JSON.stringify(header)}\n`;
    for (const [index, table] of tables.entries()) {
      const quoted = quoteName(table.name);
      let statement;
      if (range.kind === 'base' || table.name === 'sqlite_sequence') {
        statement = reader.prepare(table.whole ? `SELECT NULL, * FROM ${quoted}` : `SELECT rowid, * FROM ${quoted}`);
      } else if (table.whole) {
        if (!shipped[index]) continue;
        statement = reader.prepare(`SELECT NULL, * FROM ${quoted}`);
      } else {
        // A marked rowid whose row is gone was deleted: the LEFT JOIN gives it no values.
        statement = reader.prepare(
          `SELECT c.rid, t.rowid IS NOT NULL AS present, t.* FROM state_changes c LEFT JOIN ${quoted} t ON t.rowid = c.rid
           WHERE c.tbl = ? AND c.epoch > ? ORDER BY c.rid`,
        );
      }
      statement.raw(true).safeIntegers(true);
      const segmentRows = range.kind === 'segment' && !table.whole && table.name !== 'sqlite_sequence';
      const iterator = (segmentRows ? statement.iterate(table.name, range.fromEpoch) : statement.iterate()) as IterableIterator<unknown[]>;
      let chunk = '';
      let inChunk = 0;
      for (const row of iterator) {
        if (segmentRows) {
          const [rid, present, ...values] = row;
          chunk += JSON.stringify(present ? [index, encodeValue(rid as bigint), ...values.map((v) => encodeValue(v as never))] : [index, encodeValue(rid as bigint)]);
        } else {
          chunk += JSON.stringify([index, encodeValue(row[0] as bigint | null), ...row.slice(1).map((v) => encodeValue(v as never))]);
        }
        chunk += '\n';
        rows += 1;
        if (++inChunk >= ROWS_PER_STEP) {
          yield chunk;
          chunk = '';
          inChunk = 0;
        }
      }
      if (chunk !== '') yield chunk;
    }
  };
  const hash = createHash('sha256');
  let bytes = 0;
  const output = createWriteStream(file, { mode: 0o600 });
  const compressor = createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
  compressor.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.byteLength;
  });
  await pipeline(Readable.from(lines()), compressor, output);
  if (!output.closed) await once(output, 'close');
  return { bytes, sha256: hash.digest('hex'), rows };
}

/** CREATE statements of the saved tables, then of their indexes: what a restore builds before and after the rows. */
function schemaStatements(db: Db): string[] {
  const objects = db
    .prepare("SELECT type, name, tbl_name AS tableName, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid")
    .all() as Array<{ type: string; name: string; tableName: string; sql: string }>;
  return objects.filter((object) => !UNSAVED_TABLES.has(object.tableName) || object.tableName === 'instance_lock').map((object) => object.sql);
}
