import type { ApiClient } from '../../api/client.js';
import type { Transaction } from '../../api/types.js';
import type { Db } from '../../db/open.js';
import type { Logger } from '../../log.js';
import { findMirrorCustomerId } from '../findMirrorCustomerId.js';
import { findQueuedCustomerEmail } from '../findQueuedCustomerEmail.js';
import { listJobsSentSince } from '../listJobsSentSince.js';
import type { WriteJob } from '../types.js';
import { findCreditProof, type CreditProof } from './creditProof.js';

/**
 * Transactions are searched from this long before the first attempt (by our clock), so that a
 * server clock running behind ours cannot hide the job's own transaction. A wider window only
 * admits more candidates, which makes proof rarer, never wrong.
 */
const CLOCK_SKEW_MARGIN_MS = 60 * 1000;

export interface ReconcileDeps {
  db: Db;
  client: ApiClient;
  logger: Logger;
}

/**
 * Looks for proof that an `unknown` add_points or claim_reward job landed: the customer's service
 * id (mirror first, then the customers list by an email known from a queued order), then their
 * transactions since the first attempt. Reads use the client's own retries: they are safe to repeat.
 */
export async function reconcileCredit(deps: ReconcileDeps, job: WriteJob): Promise<CreditProof> {
  const merchantId = String(job.payload.customer_merchant_id);
  const customerId = await findCustomerId(deps, merchantId);
  if (customerId === undefined) return { proved: false, reason: `customer ${merchantId} is neither in the mirror nor findable by a known email` };
  const firstAttempt = Date.parse(job.firstAttemptAt ?? job.updatedAt);
  const since = new Date(firstAttempt - CLOCK_SKEW_MARGIN_MS);
  // `updatedAt` of an unknown job is when its last attempt ended (markUnknown or recovery).
  const until = new Date(Date.parse(job.updatedAt) + CLOCK_SKEW_MARGIN_MS);
  const transactions: Transaction[] = [];
  for await (const page of deps.client.listTransactions({ customer_id: customerId, created_at_min: since.toISOString() })) {
    transactions.push(...page.items);
  }
  const others = listJobsSentSince(deps.db, { since, excludeId: job.id });
  return findCreditProof({ job, customerId, since, until, transactions, others });
}

async function findCustomerId(deps: ReconcileDeps, merchantId: string): Promise<number | undefined> {
  const mirrored = findMirrorCustomerId(deps.db, merchantId);
  if (mirrored !== undefined) return mirrored;
  const email = findQueuedCustomerEmail(deps.db, merchantId);
  if (email === undefined) return undefined;
  for await (const page of deps.client.listCustomers({ email })) {
    const match = page.items.find((customer) => customer.merchant_id === merchantId);
    if (match) return match.id;
  }
  return undefined;
}
