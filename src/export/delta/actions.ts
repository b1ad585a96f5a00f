/**
 * The Delta Lake log's actions (delta-io/delta PROTOCOL.md, "Actions"), as this code reads and writes
 * them. A commit file `_delta_log/%020d.json` holds one action per line, each an object with a single
 * key naming its kind. Only what reader version 1 / writer version 2 defines is modelled; anything
 * else in a log is kept as `unknown` so that a foreign table can be recognised and refused.
 */

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
  readerFeatures?: string[];
  writerFeatures?: string[];
}

export interface Metadata {
  /** A GUID fixed for the table's life: a table with another id at our path is not ours. */
  id: string;
  name?: string | null;
  description?: string | null;
  format: { provider: string; options: Record<string, string> };
  /** The Spark JSON schema of the table, as a string. */
  schemaString: string;
  partitionColumns: string[];
  configuration: Record<string, string>;
  createdTime?: number | null;
}

export interface AddFile {
  /** Relative to the table root (URI-encoded). */
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  /** Milliseconds since the epoch. */
  modificationTime: number;
  dataChange: boolean;
  /** A JSON string: numRecords, minValues, maxValues, nullCount. */
  stats?: string | null;
  tags?: Record<string, string> | null;
}

export interface RemoveFile {
  path: string;
  /** Milliseconds since the epoch: vacuum deletes the file once this is older than the retention. */
  deletionTimestamp?: number | null;
  dataChange: boolean;
  extendedFileMetadata?: boolean | null;
  partitionValues?: Record<string, string | null> | null;
  size?: number | null;
  tags?: Record<string, string> | null;
}

/** An application's own progress marker ("Transaction Identifiers"): the latest version per appId is kept. */
export interface Txn {
  appId: string;
  version: number;
  lastUpdated?: number | null;
}

/** Free-form provenance; engines show it in DESCRIBE HISTORY. */
export type CommitInfo = Record<string, unknown>;

export type Action =
  | { protocol: Protocol }
  | { metaData: Metadata }
  | { add: AddFile }
  | { remove: RemoveFile }
  | { txn: Txn }
  | { commitInfo: CommitInfo }
  /** Any other action (cdc, domainMetadata, checkpointMetadata, sidecar…): kept to be judged, never written. */
  | { unknown: { kind: string; value: unknown } };

/** One version of the log, as read from its commit file. */
export interface Commit {
  version: number;
  actions: Action[];
}

/** The table at one version: what a replay of its log leaves (PROTOCOL.md, "Action Reconciliation"). */
export interface TableState {
  version: number;
  protocol: Protocol;
  metadata: Metadata;
  /** appId → the newest txn of that application. */
  txns: Map<string, Txn>;
  /** path → add: the table's active files. */
  files: Map<string, AddFile>;
  /** path → remove: files removed and not yet re-added (what vacuum and a checkpoint's tombstones need). */
  tombstones: Map<string, RemoveFile>;
  /** The newest commit's commitInfo timestamp (ms), when one said so. */
  lastCommitTimestamp: number | null;
  /** Kinds of actions met in the log that this code does not model (e.g. `cdc`, `domainMetadata`). */
  unknownActions: Set<string>;
}

/** The most widely readable pair: no reader or writer features. */
export const PROTOCOL: Protocol = { minReaderVersion: 1, minWriterVersion: 2 };

export const LOG_DIR = '_delta_log';
export const LAST_CHECKPOINT = `${LOG_DIR}/_last_checkpoint`;

/** `_delta_log/00000000000000000007.json` */
export function commitPath(version: number): string {
  return `${LOG_DIR}/${String(version).padStart(20, '0')}.json`;
}

/** `_delta_log/00000000000000000010.checkpoint.parquet` (a classic, single-part checkpoint) */
export function checkpointPath(version: number): string {
  return `${LOG_DIR}/${String(version).padStart(20, '0')}.checkpoint.parquet`;
}

/** Parses the file name (not the path) of a log entry: a commit, a checkpoint (single or multi-part), or null. */
export function parseLogFileName(name: string): { kind: 'commit' | 'checkpoint' | 'multipart-checkpoint' | 'other'; version: number } | null {
  const match = /^(\d{20})\.(json|checkpoint\.parquet|checkpoint\.\d{10}\.\d{10}\.parquet|.+)$/.exec(name);
  if (match === null) return null;
  const version = Number(match[1]);
  const rest = match[2];
  if (rest === 'json') return { kind: 'commit', version };
  if (rest === 'checkpoint.parquet') return { kind: 'checkpoint', version };
  if (rest.startsWith('checkpoint.') && rest.endsWith('.parquet') && /^checkpoint\.\d{10}\.\d{10}\.parquet$/.test(rest)) return { kind: 'multipart-checkpoint', version };
  return { kind: 'other', version };
}

/** A commit's text: one JSON action per line, newline-terminated. */
export function serializeCommit(actions: readonly Action[]): string {
  return actions.map((action) => `${JSON.stringify(action)}\n`).join('');
}

const KNOWN = new Set(['protocol', 'metaData', 'add', 'remove', 'txn', 'commitInfo']);

/** Parses a commit's text; `where` names the file in the one-sentence error for a line that is not an action. */
export function parseCommit(version: number, text: string, where: string): Commit {
  const actions: Action[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${where} line ${index + 1} is not JSON; expected one Delta action per line.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} line ${index + 1} is not a JSON object; expected one Delta action per line.`);
    const keys = Object.keys(value);
    if (keys.length !== 1) throw new Error(`${where} line ${index + 1} has ${keys.length} keys; expected one Delta action per line.`);
    const kind = keys[0];
    const body = (value as Record<string, unknown>)[kind];
    actions.push(KNOWN.has(kind) ? (value as Action) : { unknown: { kind, value: body } });
  });
  return { version, actions };
}

/** The per-file statistics every `add` carries (PROTOCOL.md, "Per-file Statistics"). */
export interface FileStats {
  numRecords: number;
  minValues: Record<string, number | string>;
  maxValues: Record<string, number | string>;
  nullCount: Record<string, number>;
}
