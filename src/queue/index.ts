/** The write queue's public surface, for the CLI, the scheduler and `status`. */
export { pushDueJobs, summarizePush, type PushOptions, type PushReport } from './push/pushDueJobs.js';
export { CredentialError } from './push/processJob.js';
export { queueCounts, type QueueCounts } from './queueCounts.js';
export { enqueueJob, KeyConflictError, type NewJob, type EnqueueResult } from './enqueueJob.js';
export { importCsv, csvColumns, type ImportResult, type RowProblem } from './importCsv.js';
export { validatePayload, KINDS, type FieldProblem } from './kinds.js';
export { deriveKey } from './idempotencyKey.js';
export { listJobs } from './listJobs.js';
export { getJob } from './getJob.js';
export { retryJob } from './retryJob.js';
export { cancelJob } from './cancelJob.js';
export { JOB_KINDS, JOB_STATES, type JobKind, type JobState, type WriteJob } from './types.js';
