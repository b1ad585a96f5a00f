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
  };
}

/**
 * The newest reconciliation's defects (null before any), whether a verify or `verify --ledger` alone recorded it:
 * every verify ends with one, so after a verify job it is that verify's.
 */
export function lastLedgerDefects(db: Db): number | null {
  return lastLedgerCheck(db)?.defects ?? null;
}
