/** The write inbox in the bucket: CSV files under inbox/KIND/ are queued once; their outcome lands in outbox/KIND/. */
export { importInbox, type InboxReport } from './importInbox.js';
export { writeOutbox, type OutboxReport } from './writeOutbox.js';
