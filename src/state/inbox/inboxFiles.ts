import type { Db } from '../../db/open.js';
import type { QueuedRow } from '../../queue/importCsv.js';

export type InboxOutcome = 'imported' | 'refused';

export interface InboxFile {
  id: number;
  outcome: InboxOutcome;
}

/** The file of this kind folder with these bytes, if any name ever held them. */
export function findInboxFile(db: Db, kind: string, sha256: string): InboxFile | undefined {
  return db.prepare('SELECT id, outcome FROM inbox_files WHERE kind = ? AND sha256 = ?').get(kind, sha256) as InboxFile | undefined;
}

interface NewInboxFile {
  kind: string;
  sha256: string;
  size: number;
  firstName: string;
  now: Date;
}

/** Records a file whose rows were queued, with the job each row is linked to, in the file's order. */
export function recordImportedFile(db: Db, file: NewInboxFile & { columns: string[]; rows: QueuedRow[] }): number {
  const { id } = db
    .prepare(
      `INSERT INTO inbox_files (kind, sha256, size, first_name, seen_at, outcome, columns)
       VALUES (?, ?, ?, ?, ?, 'imported', ?) RETURNING id`,
    )
    .get(file.kind, file.sha256, file.size, file.firstName, file.now.toISOString(), JSON.stringify(file.columns)) as { id: number };
  const link = db.prepare('INSERT INTO inbox_rows (file_id, position, line, cells, job_id) VALUES (?, ?, ?, ?, ?)');
  file.rows.forEach((row, position) => link.run(id, position, row.line, JSON.stringify(row.cells), row.jobId));
  return id;
}

/** Records a file refused whole, with its problems as the errors file will say them. */
export function recordRefusedFile(db: Db, file: NewInboxFile & { errors: string }): number {
  const { id } = db
    .prepare(
      `INSERT INTO inbox_files (kind, sha256, size, first_name, seen_at, outcome, errors)
       VALUES (?, ?, ?, ?, ?, 'refused', ?) RETURNING id`,
    )
    .get(file.kind, file.sha256, file.size, file.firstName, file.now.toISOString(), file.errors) as { id: number };
  return id;
}
