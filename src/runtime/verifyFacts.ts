import type { Db } from '../db/open.js';
import type { VerifyFact } from '../metrics/facts.js';
import { lastVerify } from '../verify/index.js';
import { lastLedgerCheck } from '../ledger/ledgerChecks.js';

/**
 * What `OpsFacts.verifyFinished` takes, read from the last verify run that finished (null when none did).
 * A repair leaves no defect of a stream it completed, and of the pending rows only those the next sync
 * reads as new (it stores the rest); a stream it could not complete keeps its extras, which it marks last.
 */
export function lastVerifyFact(db: Db): VerifyFact | null {
  const run = lastVerify(db, 'finished');
  if (run === null || run.finishedAt === null) return null;
  return {
    finishedAt: new Date(run.finishedAt),
    ok: run.ok === true,
    streams: run.streams.map((stream) => {
      if (!run.repair) return { stream: stream.stream, pending: stream.pending.count, defect: stream.defects };
      return { stream: stream.stream, pending: stream.unsynced, defect: stream.error === undefined ? 0 : stream.extra_count };
    }),
    // Every verify ends with one, so the newest is at least as new as this run.
    ledgerDefects: lastLedgerCheck(db)?.defects ?? null,
  };
}
