import type { Db } from '../db/open.js';
import type { StreamName } from '../config.js';
import { recordDrift, type DriftFinding } from '../drift/index.js';
import { createRecordStore } from '../db/recordStore.js';
import { nextChangeSeq, type ApiRecord, type UpsertResult } from '../db/upsertRecords.js';
import { getStream, type StreamDefinition } from '../streams/index.js';
import { createCheckpointStore } from './checkpoint.js';
import { clearSignals, recordChangeSignals } from './changeSignals.js';
import { countAbsent, countPresentRows, markAbsentRemoved, noteAbsentRows, noteRowsOutsideSpans } from './deepAbsent.js';
import { completeDeepRefresh, saveDeepRefresh, type DeepPlan } from './deepRefreshState.js';
import { IdSpans } from './idSpans.js';
import type { DeepCheckpoint, GroupOutcome, PageGroup } from './storeMessages.js';
import { watermarkOf } from './storedFacts.js';
import { MassRemovalRefusedError, massRemovalProblem } from './massRemoval.js';
import { countPresent, countUnseen, tombstoneUnseen } from './tombstones.js';
import type { Plan } from './types.js';

/**
 * Stores groups of pages: their upserts and schema drift, then the checkpoint after the last page or,
 * when the plan is done, the stream's completion (and a finished walk's tombstones). Run it inside a
 * transaction: the rows, their drift and the checkpoint that points past them must commit together.
 */
export function createGroupStore(db: Db): (group: PageGroup) => GroupOutcome {
  const checkpoints = createCheckpointStore(db);
  const upserterOf = createRecordStore(db);

  return (group) => {
    const stream = getStream(group.stream);
    const upsert = upserterOf(stream);
    const seq = nextChangeSeq(db);
    const pages = group.bodies.map((body) => itemsOf(stream, body));
    const results = pages.map((items) => upsert(items, seq, group.at));
    const drift = recordDrift(db, [...group.drift, ...typeFindings(stream.name, results)], group.at);
    const { checkpoint } = group;
    if (checkpoint.kind === 'deep' || checkpoint.rest.wholeReadStartedAt === undefined) recordChangeSignals(db, stream, seq);
    if (checkpoint.kind === 'deep') return { results, drift, ...storeDeepCheckpoint(db, stream, checkpoint, pages, results, group, seq) };

    const { finished } = checkpoint;
    let rest: Plan = checkpoint.rest;
    let next = checkpoint.next;
    let removed = 0;
    if (finished?.kind === 'walk' && !finished.confirming && countUnseen(db, finished.startedAt) > 0) {
      rest = { ...rest, passes: [{ kind: 'walk', startedAt: finished.startedAt, confirming: true }, ...rest.passes] };
      next = null;
    }
    if (rest.passes.length > 0) {
      checkpoints.save(stream.name, rest, next, group.at);
    } else {
      // Only a walk that reached its end may tombstone what it did not see.
      if (finished?.kind === 'walk') {
        if (!group.removals.accepted) refuseMassRemoval(db, finished.startedAt, group.removals.maxShare);
        removed = tombstoneUnseen(db, finished.startedAt, group.at, seq);
      }
      if (rest.signalsThroughSeq !== undefined) clearSignals(db, rest.signalsThroughSeq);
      if (rest.wholeReadStartedAt !== undefined && stream.noUpdateFilter) completeDeepRefresh(db, stream.name, { startedAt: rest.wholeReadStartedAt, removed: 0 }, group.at);
      checkpoints.complete(stream.name, { watermark: watermarkOf(db, stream), refreshed: rest.refreshes, at: group.at });
    }
    return { results, rest, removed, drift };
  };
}

/**
 * A deep refresh's group: notes what its pages' spans say is absent and moves its own checkpoint; when the
 * group ends the list, marks the absent rows removed (under the mass-removal rule) and completes it.
 */
function storeDeepCheckpoint(
  db: Db,
  stream: StreamDefinition,
  checkpoint: DeepCheckpoint,
  pages: ApiRecord[][],
  results: readonly UpsertResult[],
  group: PageGroup,
  seq: number,
): { rest: Plan; removed: number; deep: DeepPlan } {
  const spans = IdSpans.from(checkpoint.plan.spans);
  for (const items of pages) noteAbsentRows(db, stream, items, spans);
  const plan: DeepPlan = { params: checkpoint.plan.params, spans: spans.list() };
  const rows = checkpoint.rows + results.reduce((sum, result) => sum + result.inserted + result.updated + result.unchanged, 0);
  const done = { rest: { passes: [], refreshes: false }, deep: plan };
  if (checkpoint.next !== null) {
    saveDeepRefresh(db, stream.name, { plan, cursor: checkpoint.next, startedAt: checkpoint.startedAt, pages: checkpoint.pages + pages.length, rows }, group.at);
    return { ...done, removed: 0 };
  }
  noteRowsOutsideSpans(db, stream, spans);
  if (!group.removals.accepted) {
    const problem = massRemovalProblem(countAbsent(db, stream), countPresentRows(db, stream), group.removals.maxShare, `stored ${stream.name}`);
    if (problem !== null) {
      throw new MassRemovalRefusedError(`the deep refresh of ${stream.name} ${problem}, so nothing was marked; if the API really no longer has them, confirm with sync --deep --accept-removals`);
    }
  }
  const removed = markAbsentRemoved(db, stream, group.at, seq);
  completeDeepRefresh(db, stream.name, { startedAt: checkpoint.startedAt, removed }, group.at);
  return { ...done, removed };
}

/** The values of the wrong type the pages held, one schema drift finding per field (the storage thread is where they are met). */
function typeFindings(stream: StreamName, results: readonly UpsertResult[]): DriftFinding[] {
  const byPath = new Map<string, DriftFinding>();
  for (const result of results) {
    for (const { path, count, example } of result.mistypedColumns.values()) {
      const finding = byPath.get(path);
      if (finding !== undefined) finding.count += count;
      else byPath.set(path, { stream, kind: 'type', path, example, count });
    }
  }
  return [...byPath.values()];
}

/**
 * Throws, so the group rolls back and nothing is marked, when the walk would tombstone more of the list than
 * one run may without a confirmation. Every run fails the same way until the list comes back or
 * `--accept-removals` confirms it; each walks the whole list again (storeWorker drops the walk's plan).
 */
function refuseMassRemoval(db: Db, walkStartedAt: string, maxShare: number): void {
  const problem = massRemovalProblem(countUnseen(db, walkStartedAt), countPresent(db), maxShare, 'stored addresses');
  if (problem === null) return;
  throw new MassRemovalRefusedError(`the unsubscribe list ${problem}, so nothing was marked; if those addresses really left the list, confirm with sync --accept-removals`);
}

const UTF8 = new TextDecoder('utf-8');

/** The records of a page body the main thread has already parsed and checked. */
function itemsOf(stream: StreamDefinition, body: Uint8Array): ApiRecord[] {
  const parsed = JSON.parse(UTF8.decode(body)) as unknown;
  const items = stream.listKey === null ? parsed : (parsed as Record<string, unknown>)[stream.listKey];
  if (!Array.isArray(items)) throw new Error(`a ${stream.name} page reached storage without its records`);
  return items as ApiRecord[];
}
