import type { ApiClient } from '../../api/client.js';
import type { Transaction } from '../../api/types.js';
import type { Db } from '../../db/open.js';
import { formatAge } from '../../formatAge.js';
import type { Logger } from '../../log.js';
import { findMirrorCustomerId } from '../findMirrorCustomerId.js';
import { findQueuedCustomerEmail } from '../findQueuedCustomerEmail.js';
import { listJobsSentSince } from '../listJobsSentSince.js';
import type { WriteJob } from '../types.js';
import { findCreditProof, type CreditProof } from './creditProof.js';

/**
 * Transactions are searched from this long before the first attempt and until this long after the
 * last, so that an answer's travel time, a Date header's whole seconds and clocks drifting since the
 * API's was read cannot hide the job's own transaction. A wider window only admits more candidates,
 * which makes proof rarer, never wrong.
 */
const CLOCK_SKEW_MARGIN_MS = 60 * 1000;
/**
 * The API's clock is believed this far from ours and no farther: clocks minutes or hours apart happen
 * (a machine without time sync, a clock set in local time); a Date a day or years away is a broken
 * gateway's, and searching that far would only fetch a customer's whole history.
 */
const MAX_BELIEVED_SKEW_MS = 24 * 60 * 60 * 1000;

export interface ReconcileDeps {
  db: Db;
  client: ApiClient;
  logger: Logger;
  /** The clock the job's timestamps were written by. */
  now: () => Date;
  signal?: AbortSignal;
}

/**
 * Looks for proof that an `unknown` add_points or claim_reward job landed: the customer's service
 * id (mirror first, then the customers list by an email known from a queued order), then their
 * transactions around the attempts. Reads use the client's own retries: they are safe to repeat.
 */
export async function reconcileCredit(deps: ReconcileDeps, job: WriteJob): Promise<CreditProof> {
  const merchantId = String(job.payload.customer_merchant_id);
  const customerId = await findCustomerId(deps, merchantId);
  if (customerId === undefined) return { proved: false, reason: `customer ${merchantId} is neither in the mirror nor findable by a known email` };
  const skew = await apiClockSkew(deps);
  const firstAttempt = Date.parse(job.firstAttemptAt ?? job.updatedAt);
  // `updatedAt` of an unknown job is when its last attempt ended (markUnknown), or by when it must have (recovery).
  const lastAttempt = Date.parse(job.updatedAt);
  // The attempts are dated by our clock, the transaction by the API's: the window spans both readings,
  // so that if the API's Date is the wrong one (a gateway's clock) and ours is right, the job's own
  // transaction is still inside and a same-value credit from elsewhere cannot pass for it.
  const since = new Date(firstAttempt + Math.min(0, skew) - CLOCK_SKEW_MARGIN_MS);
  const until = new Date(lastAttempt + Math.max(0, skew) + CLOCK_SKEW_MARGIN_MS);
  const transactions: Transaction[] = [];
  for await (const page of deps.client.listTransactions({ customer_id: customerId, created_at_min: since.toISOString() }, { signal: deps.signal })) {
    transactions.push(...page.items);
  }
  // By our clock: a job of ours sent that much earlier may, by the API's, have its transaction inside.
  const others = listJobsSentSince(deps.db, { since: new Date(firstAttempt - Math.abs(skew) - CLOCK_SKEW_MARGIN_MS), excludeId: job.id });
  return findCreditProof({ job, customerId, since, until, transactions, others });
}

/**
 * How far the API's clock runs ahead of ours (negative: behind), from its answers' Date headers; 0 when
 * it shows none, or one too far from ours to believe. When no answer has shown it yet (the job's own
 * answer was lost), whoami, which needs no scope, is asked.
 */
async function apiClockSkew(deps: ReconcileDeps): Promise<number> {
  if (deps.client.clock.now() === undefined) await deps.client.whoami({ signal: deps.signal });
  const apiNow = deps.client.clock.now();
  if (apiNow === undefined) return 0;
  const skew = apiNow - deps.now().getTime();
  if (Math.abs(skew) <= MAX_BELIEVED_SKEW_MS) return skew;
  const distance = `${formatAge(Math.round(Math.abs(skew) / 1000))} ${skew > 0 ? 'ahead of' : 'behind'}`;
  deps.logger.warn({ skewSeconds: Math.round(skew / 1000) }, `the API's Date header is ${distance} this machine's clock, too far to believe: its transactions are searched by this machine's clock`);
  return 0;
}

async function findCustomerId(deps: ReconcileDeps, merchantId: string): Promise<number | undefined> {
  const mirrored = findMirrorCustomerId(deps.db, merchantId);
  if (mirrored !== undefined) return mirrored;
  const email = findQueuedCustomerEmail(deps.db, merchantId);
  if (email === undefined) return undefined;
  for await (const page of deps.client.listCustomers({ email }, { signal: deps.signal })) {
    const match = page.items.find((customer) => customer.merchant_id === merchantId);
    if (match) return match.id;
  }
  return undefined;
}
