import type { Db } from '../../db/open.js';
import { csvText } from '../../queue/csvText.js';
import { importCsvRows, type RowProblem } from '../../queue/importCsv.js';
import { isJobKind, JOB_KINDS } from '../../queue/types.js';
import { findInboxFile, recordImportedFile, recordRefusedFile } from './inboxFiles.js';
import { findInboxName, pointInboxName, type ListedAs } from './inboxNames.js';
import { inboxPath, type InboxName } from './layout.js';

/** What the listing said of the name, and whether its size and tag are those of the bytes read. */
export interface InboxListing {
  listed: ListedAs;
  describesBytes: boolean;
}

/**
 * What became of bytes read from an inbox name: `unchanged` when the name already held them, `repeated`
 * when another name (or this one, earlier) brought the same bytes, which are not imported again.
 */
export type QueueOutcome = { outcome: 'imported'; created: number } | { outcome: 'refused' } | { outcome: 'repeated' } | { outcome: 'unchanged' };

/**
 * Queues the rows of one inbox file, or refuses it whole, and records which bytes the name holds, all in
 * one transaction: a crash before the commit leaves nothing queued and nothing recorded, so the next run
 * imports the file again from the start; after it, the file is known and never imported twice.
 */
export function queueInboxFile(db: Db, place: InboxName, bytes: Buffer, sha256: string, listing: InboxListing, now: Date): QueueOutcome {
  const { listed } = listing;
  return db
    .transaction((): QueueOutcome => {
      const known = findInboxName(db, place);
      const earlier = findInboxFile(db, place.kind, sha256);
      if (earlier !== undefined) {
        // Known bytes under a listing that does not describe them: maybe a read served before the replacement the
        // listing shows. Recorded with no time, the name is read again next run. New bytes are recorded as listed
        // whatever the tags say, so a store whose listings never agree with its reads does not read a file for ever.
        pointInboxName(db, place, earlier.id, listing.describesBytes ? listed : { size: listed.size, modifiedMs: 0 }, now);
        return { outcome: known?.fileId === earlier.id ? 'unchanged' : 'repeated' };
      }
      const file = { kind: place.kind, sha256, size: bytes.byteLength, firstName: place.name, now };
      if (!isJobKind(place.kind)) {
        const problem = `folder: "${place.kind}" is not a kind of write; expected ${inboxPath({ kind: 'KIND', name: place.name })} with KIND one of ${JOB_KINDS.join(', ')}`;
        pointInboxName(db, place, recordRefusedFile(db, { ...file, errors: `${problem}\n` }), listed, now);
        return { outcome: 'refused' };
      }
      const decoded = csvText(bytes);
      if (!decoded.ok) {
        pointInboxName(db, place, recordRefusedFile(db, { ...file, errors: errorsText([decoded.problem]) }), listed, now);
        return { outcome: 'refused' };
      }
      const result = importCsvRows(db, { kind: place.kind, file: `${place.name}.csv`, text: decoded.text, now });
      if (!result.ok) {
        pointInboxName(db, place, recordRefusedFile(db, { ...file, errors: errorsText(result.problems) }), listed, now);
        return { outcome: 'refused' };
      }
      pointInboxName(db, place, recordImportedFile(db, { ...file, columns: result.columns, rows: result.rows }), listed, now);
      return { outcome: 'imported', created: result.created };
    })
    .immediate();
}

/** One line per problem, as `queue import` prints them. */
function errorsText(problems: readonly RowProblem[]): string {
  return problems.map((problem) => `line ${problem.line}: ${problem.field}: ${problem.message}\n`).join('');
}
