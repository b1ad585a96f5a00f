import type { StateStore, StoredObject } from '../store/stateStore.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { writeErrorsFiles } from './errorsFiles.js';
import { findInboxName, listedAsBefore } from './inboxNames.js';
import { markUnlisted } from './inboxCounts.js';
import { INBOX_FOLDER, inboxPathShape, type InboxName } from './layout.js';
import { queueInboxFile } from './queueInboxFile.js';
import { noteRefusedObjects } from './refusedObjects.js';
import { sha256Hex } from './sha256.js';

export interface InboxReport {
  /** Inbox files whose rows were queued this run. */
  imported: string[];
  /** Jobs those files added to the queue (rows already queued by an earlier file or command are not counted). */
  queued: number;
  /** Inbox files refused whole this run; each has its errors file beside it. */
  refused: string[];
  /** Inbox files whose bytes an earlier file already brought: nothing was imported again. */
  repeated: string[];
  /**
   * Objects under inbox/ that are not KIND/NAME.csv, seen for the first time or replaced this run: left alone,
   * with a sentence beside each, and counted as refused while they stay (refusedObjects.ts).
   */
  ignored: string[];
}

/**
 * Queues the rows of every CSV file put under inbox/KIND/ since the last run, each set of bytes exactly
 * once, and writes the errors of each refused file beside it. A file is read only when the listing shows
 * it new or changed; a name replaced with other bytes is a new file, and the same bytes under another name
 * are the file already imported. `now` times the queued jobs, as `queue import` does.
 */
export async function importInbox(db: Db, objects: StateStore, logger: Logger, now: Date = new Date()): Promise<InboxReport> {
  const report: InboxReport = { imported: [], queued: 0, refused: [], repeated: [], ignored: [] };
  const listed = (await objects.list(INBOX_FOLDER)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const files: InboxName[] = [];
  const others: StoredObject[] = [];
  for (const object of listed) {
    const shape = inboxPathShape(object.path);
    if (shape.shape === 'other') others.push(object);
    if (shape.shape !== 'file') continue;
    files.push(shape.place);
    const known = findInboxName(db, shape.place);
    if (known !== undefined && listedAsBefore(known, object)) continue;
    // Gone since the listing: the next listing says whether it comes back.
    const read = await objects.readVersion(object.path);
    if (read === null) continue;
    const { bytes } = read;
    const result = queueInboxFile(db, shape.place, bytes, sha256Hex(bytes), { listed: object, describesBytes: describes(object, read) }, now);
    if (result.outcome === 'imported') {
      report.imported.push(object.path);
      report.queued += result.created;
    } else if (result.outcome === 'refused') {
      report.refused.push(object.path);
    } else if (result.outcome === 'repeated') {
      report.repeated.push(object.path);
    }
  }
  markUnlisted(db, files);
  report.ignored = await noteRefusedObjects(db, objects, others, now);
  await writeErrorsFiles(db, objects);
  logReport(report, logger);
  return report;
}

/**
 * Whether the listing describes the bytes read: a store may list a replaced object before it serves the new bytes
 * (or serve them before it lists them). Recorded against bytes already known, the listing would pass the name as
 * read on every later run, and the bytes it names would never be queued (queueInboxFile).
 */
function describes(listed: StoredObject, read: { bytes: Buffer; etag?: string }): boolean {
  return listed.size === read.bytes.byteLength && (listed.etag === undefined || read.etag === undefined || listed.etag === read.etag);
}

function logReport(report: InboxReport, logger: Logger): void {
  for (const path of report.refused) logger.warn({ path }, `write inbox: ${path} refused, nothing queued; its problems are in the .errors.txt file beside it`);
  for (const path of report.repeated) logger.info({ path }, `write inbox: ${path} holds bytes already imported; nothing queued again`);
  if (report.imported.length > 0) logger.info({ files: report.imported.length, queued: report.queued }, `write inbox: ${report.imported.length} file(s) imported, ${report.queued} job(s) queued`);
  if (report.ignored.length > 0) {
    logger.warn(
      { count: report.ignored.length, example: report.ignored[0] },
      `write inbox: ${report.ignored.length} new object(s) under inbox/ are not KIND/NAME.csv and were left alone, e.g. ${report.ignored[0]}; each counts as refused while it stays, with its problem in the .errors.txt file beside it`,
    );
  }
}
