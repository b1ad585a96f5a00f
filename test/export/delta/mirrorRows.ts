import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../../src/db/open.js';
import { nextChangeSeq, type ApiRecord } from '../../../src/db/upsertRecords.js';
import { commitPath, parseCommit } from '../../../src/export/delta/actions.js';
import type { DeltaStore } from '../../../src/export/delta/store.js';
import type { DeltaTableContents } from '../../helpers/deltaTable.js';
import { upsert } from '../helpers.js';

/** A row as both sides can show it: the key, the change that wrote it, and the API's record as stored. */
export interface ComparableRow {
  id: string;
  changeSeq: string;
  raw: string;
}

/**
 * The mirror's rows that a Delta table of `table` must hold, ordered by id: those the API still has (not
 * marked by verify) and, for unsubscribes, those still on the list.
 */
export function liveMirrorRows(db: Db, table: string): ComparableRow[] {
  const live = table === 'unsubscribes' ? 't._removed_at IS NULL AND t.removed_at IS NULL' : 't._removed_at IS NULL';
  // Ordered by the key itself, not by the text alias the select gives it.
  return db.prepare(`SELECT CAST(t.id AS TEXT) AS id, CAST(t._change_seq AS TEXT) AS changeSeq, t.raw AS raw FROM "${table}" AS t WHERE ${live} ORDER BY t.id`).all() as ComparableRow[];
}

/** The rows of a table read back by readDeltaTable, in the same shape and order. */
export function deltaRows(contents: DeltaTableContents): ComparableRow[] {
  return contents.rows.map((row) => ({ id: String(row.id), changeSeq: String(row._change_seq), raw: String(row.raw) }));
}

/**
 * bigTransactionsMirror stamps its rows with change 1 without counting it: counted here, so that the
 * first export's `txn` says the table reflects them and later changes are told apart from them.
 */
export function countInitialChange(db: Db): void {
  nextChangeSeq(db);
}

/** A transaction shaped as the API sends it (and as bigTransactionsMirror stores it); `edit` varies it. */
function transactionRecord(id: number, edit: number): ApiRecord {
  const customerId = 1 + ((id * 7919) % 5000);
  const points = ((id * 37) % 400) - 100;
  return {
    id,
    customer: { id: customerId, merchant_id: `cust-${customerId}`, email: `customer.${customerId}@example.com`, points_approved: 1000 + points + edit },
    points_approved: points,
    points_pending: edit,
    created_at: new Date(Date.UTC(2026, 0, 1) + id * 7000).toISOString(),
    resource: 'order',
    activity: { id: id + 5_000_000, state: 'approved', value: points, rule: { id: 3, name: 'Order placed', title: `Points for order #${id}, thanks "friend"` } },
  };
}

/**
 * A little change through the mirror's own upserter, in one change: the rows `changed` get a new
 * version (their files are rewritten), and `added` new transactions follow the highest id.
 */
export function changeTransactions(db: Db, edit: number, changed: readonly number[], added: number): void {
  const top = db.prepare('SELECT MAX(id) FROM transactions').pluck().get() as number;
  const records = [...changed.map((id) => transactionRecord(id, edit)), ...Array.from({ length: added }, (_, index) => transactionRecord(top + 1 + index, 0))];
  upsert(db, 'transactions', records);
}

/** The versions of the JSON commits in a `_delta_log` folder listing (names or keys), ascending. */
export function commitVersions(names: readonly string[]): number[] {
  return names
    .map((name) => /(?:^|\/)(\d{20})\.json$/.exec(name)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The JSON commits on disk of the table at `root`. */
export function commitVersionsOnDisk(root: string): number[] {
  try {
    return commitVersions(readdirSync(join(root, '_delta_log')));
  } catch {
    return [];
  }
}

/** 0, 1, … n-1: what a log of n versions, none missing and none twice, lists. */
export function contiguous(count: number): number[] {
  return Array.from({ length: count }, (_, version) => version);
}

/**
 * The mirror change each version says the table reflects (its `txn`), version by version. A commit
 * written twice (a retry of an applied one) would show as the same change at two versions.
 */
export async function reflectedChanges(store: DeltaStore, versions: readonly number[]): Promise<number[]> {
  const changes: number[] = [];
  for (const version of versions) {
    const bytes = await store.read(commitPath(version));
    if (bytes === null) throw new Error(`version ${version} of ${store.location} is missing`);
    const { actions } = parseCommit(version, bytes.toString('utf8'), store.location);
    for (const action of actions) if ('txn' in action) changes.push(action.txn.version);
  }
  return changes;
}

/** Whether each number is larger than the one before it. */
export function strictlyIncreasing(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value > (values[index - 1] as number));
}
