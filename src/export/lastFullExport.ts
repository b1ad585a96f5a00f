import { STREAM_NAMES, type ExportFormat } from '../config.js';
import type { Db } from '../db/open.js';

export interface FullExport {
  runId: string;
  finishedAt: string;
}

/**
 * The newest succeeded full export that wrote every stream table in each of `formats`: what a plain
 * `export` or `once` writes. A one-table, `--since-last` or CSV-only run (when Parquet is configured too)
 * is not one. Null when there is none.
 */
export function lastFullExport(db: Db, formats: readonly ExportFormat[]): FullExport | null {
  const row = db
    .prepare(
      `SELECT r.run_id AS runId, r.finished_at AS finishedAt
       FROM export_runs r
       WHERE r.status = 'succeeded' AND r.kind = 'full'
         AND (SELECT count(DISTINCT t.table_name) FROM export_run_tables t
              WHERE t.run_id = r.run_id AND t.table_name IN (SELECT value FROM json_each(@tables))) = @tableCount
         AND (SELECT count(*) FROM json_each(@formats) f WHERE instr(',' || r.formats || ',', ',' || f.value || ',') > 0) = @formatCount
       ORDER BY r.finished_at DESC, r.run_id DESC LIMIT 1`,
    )
    .get({ tables: JSON.stringify(STREAM_NAMES), tableCount: STREAM_NAMES.length, formats: JSON.stringify(formats), formatCount: formats.length }) as FullExport | undefined;
  return row ?? null;
}

/** Whether two instants fall on the same calendar day in `timeZone` (an IANA name such as UTC or Europe/Paris). */
export function sameCalendarDay(a: Date, b: Date, timeZone: string): boolean {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return day.format(a) === day.format(b);
}
