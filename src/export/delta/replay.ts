import type { Action, Commit, TableState } from './actions.js';

/**
 * The table a log describes, by PROTOCOL.md's "Action Reconciliation": the latest protocol and metaData
 * win, the newest txn per appId wins, and per path the newest file action wins (an add makes the file
 * active, a remove makes it a tombstone; an add after a remove revives it). Pure: `start` is not changed.
 * `commits` must follow `start` (or version 0 when there is none) without a gap.
 */
export function replay(start: TableState | null, commits: readonly Commit[]): TableState {
  const state = start === null ? emptyState(-1) : cloneState(start);
  const sorted = [...commits].sort((a, b) => a.version - b.version);
  for (const commit of sorted) {
    const expected = state.version + 1;
    if (commit.version !== expected) {
      throw new Error(`The Delta log has no version ${expected} before version ${commit.version}; expected contiguous commits after version ${state.version}.`);
    }
    for (const action of commit.actions) apply(state, action, true);
    state.version = commit.version;
  }
  return complete(state);
}

/** The table at `version` from a checkpoint's actions (a checkpoint holds the reconciled state, no commitInfo). */
export function stateFromCheckpointActions(version: number, actions: readonly Action[]): TableState {
  const state = emptyState(version);
  for (const action of actions) apply(state, action, false);
  return complete(state);
}

/**
 * Why this code may not read or write the table, or null when it may. Only reader version 1 and writer
 * version 2 without features are implemented: anything more (deletion vectors, column mapping, change
 * data feed, v2 checkpoints…) changes what a file or a log means, so a table needing it is left alone.
 */
export function unsupportedReason(state: TableState): string | null {
  const { protocol } = state;
  if (protocol.minReaderVersion > 1) return `it needs Delta reader version ${protocol.minReaderVersion}, and this code implements reader version 1 only`;
  if (protocol.minWriterVersion > 2) return `it needs Delta writer version ${protocol.minWriterVersion}, and this code implements writer version 2 only`;
  const features = [...(protocol.readerFeatures ?? []), ...(protocol.writerFeatures ?? [])];
  if (features.length > 0) return `it needs the Delta table features ${[...new Set(features)].join(', ')}, which this code does not implement`;
  if (state.unknownActions.size > 0) return `its log holds ${[...state.unknownActions].sort().join(', ')} actions, which this code does not implement`;
  return null;
}

/** Throws one sentence naming `location` when the table needs what this code does not implement. */
export function assertReadable(state: TableState, location: string): void {
  const reason = unsupportedReason(state);
  if (reason !== null) throw new Error(`The Delta table at ${location} is left untouched: ${reason}.`);
}

function emptyState(version: number): MutableState {
  return {
    version,
    protocol: null,
    metadata: null,
    txns: new Map(),
    files: new Map(),
    tombstones: new Map(),
    lastCommitTimestamp: null,
    unknownActions: new Set(),
  };
}

type MutableState = Omit<TableState, 'protocol' | 'metadata'> & { protocol: TableState['protocol'] | null; metadata: TableState['metadata'] | null };

function cloneState(state: TableState): MutableState {
  return {
    version: state.version,
    protocol: state.protocol,
    metadata: state.metadata,
    txns: new Map(state.txns),
    files: new Map(state.files),
    tombstones: new Map(state.tombstones),
    lastCommitTimestamp: state.lastCommitTimestamp,
    unknownActions: new Set(state.unknownActions),
  };
}

function apply(state: MutableState, action: Action, fromCommit: boolean): void {
  if ('protocol' in action) state.protocol = action.protocol;
  else if ('metaData' in action) state.metadata = action.metaData;
  else if ('txn' in action) state.txns.set(action.txn.appId, action.txn);
  else if ('add' in action) {
    state.tombstones.delete(action.add.path);
    state.files.set(action.add.path, action.add);
  } else if ('remove' in action) {
    state.files.delete(action.remove.path);
    state.tombstones.set(action.remove.path, action.remove);
  } else if ('commitInfo' in action) {
    // Checkpoints keep no commitInfo; in a commit, its timestamp is when that version was made.
    const timestamp = action.commitInfo.timestamp;
    if (fromCommit && typeof timestamp === 'number') state.lastCommitTimestamp = timestamp;
  } else state.unknownActions.add(action.unknown.kind);
}

function complete(state: MutableState): TableState {
  if (state.protocol === null) throw new Error(`The Delta log has no protocol action up to version ${state.version}; every table's log must have one.`);
  if (state.metadata === null) throw new Error(`The Delta log has no metaData action up to version ${state.version}; every table's log must have one.`);
  return { ...state, protocol: state.protocol, metadata: state.metadata };
}
