import type { Db } from '../../db/open.js';
import type { DayMovementsTally } from '../dayMovements.js';

/**
 * A column's type for readers and exports: `date` is ISO `YYYY-MM-DD` text in the mirror; `decimal` is exact
 * decimal text (money); `real` a share from 0 to 1; `json` an object as JSON text.
 */
export type ModelColumnType = 'date' | 'integer' | 'decimal' | 'real' | 'json';

export interface ModelColumn {
  name: string;
  type: ModelColumnType;
  /** Whether the column may hold NULL. */
  nullable: boolean;
  /** One line for the README and the export's documentation. */
  doc: string;
}

/** What a rebuild needs besides the mirror: the days and settings of this build. */
export interface BuildContext {
  db: Db;
  /** The calendar day in program.timeZone of a timestamp: the function registered as `local_day`. */
  localDay: (timestamp: string | null) => string | null;
  /** Today in program.timeZone: the last row of the daily tables. */
  today: string;
  /** ledger.pointValue; null: no liability amounts. */
  pointValue: string | null;
  /**
   * The program's movements by day: customer_points_daily's rebuild tallies them as it reads the transactions, and
   * points_ledger_daily, rebuilt after it from the same day, takes them.
   */
  movements: DayMovementsTally;
  /** The change counter value the rows this build writes are noted under (ledger_row_changes): one past the sync's. */
  changeSeq: number;
}

/**
 * A model table, declared like a stream: its name, key and columns, and the one operation that brings it up to
 * date, replacing its rows from a given day on (earlier rows stay). Models are rebuilt in the order of the
 * registry, so one may read the tables before it.
 */
export interface ModelDefinition {
  name: string;
  key: readonly string[];
  columns: readonly ModelColumn[];
  /** What its rows are made of: a change to any of these rebuilds it from the earliest day the change touches. */
  touchedBy: ReadonlyArray<'transactions' | 'orders' | 'members'>;
  /** Replaces every row of `from` and later (up to `ctx.today`); run inside the build's transaction. */
  rebuildFrom(ctx: BuildContext, from: string): void;
}

export function column(name: string, type: ModelColumnType, doc: string, nullable = false): ModelColumn {
  return { name, type, nullable, doc };
}
