import type { StateStore } from '../store/stateStore.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { resultsPath } from './layout.js';
import { resultsCsv } from './resultsCsv.js';
import { sha256Hex } from './sha256.js';

export interface OutboxReport {
  /** Results files written this run (outbox/KIND/NAME.results.csv). */
  written: string[];
  /** Imported files with a job still queued or running: their results come later. */
  waiting: number;
}

interface ImportedName {
  kind: string;
  name: string;
  fileId: number;
  columns: string;
  resultsSha256: string | null;
}

/**
 * Writes the results file of every imported inbox file whose rows have all left queued and running, when
 * its text differs from what was last written there: a first outcome, or a later change (an unknown job
 * resolved, a dead one retried). A run with nothing new writes nothing. The digest is recorded only once
 * the store accepted the file, so a failed write is tried again by the next run.
 */
export async function writeOutbox(db: Db, objects: StateStore, logger: Logger): Promise<OutboxReport> {
  const names = db
    .prepare(
      `SELECT n.kind, n.name, n.file_id AS fileId, f.columns, n.results_sha256 AS resultsSha256
       FROM inbox_names n JOIN inbox_files f ON f.id = n.file_id
       WHERE f.outcome = 'imported'
       ORDER BY n.kind, n.name`,
    )
    .all() as ImportedName[];
  const record = db.prepare('UPDATE inbox_names SET results_sha256 = ?, results_written_at = ? WHERE kind = ? AND name = ? AND file_id = ?');
  const report: OutboxReport = { written: [], waiting: 0 };
  for (const place of names) {
    const text = resultsCsv(db, place.fileId, JSON.parse(place.columns) as string[]);
    if (text === null) {
      report.waiting++;
      continue;
    }
    const body = Buffer.from(text, 'utf8');
    const digest = sha256Hex(body);
    if (digest === place.resultsSha256) continue;
    const path = resultsPath(place);
    await objects.putBytes(path, body, digest, 'text/csv; charset=utf-8');
    record.run(digest, new Date().toISOString(), place.kind, place.name, place.fileId);
    report.written.push(path);
  }
  if (report.written.length > 0) logger.info({ written: report.written.length, waiting: report.waiting }, `write inbox: ${report.written.length} results file(s) written to outbox/`);
  return report;
}
