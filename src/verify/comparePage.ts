import type { ApiRecord } from '../db/upsertRecords.js';
import { sameJson } from '../db/sameJson.js';
import type { StoredRow } from './mirrorRows.js';
import type { StreamTally } from './streamTally.js';
import type { SyncReach } from './syncReach.js';
import type { MirrorId } from './types.js';
import { toJsonText } from '../jsonText.js';

/**
 * Compares the API's records with the mirror's rows for the same ids and returns the records the mirror
 * lacks or holds differently (not those the next sync reads anyway): what a repair stores.
 * `stored` looks a row up by id.
 */
export function compareRecords(records: readonly ApiRecord[], stored: (id: MirrorId) => StoredRow | undefined, reach: SyncReach, tally: StreamTally): ApiRecord[] {
  const differing: ApiRecord[] = [];
  for (const record of records) {
    tally.seen(record.id);
    const row = stored(record.id);
    if (row !== undefined && !row.removed && sameRecord(row.raw, record)) {
      tally.compared += 1;
      continue;
    }
    if (reach.unsynced(record, row)) {
      tally.unsynced += 1;
      continue;
    }
    tally.compared += 1;
    if (row === undefined || row.removed) tally.missing.add(record.id);
    else tally.stale.add(record.id);
    differing.push(record);
  }
  return differing;
}

/**
 * The sync stores `toJsonText` (JSON.stringify) of the parsed record, so an unchanged record gives the same text;
 * only when it does not are the two compared by value (members in any order).
 */
function sameRecord(raw: string, record: ApiRecord): boolean {
  const text = toJsonText(record);
  return text === raw || sameJson(raw, text);
}
