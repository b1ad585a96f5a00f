import { STREAM_NAMES, type StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import { MODELS, MODEL_NAMES, type ModelDefinition } from '../ledger/models/index.js';
import { STREAMS, type ColumnType } from '../streams/index.js';

/** The five mirror streams and the model tables (src/ledger/models), plus the write queue when asked for by name. */
export const EXPORT_TABLES = [...STREAM_NAMES, ...MODEL_NAMES, 'write_jobs'] as const;
/** A name of EXPORT_TABLES (isExportTable checks one); the models' names are known at run time only. */
export type ExportTable = (typeof EXPORT_TABLES)[number];

/** What a plain export writes: every stream and every model. */
export const DEFAULT_EXPORT_TABLES: readonly ExportTable[] = [...STREAM_NAMES, ...MODEL_NAMES];

/** A stream mirrors the API; a model is derived from the streams (the points ledger); the queue holds our writes. */
export type TableKind = 'stream' | 'model' | 'queue';

export function isExportTable(name: string): name is ExportTable {
  return (EXPORT_TABLES as readonly string[]).includes(name);
}

/** The streams' types, and the models' `date` (ISO `YYYY-MM-DD` text in the mirror) and `real` (a share). */
export type ExportColumnType = ColumnType | 'date' | 'real';

export interface ExportColumn {
  name: string;
  type: ExportColumnType;
}

export interface TableSchema {
  table: ExportTable;
  kind: TableKind;
  columns: ExportColumn[];
  /** Whether rows carry `_change_seq`, so a since-last export can pick the changed ones. */
  tracksChanges: boolean;
}

/** Columns that full-walk streams keep beside the record, so a loader sees when an entry left the list. */
const TOMBSTONE_COLUMNS: readonly ExportColumn[] = [
  { name: 'first_seen_at', type: 'timestamp' },
  { name: 'last_seen_at', type: 'timestamp' },
  { name: 'removed_at', type: 'timestamp' },
];

const BOOKKEEPING_COLUMNS: readonly ExportColumn[] = [
  { name: 'raw', type: 'json' },
  { name: '_synced_at', type: 'timestamp' },
  { name: '_change_seq', type: 'integer' },
  // Set by verify when the API no longer has the row; a loader treats such a row as deleted upstream.
  { name: '_removed_at', type: 'timestamp' },
];

/** The export schema of a table, from the stream's column map (or, for write_jobs, the table's declared columns). */
export function tableSchema(db: Db, table: ExportTable): TableSchema {
  const declared = declaredColumns(db, table);
  if (declared.length === 0) {
    throw new Error(
      table === 'write_jobs'
        ? 'Table write_jobs does not exist in the mirror yet (the write-queue migration creates it); export the streams only, or run a newer version.'
        : `Table ${table} does not exist in the mirror; the database is not a loyalty-sync mirror.`,
    );
  }
  if (table === 'write_jobs') {
    return { table, kind: 'queue', columns: declared.map(inferColumn), tracksChanges: declared.some((column) => column.name === '_change_seq') };
  }
  const model = MODELS.find((candidate) => candidate.name === table);
  // A model is rebuilt from a day on, not tracked row by row: every export takes it whole.
  const [kind, columns, tracksChanges] = model === undefined ? (['stream', streamColumns(table as StreamName), true] as const) : (['model', modelColumns(model), false] as const);
  const present = new Set(declared.map((column) => column.name));
  const absent = columns.filter((column) => !present.has(column.name)).map((column) => column.name);
  if (absent.length > 0) throw new Error(`Table ${table} lacks column(s) ${absent.join(', ')}; the mirror schema is older than this export expects.`);
  return { table, kind, columns, tracksChanges };
}

function modelColumns(model: ModelDefinition): ExportColumn[] {
  return model.columns.map(({ name, type }) => ({ name, type }));
}

function streamColumns(name: StreamName): ExportColumn[] {
  const stream = STREAMS[name];
  return [
    { name: 'id', type: stream.keyType === 'integer' ? 'integer' : 'text' },
    ...stream.columns.map(({ name: column, type }) => ({ name: column, type })),
    ...(stream.strategy.kind === 'full-walk' ? TOMBSTONE_COLUMNS : []),
    ...BOOKKEEPING_COLUMNS,
  ];
}

interface DeclaredColumn {
  name: string;
  type: string;
}

function declaredColumns(db: Db, table: string): DeclaredColumn[] {
  return db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(table) as DeclaredColumn[];
}

/** Tables without a column map: INTEGER stays an integer, `*_at` columns are timestamps, the rest text. */
function inferColumn(column: DeclaredColumn): ExportColumn {
  if (/INT/i.test(column.type)) return { name: column.name, type: 'integer' };
  if (column.name.endsWith('_at')) return { name: column.name, type: 'timestamp' };
  return { name: column.name, type: 'text' };
}
