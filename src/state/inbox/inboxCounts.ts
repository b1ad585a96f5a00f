import type { Db } from '../../db/open.js';
import { inboxPath } from './layout.js';
import { refusedObjectPaths } from './refusedObjects.js';

/** What a file in the inbox now came to: its rows queued, refused whole, or bytes another name brought first. */
export const INBOX_FILE_OUTCOMES = ['imported', 'refused', 'duplicate'] as const;
export type InboxFileOutcome = (typeof INBOX_FILE_OUTCOMES)[number];

/** Marks a name the last listing did not show: its file was cleared from the inbox (inbox_names.listed_size). */
export const NOT_LISTED = -1;

interface ListedName {
  kind: string;
  name: string;
  outcome: 'imported' | 'refused';
  firstName: string;
}

function listedNames(db: Db): ListedName[] {
  return db
    .prepare(
      `SELECT n.kind, n.name, f.outcome, f.first_name AS firstName
       FROM inbox_names n JOIN inbox_files f ON f.id = n.file_id
       WHERE n.listed_size <> ${NOT_LISTED}
       ORDER BY n.kind, n.name`,
    )
    .all() as ListedName[];
}

/** Refused bytes are refused under any name (each gets the errors file); imported ones count once, under the name that brought them. */
function outcomeOf(name: ListedName): InboxFileOutcome {
  if (name.outcome === 'refused') return 'refused';
  return name.firstName === name.name ? 'imported' : 'duplicate';
}

/** Files in the inbox as of the last listing, by outcome: every outcome, 0 included. An object that is no inbox file counts as refused. */
export function countInboxFiles(db: Db): Record<InboxFileOutcome, number> {
  const counts: Record<InboxFileOutcome, number> = { imported: 0, refused: refusedObjectPaths(db).length, duplicate: 0 };
  for (const name of listedNames(db)) counts[outcomeOf(name)] += 1;
  return counts;
}

/** The paths of the files refused and still in the inbox as of the last listing: CSV files refused whole, and objects that are no inbox file. */
export function refusedInboxFiles(db: Db): string[] {
  const files = listedNames(db).filter((name) => outcomeOf(name) === 'refused').map((name) => inboxPath(name));
  return [...files, ...refusedObjectPaths(db)].sort();
}

/**
 * Records which names the listing showed: the others were cleared from the inbox and count no more. A name
 * put back later is read again, since its listed size no longer matches, and found known by its bytes.
 */
export function markUnlisted(db: Db, listed: ReadonlyArray<{ kind: string; name: string }>): void {
  const present = new Set(listed.map(({ kind, name }) => `${kind}\u0000${name}`));
  const names = db.prepare(`SELECT kind, name FROM inbox_names WHERE listed_size <> ${NOT_LISTED}`).all() as Array<{ kind: string; name: string }>;
  const mark = db.prepare(`UPDATE inbox_names SET listed_size = ${NOT_LISTED} WHERE kind = ? AND name = ?`);
  db.transaction(() => {
    for (const { kind, name } of names) if (!present.has(`${kind}\u0000${name}`)) mark.run(kind, name);
  })();
}
