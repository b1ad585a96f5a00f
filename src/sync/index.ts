/** The sync engine's public surface: `sync`, `status`, `run`, `once` and `demo` use only this. */
export { runSync } from './engine.js';
export { CREDENTIAL_REFUSED, describeStoppedSync, UNREACHABLE } from './unreachable.js';
export { readSyncStatus, type StreamStatus } from './status.js';
export type { StreamReport, SyncOptions, SyncReport } from './types.js';
