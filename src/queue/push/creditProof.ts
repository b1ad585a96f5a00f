import type { Transaction } from '../../api/types.js';
import type { WriteJob } from '../types.js';

export type CreditProof = { proved: true; transaction: Transaction } | { proved: false; reason: string };

export interface CreditEvidence {
  /** The job whose outcome is unknown: add_points or claim_reward. */
  job: WriteJob;
  /** The customer's service id. */
  customerId: number;
  /** Only transactions created at or after this instant can be the job's. */
  since: Date;
  /** The customer's transactions created since then. */
  transactions: Transaction[];
  /** Other jobs sent since then (any customer, any kind). */
  others: WriteJob[];
}

/**
 * Decides whether an `unknown` points or claim job landed, beyond doubt: exactly one transaction
 * of the customer since the first attempt looks like its effect (the same points and, where the
 * API shows it, the same reason; for a claim, a reward redemption), and none of our other writes
 * sent in that window could have made it. The doubt left is a write by another system in the same
 * window that looks the same; matching the reason removes it. Absence of a transaction is never
 * proof that the write did not land (it may become visible late), so this only ever turns
 * `unknown` into `succeeded`.
 */
export function findCreditProof(evidence: CreditEvidence): CreditProof {
  const { job, customerId, since, transactions, others } = evidence;
  const merchantId = String(job.payload.customer_merchant_id);
  const recent = transactions.filter((t) => t.customer?.id === customerId && Date.parse(t.created_at) >= since.getTime());
  const looksLike = recent.filter((t) => (job.kind === 'add_points' ? isPointsCredit(t, Number(job.payload.points)) : isRewardClaim(t)));
  // Where the API shows the reason (as the activity's rule title), it narrows the match to this very write.
  const reason = job.kind === 'add_points' ? String(job.payload.reason) : undefined;
  const withReason = looksLike.filter((t) => reason !== undefined && t.activity?.rule?.title === reason);
  const byReason = withReason.length > 0;
  const candidates = byReason ? withReason : looksLike;
  if (candidates.length === 0) return { proved: false, reason: 'no matching transaction is visible' };
  if (candidates.length > 1) return { proved: false, reason: `${candidates.length} matching transactions, so none can be attributed` };
  const rival = others.find((other) => couldExplain(other, job, { merchantId, customerId, byReason }));
  if (rival) return { proved: false, reason: `job ${rival.id} (${rival.kind}) sent in the same window could explain the transaction` };
  return { proved: true, transaction: candidates[0] };
}

/** Points added by the API appear as an activity of that value whose transaction moves exactly that many points. */
function isPointsCredit(t: Transaction, points: number): boolean {
  return t.resource === 'activity' && t.activity?.value === points && t.points_approved + t.points_pending === points;
}

function isRewardClaim(t: Transaction): boolean {
  return t.resource === 'claimed_reward' && t.points_approved + t.points_pending < 0;
}

/** Whether another of our writes could have produced a transaction that looks like `job`'s. */
function couldExplain(other: WriteJob, job: WriteJob, match: { merchantId: string; customerId: number; byReason: boolean }): boolean {
  const p = other.payload;
  if (job.kind === 'claim_reward') return other.kind === 'claim_reward' && String(p.customer_merchant_id) === match.merchantId;
  if (match.byReason) {
    // Only a points write with the same reason can carry that reason.
    return other.kind === 'add_points' && String(p.customer_merchant_id) === match.merchantId && p.points === job.payload.points && p.reason === job.payload.reason;
  }
  switch (other.kind) {
    case 'add_points':
      return String(p.customer_merchant_id) === match.merchantId && p.points === job.payload.points;
    case 'create_order':
      // An order earns points by rules whose value we cannot predict.
      return String(p.customer_id) === match.merchantId;
    case 'update_review': {
      // A status change can trigger a rule for the review's customer, known only from a stored answer.
      const owner = reviewCustomerId(other.response);
      return owner === undefined || owner === match.customerId;
    }
    case 'delete_review':
    case 'claim_reward':
      return false;
  }
}

function reviewCustomerId(response: string | null): number | undefined {
  if (response === null) return undefined;
  const parsed = JSON.parse(response) as { review?: { customer?: { id?: unknown } } };
  const id = parsed.review?.customer?.id;
  return typeof id === 'number' ? id : undefined;
}
