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

/**
 * `state/binding.json`: the program of a state whose record names none (its creator could not ask whoami: no
 * key, an API that did not answer, or `queue`/`export`, which never ask). The first lease holder that knows its
 * program writes it, create-only, and from then on it binds the state as the record would have.
 */
export const BINDING_PATH = 'state/binding.json';
const BINDING_FORMAT = 'loyalty-sync-binding';

/** The program a state is bound to: its record's, else its binding's; null while neither names one. */
export async function boundProgram(objects: StateStore, record: StateRecord): Promise<ProgramIdentity | null> {
  if (record.program !== null) return record.program;
  const text = await objects.readText(BINDING_PATH);
  if (text === null) return null;
  let value: { format?: unknown; program?: Partial<ProgramIdentity> | null };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    value = {};
  }
  const program = value.program;
  if (value.format !== BINDING_FORMAT || program === null || typeof program !== 'object' || typeof program.programId !== 'number' || typeof program.baseUrl !== 'string') {
    throw new StateError(`The object ${objects.where(BINDING_PATH)} in ${objects.label} is not a loyalty-sync state binding; the prefix is used by something else.`);
  }
  return { programId: program.programId, accountId: typeof program.accountId === 'number' ? program.accountId : null, baseUrl: program.baseUrl };
}

/** Binds a state whose record names no program to `program`, create-only: returns the program it is bound to now (another run's, if it bound first). */
export async function bindState(objects: StateStore, record: StateRecord, program: ProgramIdentity): Promise<ProgramIdentity> {
  const outcome = await objects.putCreateOnly(BINDING_PATH, Buffer.from(`${JSON.stringify({ format: BINDING_FORMAT, program }, null, 1)}\n`), 'application/json');
  const bound = outcome === 'created' ? program : await boundProgram(objects, record);
  if (bound === null) throw new StateError(`The store behind ${objects.label} did not create ${objects.where(BINDING_PATH)} create-only; state.url needs a store that honours it.`);
  return bound;
}
