import type { Db } from '../../db/open.js';
import type { StoredObject } from '../../bucket/objects.js';
import type { InboxName } from './layout.js';

export interface InboxNameRecord {
  fileId: number;
  listedSize: number;
  listedModifiedMs: number;
  /** '' when not known. */
  listedEtag: string;
}

/** What a listing said of a name; a `modifiedMs` of 0 says nothing, so the name is read again. */
export type ListedAs = Pick<StoredObject, 'size' | 'modifiedMs' | 'etag'>;

export function findInboxName(db: Db, place: InboxName): InboxNameRecord | undefined {
  return db
    .prepare('SELECT file_id AS fileId, listed_size AS listedSize, listed_modified_ms AS listedModifiedMs, listed_etag AS listedEtag FROM inbox_names WHERE kind = ? AND name = ?')
    .get(place.kind, place.name) as InboxNameRecord | undefined;
}

/**
 * Whether the listing shows the object as it was when its bytes were last read. A store that gives no
 * modification time (0) cannot say so, and its files are read every run. Its tag, where both readings have
 * one, tells apart bytes of the same size written within the same second (listings give whole seconds).
 */
export function listedAsBefore(record: InboxNameRecord, listed: ListedAs): boolean {
  const sameTag = record.listedEtag === '' || listed.etag === undefined || record.listedEtag === listed.etag;
  return listed.modifiedMs !== 0 && record.listedModifiedMs === listed.modifiedMs && record.listedSize === listed.size && sameTag;
}

/** The name now holds this file's bytes, as listed. What was written beside it stays recorded, so an unchanged answer is not written again. */
export function pointInboxName(db: Db, place: InboxName, fileId: number, listed: ListedAs, now: Date): void {
  db.prepare(
    `INSERT INTO inbox_names (kind, name, file_id, listed_size, listed_modified_ms, listed_etag, seen_at)
     VALUES (@kind, @name, @fileId, @size, @modifiedMs, @etag, @at)
     ON CONFLICT (kind, name) DO UPDATE SET
       file_id = excluded.file_id, listed_size = excluded.listed_size, listed_modified_ms = excluded.listed_modified_ms, listed_etag = excluded.listed_etag,
       seen_at = CASE WHEN file_id = excluded.file_id THEN seen_at ELSE excluded.seen_at END`,
  ).run({ kind: place.kind, name: place.name, fileId, size: listed.size, modifiedMs: listed.modifiedMs, etag: listed.etag ?? '', at: now.toISOString() });
}
