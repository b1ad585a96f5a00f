/** The write inbox in the bucket: CSV files under inbox/KIND/ are queued once; their outcome lands in outbox/KIND/. */
export { importInbox, type InboxReport } from './importInbox.js';
export { writeOutbox, type OutboxReport } from './writeOutbox.js';
export { countInboxFiles, INBOX_FILE_OUTCOMES, refusedInboxFiles, type InboxFileOutcome } from './inboxCounts.js';
