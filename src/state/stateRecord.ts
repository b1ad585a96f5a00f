import { StateError } from './errors.js';
import type { LeaseHolder } from './leaseLog.js';
import type { StateStore } from './store/stateStore.js';

/**
 * `state/state.json`: written once, create-only, when a state is created, and read by every run. It is
 * how a state proves it exists (a listing of the log may lag or come back empty; this read does not),
 * and what binds the state to the program it mirrors: a run whose API names another program writes
 * nothing to it.
 */
export const RECORD_PATH = 'state/state.json';
export const RECORD_FORMAT = 'loyalty-sync-state';

/** The program an API key serves, as whoami names it; null when the API could not be asked (no key). */
export interface ProgramIdentity {
  programId: number | null;
  accountId: number | null;
  /** The API base URL the run talks to. */
  baseUrl: string;
}

export interface StateRecord {
  format: typeof RECORD_FORMAT;
  /** The state's lineage; its manifests carry the same id. */
  stateId: string;
  /** The program the state mirrors; null when the run that created it had no API key. */
  program: ProgramIdentity | null;
  createdAt: string;
  createdBy: LeaseHolder;
}

export async function readStateRecord(objects: StateStore): Promise<StateRecord | null> {
  const text = await objects.readText(RECORD_PATH);
  if (text === null) return null;
  let value: Partial<StateRecord>;
  try {
    value = JSON.parse(text) as Partial<StateRecord>;
  } catch {
    value = {};
  }
  if (value.format !== RECORD_FORMAT || typeof value.stateId !== 'string' || value.program === undefined) {
    throw new StateError(`The object ${objects.where(RECORD_PATH)} in ${objects.label} is not a loyalty-sync state record; the prefix is used by something else.`);
  }
  return value as StateRecord;
}

/** Writes the record create-only: `created`, or the record another run created first. */
export async function createStateRecord(objects: StateStore, record: StateRecord): Promise<{ created: true } | { created: false; found: StateRecord }> {
  const outcome = await objects.putCreateOnly(RECORD_PATH, Buffer.from(`${JSON.stringify(record, null, 1)}\n`), 'application/json');
  if (outcome === 'created') return { created: true };
  const found = await readStateRecord(objects);
  if (outcome === 'refused' || found === null) {
    throw new StateError(`The store behind ${objects.label} did not create ${objects.where(RECORD_PATH)} create-only; state.url needs a store that honours it.`);
  }
  // Our own write whose answer was lost reads back as ours.
  return found.stateId === record.stateId ? { created: true } : { created: false, found };
}

/**
 * Why a run against `api` must not write to the state of `record`, as one sentence; null when it may.
 * Only the program and account decide: the same program may be reached at another base URL.
 */
export function bindingRefusal(record: StateRecord, api: ProgramIdentity | null, stateUrl: string): string | null {
  const bound = record.program;
  if (bound === null || api === null || api.programId === null) return null;
  if (bound.programId === api.programId && bound.accountId === api.accountId) return null;
  return `The state at ${stateUrl} mirrors program ${bound.programId} (account ${bound.accountId}) of the API at ${bound.baseUrl}, but the API at ${api.baseUrl} serves program ${api.programId} (account ${api.accountId}); this run writes nothing to it, so give this program a state.url of its own.`;
}
