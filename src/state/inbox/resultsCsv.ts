import type { Db } from '../../db/open.js';
import type { JobState } from '../../queue/types.js';
import { csvLine } from './csvLine.js';

/** Columns the results file adds after the input's own. */
const RESULT_COLUMNS = ['job_id', 'state', 'message'];

interface ResultRow {
  cells: string;
  jobId: number;
  state: JobState;
  lastError: string | null;
}

/**
 * The results file of an imported inbox file: its columns and rows as written, each with the job that
 * holds it, the job's state, and for a dead job the API's message. Null while any of its jobs is still
 * queued or running: the outcome is written once it is known for every row. Under a name that only
 * repeated the bytes of `duplicateOf` (an inbox path), each row's message says so: its jobs are that file's.
 */
export function resultsCsv(db: Db, fileId: number, columns: readonly string[], duplicateOf: string | null = null): string | null {
  const rows = db
    .prepare(
      `SELECT r.cells, r.job_id AS jobId, j.state, j.last_error AS lastError
       FROM inbox_rows r JOIN write_jobs j ON j.id = r.job_id
       WHERE r.file_id = ? ORDER BY r.position`,
    )
    .all(fileId) as ResultRow[];
  if (rows.some((row) => row.state === 'queued' || row.state === 'running')) return null;
  const note = duplicateOf === null ? [] : [`duplicated ${duplicateOf}, queued nothing`];
  const message = (row: ResultRow) => [...note, ...(row.state === 'dead' ? [row.lastError ?? ''] : [])].join('; ');
  const lines = rows.map((row) => csvLine([...(JSON.parse(row.cells) as string[]), String(row.jobId), row.state, message(row)]));
  return csvLine([...columns, ...RESULT_COLUMNS]) + lines.join('');
}
