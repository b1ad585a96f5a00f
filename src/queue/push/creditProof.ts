import type { Transaction } from '../../api/types.js';
import { isoToMicrosNumber } from '../../isoTimestamp.js';
import type { WriteJob } from '../types.js';

export type CreditProof = { proved: true; transaction: Transaction } | { proved: false; reason: string };

export interface CreditEvidence {
  /** The job whose outcome is unknown: add_points or claim_reward. */
  job: WriteJob;
  /** The customer's service id. */
  customerId: number;
  /** Only transactions created at or after this instant can be the job's. */
  since: Date;
  /**
   * Nor after this one (the end of the job's last attempt, plus a margin). Without it every
   * recheck of a long-unknown job widens the window, until a credit of the same value from
   * another source (an order rule, another tool) "proves" a write that never landed.
   */
  until?: Date;
  /** The customer's transactions created since then. */
  transactions: Transaction[];
  /** Other jobs sent since then (any customer, any kind). */
  others: WriteJob[];
}

/**
 * Decides whether an `unknown` points job landed, beyond doubt: exactly one transaction of the
 * customer, created between the first attempt and shortly after the last, moves exactly the job's
 * points and carries its reason (the API shows it as the activity's rule title), and no other
 * write of ours with the same points and reason was sent in that window. Anything less is no
 * proof: a credit of the same value from another source (an order rule, another tool) would mark
 * a write succeeded that never landed, so where the API does not show the reason the job stays
 * `unknown` for a person. A reward claim's transaction names neither the reward nor the request,
 * so a claim is never proved this way. Absence of a transaction is never proof that a write did
 * not land (it may become visible late), so this only ever turns `unknown` into `succeeded`.
 */
export function findCreditProof(evidence: CreditEvidence): CreditProof {
  const { job, customerId, since, until, transactions, others } = evidence;
  if (job.kind !== 'add_points') {
    return { proved: false, reason: 'a reward claim cannot be attributed: its transaction names neither the reward nor the request' };
  }
  const merchantId = String(job.payload.customer_merchant_id);
  const points = Number(job.payload.points);
  const reason = String(job.payload.reason);
  const candidates = transactions.filter((t) => {
    const micros = isoToMicrosNumber(t.created_at);
    const created = micros === null ? Number.NaN : micros / 1000;
    const inWindow = created >= since.getTime() && (until === undefined || created <= until.getTime());
    return t.customer?.id === customerId && inWindow && isPointsCredit(t, points) && t.activity?.rule?.title === reason;
  });
  if (candidates.length === 0) return { proved: false, reason: 'no transaction with these points and this reason is visible' };
  if (candidates.length > 1) return { proved: false, reason: `${candidates.length} matching transactions, so none can be attributed` };
  const rival = others.find(
    (other) =>
      other.kind === 'add_points' &&
      String(other.payload.customer_merchant_id) === merchantId &&
      other.payload.points === job.payload.points &&
      other.payload.reason === job.payload.reason,
  );
  if (rival) return { proved: false, reason: `job ${rival.id} (add_points) with the same points and reason, sent in the same window, could explain the transaction` };
  return { proved: true, transaction: candidates[0] };
}

/** Points added by the API appear as an activity of that value whose transaction moves exactly that many points. */
function isPointsCredit(t: Transaction, points: number): boolean {
  return t.resource === 'activity' && t.activity?.value === points && t.points_approved + t.points_pending === points;
}
