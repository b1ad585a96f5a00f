import type { Db } from '../db/open.js';

/** A customer's email as given on a queued order of theirs: the customers list can be filtered by email, not by merchant id. */
export function findQueuedCustomerEmail(db: Db, customerMerchantId: string): string | undefined {
  const row = db
    .prepare(
      `SELECT json_extract(payload, '$.customer_email') AS email FROM write_jobs
       WHERE kind = 'create_order' AND json_extract(payload, '$.customer_id') = ? ORDER BY id DESC LIMIT 1`,
    )
    .get(customerMerchantId) as { email: string | null } | undefined;
  return row?.email ?? undefined;
}
