import type { Db } from '../db/open.js';
import type { Logger } from '../log.js';
import { ledgerVerdict, recordLedgerCheck } from './ledgerChecks.js';
import { checkLedger, type LedgerCheck, type LedgerCheckSettings } from './reconcile.js';

const UNDATED = "transactions with a created_at that cannot be read are in no ledger table (the text is in raw, see schema drift); their customers' ledger balances are short of them";

/** Reconciles the balances, records the result for `status` and the metric, and logs a summary line
 * (and one more when transactions have no readable day). */
export function reconcileAndRecord(db: Db, settings: LedgerCheckSettings, now: Date, logger: Logger): LedgerCheck {
  const check = checkLedger(db, settings);
  recordLedgerCheck(db, check, now.toISOString());
  const summary = { customers: check.customers, balanced: check.balanced, pending: check.pending.length, defects: check.defects.length, undated_transactions: check.undated_transactions, unattributed_transactions: check.unattributed_transactions };
  const verdict = ledgerVerdict(summary);
  if (verdict === 'defects') logger.warn({ ledger: summary, examples: check.defects.slice(0, 5) }, `${check.defects.length} balances do not equal the sum of their customer's transactions`);
  else if (verdict === 'not reconciled') logger.warn({ ledger: summary, reason: check.pending[0]?.reason }, `no customer's balance could be compared yet: all ${check.customers} are pending`);
  else logger.info({ ledger: summary }, verdict === 'balanced' ? 'every balance compared equals the sum of its transactions' : 'no customer and no transaction to reconcile');
  if (check.undated_transactions > 0) logger.warn({ undated_transactions: check.undated_transactions }, UNDATED);
  return check;
}
