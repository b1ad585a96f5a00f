import type { Db } from '../db/open.js';
import type { LedgerCheck, LedgerDifference } from './reconcile.js';

/** Defects kept with a recorded check: enough to name them in `status`, bounded for a mirror gone badly wrong. */
const KEPT_DEFECTS = 100;

export interface LedgerCheckRecord {
  checked_at: string;
  customers: number;
  balanced: number;
  pending: number;
  defects: number;
  /** The first defects, by customer id. */
  examples: LedgerDifference[];
}

/**
 * A check's outcome for a person. A mirror is called balanced only when some customer was compared and none was a
 * defect: a check of nobody (no customer at all, or every difference pending) says so instead.
 */
export type LedgerVerdict = 'defects' | 'balanced' | 'not reconciled' | 'nothing to reconcile';

export function ledgerVerdict(counts: { customers: number; balanced: number; defects: number }): LedgerVerdict {
  if (counts.defects > 0) return 'defects';
  if (counts.customers === 0) return 'nothing to reconcile';
  return counts.balanced === 0 ? 'not reconciled' : 'balanced';
}

export function recordLedgerCheck(db: Db, check: LedgerCheck, at: string): void {
  db.prepare('INSERT INTO ledger_checks (checked_at, customers, balanced, pending, defects, defects_json) VALUES (?, ?, ?, ?, ?, ?)').run(
    at,
    check.customers,
    check.balanced,
    check.pending.length,
    check.defects.length,
    JSON.stringify(check.defects.slice(0, KEPT_DEFECTS)),
  );
}

/** The latest reconciliation, or null when none ran (or the mirror predates the ledger). */
export function lastLedgerCheck(db: Db): LedgerCheckRecord | null {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_checks'").get();
  if (exists === undefined) return null;
  const row = db.prepare('SELECT checked_at, customers, balanced, pending, defects, defects_json FROM ledger_checks ORDER BY id DESC LIMIT 1').get() as
    | (Omit<LedgerCheckRecord, 'examples'> & { defects_json: string })
    | undefined;
  if (row === undefined) return null;
  const { defects_json: json, ...counts } = row;
  return { ...counts, examples: JSON.parse(json) as LedgerDifference[] };
}
