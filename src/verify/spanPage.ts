import type { ApiRecord } from '../db/upsertRecords.js';
import { compareRecords } from './comparePage.js';
import type { IdSpans } from '../sync/idSpans.js';
import type { StreamVerifyContext } from './streamContext.js';
import type { MirrorId } from './types.js';

/**
 * Compares one page of an id-keyed list with the mirror rows in exactly the id span the page covers,
 * and repairs what differs when asked. Mirror rows in the span the page lacks are suspected extras,
 * unless an earlier span covered them (they were judged there). `skipCovered`: records inside an earlier
 * span were compared already (sampled windows that overlap); a full walk compares every record it gets.
 */
export function compareSpanPage(ctx: StreamVerifyContext, spans: IdSpans, records: readonly ApiRecord[], skipCovered: boolean): void {
  if (records.length === 0) return;
  ctx.noteDrift(records);
  let low = Infinity;
  let high = -Infinity;
  for (const record of records) {
    const id = record.id as number;
    if (id < low) low = id;
    if (id > high) high = id;
  }
  const rows = ctx.mirror.inSpan(low, high);
  const onPage = new Set<MirrorId>(records.map((record) => record.id));
  for (const row of rows.values()) {
    if (!row.removed && !onPage.has(row.id) && !spans.covers(row.id as number)) ctx.tally.suspectExtra(row.id);
  }
  const fresh = skipCovered ? records.filter((record) => !spans.covers(record.id as number)) : records;
  spans.add(low, high);
  const differing = compareRecords(fresh, (id) => rows.get(id), ctx.judge, ctx.tally);
  ctx.repairer?.store(differing);
}
