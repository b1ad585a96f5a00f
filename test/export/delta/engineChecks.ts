import { expect } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import type { ExportColumnType } from '../../../src/export/schema.js';
import { baseType, openWithEngine, type EngineVersion } from '../../helpers/deltaEngine.js';
import { engineRows, liveMirrorRows, mirrorColumnTypes, type ComparableRow } from './mirrorRows.js';

/** The engine's type (DESCRIBE, without Nullable) each mirror type must arrive as: a warehouse types the column by it. */
const ENGINE_TYPE: Record<ExportColumnType, string> = {
  integer: 'Int64',
  date: 'Date32',
  real: 'Float64',
  boolean: 'Bool',
  timestamp: 'DateTime64(6)',
  decimal: 'String',
  text: 'String',
  json: 'String',
};

/**
 * The real engine (chdb, Delta's own kernel) opens the table at `root`: its latest version holds exactly the
 * mirror's live rows of `table`, each column of the mirror's type and every value equal (timestamps to the
 * microsecond, booleans, money's exact text), and every version the log keeps opens with every row of it read
 * (from `dataFrom` on, when a vacuum removed the files of those before). `rows`, when given, are the rows
 * expected instead of the mirror's live ones (a table a killed run left at the mirror's earlier state).
 * Returns each version's row count, for tests that know what a version held.
 */
export function expectEngineReadsMirror(db: Db, table: string, root: string, opts: { dataFrom?: number; rows?: ComparableRow[] } = {}): EngineVersion[] {
  const { latest: read, versions } = openWithEngine(root, opts);
  const expected = [...mirrorColumnTypes(db, table)].map(([name, type]) => [name, ENGINE_TYPE[type]]).sort();
  const seen = read.columns.map((column) => [column.name, baseType(column.type)]).sort();
  expect(seen, `${table}: the engine's columns`).toEqual(expected);
  const mirror = opts.rows ?? liveMirrorRows(db, table);
  const rows = engineRows(read);
  expect(rows.length, `${table}: rows the engine reads`).toBe(mirror.length);
  // A table is a set of rows: the engine reads them in its files' order, a model's files need not follow the mirror's rowids.
  expect([...rows].sort(), `${table}: rows the engine reads`).toEqual([...mirror].sort());
  expect(versions.length, `${table}: versions the engine opens`).toBeGreaterThan(0);
  expect(versions.at(-1)?.rows, `${table}: the newest version's rows`).toBe(mirror.length);
  return versions;
}
