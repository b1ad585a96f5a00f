import type { ApiRecord } from '../db/upsertRecords.js';
import { sameJson } from '../db/sameJson.js';
import type { DifferenceJudge } from './differenceJudge.js';
import type { StoredRow } from './mirrorRows.js';
import type { StreamTally } from './streamTally.js';
import type { MirrorId } from './types.js';
import { toJsonText } from '../jsonText.js';

/**
 * Compares the API's records with the mirror's rows for the same ids, has `judge` class each difference as
 * pending or a defect, and returns the records a repair stores: every one the mirror lacks or holds
 * differently, except those the next sync reads as new anyway (storing one ahead of the sync would move its
 * watermark past rows not read yet). `stored` looks a row up by id.
 */
export function compareRecords(records: readonly ApiRecord[], stored: (id: MirrorId) => StoredRow | undefined, judge: DifferenceJudge, tally: StreamTally): ApiRecord[] {
  const differing: ApiRecord[] = [];
  for (const record of records) {
    tally.seen(record.id);
    const row = stored(record.id);
    if (row !== undefined && !row.removed && sameRecord(row.raw, record)) {
      tally.compared += 1;
      continue;
    }
    const verdict = judge.judge(record, row);
    if (verdict.class === 'deferred') tally.deferred += 1;
    else tally.judged(record.id, row === undefined || row.removed ? 'missing' : 'stale', verdict);
    if (verdict.class !== 'pending' || verdict.aheadOfSync !== true) differing.push(record);
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
